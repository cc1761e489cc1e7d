"""Where lexbench keeps what it prepares once: WordNet copies, indexes, model caches.

Everything lives under one cache root so a user can see (and delete) it in one place.
`LEXBENCH_CACHE` overrides the default `~/.cache/lexbench` (or `$XDG_CACHE_HOME/lexbench`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
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
