"""Claims on run folders: two processes running the same configuration take turns.

The first claims the folder (an advisory lock on `.<hash>.lock` beside it, released by the
system if the process dies); the second waits with a message, then finds every answer in
the response cache."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_claims_lock = threading.Lock()


# Weak: a claim nobody holds any more (a run that raised) is collected, and its lock freed.
_claims: weakref.WeakValueDictionary[Path, RunClaim] = weakref.WeakValueDictionary()


def _lock_path(folder: Path) -> Path:
    return folder.parent / f".{folder.name}.lock"


class RunClaim:
    """This process's exclusive claim on a run folder's configuration: an advisory lock
    (flock) on `.<hash>.lock` beside the folder. Re-entrant within the process; released
    by `release()`, by garbage collection, or by the system when the process dies (so a
    kill -9 never leaves a stale claim)."""

    def __init__(self, folder: Path, handle: Any):
        self.folder = folder
        self._handle = handle
        self.depth = 1

    def release(self) -> None:
        with _claims_lock:
            self.depth -= 1
            if self.depth > 0:
                return
            if _claims.get(self.folder) is self:
                del _claims[self.folder]
            handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()  # closing the file releases the flock

    def release_all(self) -> None:
        with _claims_lock:
            self.depth = 1
        self.release()

    def __del__(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()


def _acquire(folder: Path, notify: Callable[[str], None] | None) -> RunClaim:
    key = folder.absolute()
    with _claims_lock:
        held = _claims.get(key)
        if held is not None and held._handle is not None:
            held.depth += 1
            return held
    folder.parent.mkdir(parents=True, exist_ok=True)
    handle = open(_lock_path(folder), "a+", encoding="utf-8")  # noqa: SIM115 - held by the claim
    try:
        import fcntl
    except ImportError:  # no flock (Windows): runs of one configuration are not serialised
        return _register(key, handle)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        if notify is not None:
            notify(
                f"lexbench: another process (pid {holder}) is running this same "
                f"configuration into {folder}; waiting for it to finish, then its answers "
                f"are taken from the response cache (Ctrl-C to stop)"
            )
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return _register(key, handle)


def _register(key: Path, handle: Any) -> RunClaim:
    claim = RunClaim(key, handle)
    with _claims_lock:
        _claims[key] = claim
    return claim


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def claim(folder: Path, notify: Callable[[str], None] | None = say) -> RunClaim:
    """Claim the run folder at `folder` for this process: waits (saying so through `notify`)
    while another process holds it."""
    return _acquire(folder, notify)


@contextlib.contextmanager
def held(folder: Path) -> Iterator[None]:
    """Hold the folder's claim (re-entrant: a folder this process claimed is not waited for)."""
    claim = _acquire(folder, say)
    try:
        yield
    finally:
        claim.release()
