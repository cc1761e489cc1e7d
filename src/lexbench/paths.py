"""Where lexbench keeps what it prepares once: WordNet copies, indexes, model caches.

Everything lives under one cache root so a user can see (and delete) it in one place.
`LEXBENCH_CACHE` overrides the default `~/.cache/lexbench` (or `$XDG_CACHE_HOME/lexbench`).

`special_file` tells a device, a named pipe or a socket from a file: lexbench writes files
in pairs or with companions beside them (a manifest, SQLite's journal, a temporary file
renamed into place), none of which may ever be written beside /dev/null or a FIFO.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from collections.abc import Collection
from pathlib import Path
from typing import Any


def cache_location(*parts: str) -> Path:
    """Where a sub-directory of the cache root is, without creating anything (a reader of
    a read-only cache finds it, or finds nothing there)."""
    explicit = os.environ.get("LEXBENCH_CACHE")
    if explicit:
        root = Path(explicit)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = (Path(xdg) if xdg else Path.home() / ".cache") / "lexbench"
    return root.joinpath(*parts)


def cache_root() -> Path:
    """The directory lexbench writes its caches under, created on demand."""
    root = cache_location()
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_dir(*parts: str) -> Path:
    """A sub-directory of the cache root, created on demand."""
    path = cache_root().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def special_file(path: str | os.PathLike[str]) -> str | None:
    """What `path` is when it exists and is neither a regular file nor a folder ("a
    character device", "a named pipe (FIFO)", ...), links followed; None otherwise."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    kinds = (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((kind for test, kind in kinds if test(mode)), None)


def refuse_special_file(path: str | os.PathLike[str], why: str, named: str = "") -> None:
    """A ValueError (exit status 2 on the command line), one line naming `path` (after
    `named`, e.g. "--cache ") and what it is, when it is a device, a pipe or a socket;
    `why` says what needs a regular file."""
    kind = special_file(path)
    if kind is not None:
        raise ValueError(f"{named}{path} is {kind}, not a regular file: {why}")


def write_atomically(path: Path, text: str) -> None:
    """Write a cache file as one unit: `text` goes to a temporary file of its own beside
    `path` (two processes or threads building the same cache never share one), is flushed to
    disk, and is renamed over `path`; a reader sees no file or the whole file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def read_cache_json(path: Path, what: str, formats: Collection[int]) -> dict[str, Any]:
    """A JSON cache file lexbench wrote, of one of `formats`; otherwise a ValueError that
    names the file, what is wrong and the way out (a cache is rebuilt once deleted)."""
    way_out = "delete it and lexbench builds it again"
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: the {what} cannot be read ({error}); {way_out}") from None
    found = payload.get("format") if isinstance(payload, dict) else None
    if found not in formats:
        raise ValueError(f"{path} has {what} format {found}, expected {max(formats)}; {way_out}")
    return payload


def file_size_limit() -> int | None:
    """This process's largest file in bytes (`ulimit -f`), or None when unlimited."""
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def storage_limit(path: Path, free_below: int = 1 << 20) -> str | None:
    """What stops a file at `path` from growing, in words, when something visibly does: a
    file-size limit on this process, or a disk with less than `free_below` bytes free.
    SQLite reports either only as a "disk I/O error"."""
    import shutil

    limit = file_size_limit()
    if limit is not None:
        return f"this process may write no file over {limit:,} bytes (ulimit -f)"
    for folder in (path.parent, *path.parent.parents):
        if folder.is_dir():
            with contextlib.suppress(OSError):
                free = shutil.disk_usage(folder).free
                if free < free_below:
                    return f"the disk is full ({free:,} bytes free under {folder})"
            break
    return None
