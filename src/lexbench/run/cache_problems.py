"""What can be wrong with a response cache, said in one message: the errors, the refusal
of a path that cannot be a cache file, and the description of a damaged or unusable one
(which file, what is wrong, the ways out)."""

from __future__ import annotations

from pathlib import Path

from lexbench.paths import refuse_special_file, storage_limit


class CacheError(RuntimeError):
    """The response cache cannot be used; the message names the file and the way out."""


class CachePathError(CacheError, ValueError):
    """`--cache` names what cannot be a cache file (a folder, a device, a named pipe): the
    user's input, so exit status 2 (a ValueError), before anything is written."""


# Why --cache must be a regular file (SQLite writes its journal and log beside it).
NEEDS_A_FILE = (
    "the cache is a SQLite file, whose journal and write-ahead log are written beside it; "
    "give a file's name (--cache FILE), or run with --no-cache"
)


def refuse_a_non_file(path: Path) -> None:
    """A CachePathError when `path` is a folder, a device, a named pipe or a socket."""
    if path.is_dir():
        raise CachePathError(
            f"response cache {path} is a folder, not a cache file: give the file "
            f"itself, e.g. --cache {path / 'responses.sqlite'}"
        )
    try:
        refuse_special_file(path, NEEDS_A_FILE, named="response cache ")
    except ValueError as error:
        raise CachePathError(str(error)) from None


def describe_problem(path: Path, error: BaseException) -> str:
    """One message: which file, what is wrong with it, and what to do."""
    text = str(error)
    lowered = text.lower()
    ways_out = (
        f"run with --no-cache, or --cache ANOTHER_FILE, or move the damaged file aside "
        f"and rebuild it with `lexbench cache repair --cache {path}`"
    )
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        problem = f"is corrupt or truncated ({text})"
    elif "readonly" in lowered or "read-only" in lowered or "permission" in lowered:
        problem = f"cannot be written ({text})"
        ways_out = (
            "make the file and its folder writable, or run with --cache ANOTHER_FILE or --no-cache"
        )
    elif "disk is full" in lowered or "no space" in lowered or "full" in lowered:
        problem = f"cannot grow: the disk is full ({text})"
        ways_out = (
            "free some space, or run with --cache ANOTHER_FILE on another disk, or --no-cache"
        )
    elif "disk i/o error" in lowered and storage_limit(path) is not None:
        # Not damage: SQLite says "disk I/O error" for a write the system refused.
        problem = f"cannot grow: {storage_limit(path)} ({text})"
        ways_out = (
            "free some space or raise the limit (ulimit -f unlimited), or run with --cache "
            "ANOTHER_FILE on another disk, or --no-cache"
        )
    elif "unable to open" in lowered:
        problem = f"cannot be opened ({text})"
        ways_out = (
            "check that its folder exists and is writable, or run with --cache ANOTHER_FILE "
            "or --no-cache"
        )
    elif "locked" in lowered or "busy" in lowered:
        problem = f"is locked by another process for too long ({text})"
        ways_out = "wait for the other lexbench process to finish, or run with --cache ANOTHER_FILE"
    else:
        problem = f"cannot be used ({type(error).__name__}: {text})"
    return f"response cache {path} {problem}; {ways_out}"
