"""Claims on run folders: two processes running the same configuration take turns.

The first claims the folder (an advisory lock on `.<hash>.lock` beside it, released by the
system if the process dies); the second waits with a message, then finds every answer in
the response cache.

The lock file is removed when its claim is released, so none stays beside the run folders.
Removing a lock file others may be waiting on is safe because a process that obtains the
lock checks that the file it locked is still the one at that path (same inode); if it was
removed or replaced meanwhile, it opens the path again and waits on the new file."""

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
try:
    import fcntl  # noqa: F401 - only whether it exists

    _LOCKS_FILES = True
except ImportError:
    _LOCKS_FILES = False


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
            _remove_and_unlock(_lock_path(self.folder), handle)

    def release_all(self) -> None:
        with _claims_lock:
            self.depth = 1
        self.release()

    def __del__(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            _remove_and_unlock(_lock_path(self.folder), handle)


def _same_file(handle: Any, path: Path) -> bool:
    """Whether the open `handle` is still the file at `path` (not removed or replaced)."""
    try:
        return os.fstat(handle.fileno()).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False
    except ValueError:  # already closed (collected at exit): its lock is gone, not ours to remove
        return False


def _remove_and_unlock(path: Path, handle: Any) -> None:
    """Remove the lock file while still holding its lock (only if it is ours: a process
    that locked it later finds it gone and locks the new one), then release the lock."""
    try:
        if _LOCKS_FILES and _same_file(handle, path):
            path.unlink(missing_ok=True)
    finally:
        handle.close()  # closing the file releases the flock


def _acquire(folder: Path, notify: Callable[[str], None] | None) -> RunClaim:
    key = folder.absolute()
    with _claims_lock:
        held = _claims.get(key)
        if held is not None and held._handle is not None:
            held.depth += 1
            return held
    folder.parent.mkdir(parents=True, exist_ok=True)
    lock = _lock_path(folder)
    if not _LOCKS_FILES:  # no flock (Windows): runs of one configuration are not serialised
        return _register(key, open(lock, "a+", encoding="utf-8"))
    import fcntl

    told = False
    while True:
        handle = open(lock, "a+", encoding="utf-8")  # noqa: SIM115 - held by the claim
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "?"
            if notify is not None and not told:
                notify(
                    f"lexbench: another process (pid {holder}) is running this same "
                    f"configuration into {folder}; waiting for it to finish, then its answers "
                    f"are taken from the response cache (Ctrl-C to stop)"
                )
                told = True
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        if _same_file(handle, lock):
            break
        handle.close()  # its holder removed it on release: lock the file now at the path
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
