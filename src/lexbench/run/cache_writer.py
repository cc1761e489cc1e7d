"""Answers committed to the response cache in small groups, not one transaction each.

A streaming backend hands the runner its answers one by one (hundreds a second at high
concurrency). Committing each in its own SQLite transaction costs a write of the WAL
frame and its header per answer; `GroupedWriter` gathers them and commits a group when it
holds `max_rows` answers or its oldest answer has waited `max_delay` seconds (a timer
thread sees to that when answers stop arriving), and whatever is left when the run ends,
however it ends short of a kill.

The durability promise is unchanged in kind: an answer acknowledged by a commit is never
asked again. A `kill -9` loses at most the answers of the last `max_delay` seconds (and
fewer than `max_rows`); those requests are sent again on the rerun, like requests in
flight. A commit that fails in the timer thread (a full disk) is raised in the runner's
thread at its next answer or at the end, never dropped; the timer keeps committing
meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from lexbench.run.cache import ResponseCache
from lexbench.types import Request, Response

Entry = tuple[str, Mapping[str, Any], Request, Response]
GROUP_ROWS = 256  # answers per transaction at most
GROUP_DELAY_S = 0.25  # seconds an answer waits for its commit at most


class GroupedWriter:
    """Commits entries to `cache` in groups (see the module docstring). Thread-safe."""

    def __init__(
        self,
        cache: ResponseCache,
        max_rows: int = GROUP_ROWS,
        max_delay: float = GROUP_DELAY_S,
    ):
        if max_rows < 1 or not max_delay > 0:
            raise ValueError(f"max_rows must be >= 1 and max_delay > 0: {max_rows}, {max_delay}")
        self.cache = cache
        self.max_rows = max_rows
        self.max_delay = max_delay
        self._pending: list[Entry] = []
        self._oldest = 0.0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._failure: BaseException | None = None
        self._timer = threading.Thread(target=self._flush_late, name="lexbench-cache", daemon=True)
        self._timer.start()

    def add(self, entry: Entry) -> None:
        self._raise_failure()
        with self._lock:
            if not self._pending:
                self._oldest = time.monotonic()
            self._pending.append(entry)
            full = len(self._pending) >= self.max_rows
        if full:
            self.flush()

    def flush(self) -> None:
        """Commit what is waiting, now."""
        with self._lock:
            group, self._pending = self._pending, []
        if not group:
            return
        try:
            self.cache.put_many(group)
        except BaseException:
            with self._lock:  # kept for the next try (the run's end), which says it again
                self._pending[:0] = group
            raise

    def _flush_late(self) -> None:
        while not self._closed.wait(self.max_delay / 4):
            with self._lock:
                due = bool(self._pending) and time.monotonic() - self._oldest >= self.max_delay
            if due:
                try:
                    self.flush()
                except BaseException as error:  # raised in the runner's thread
                    # and tried again at the next tick: the bound on an answer's wait holds
                    # for as long as the run goes on (a full disk may free up meanwhile)
                    self._failure = error

    def _raise_failure(self) -> None:
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def close(self) -> None:
        """Stop the timer and commit what is left (raising a commit's failure, if any)."""
        self._closed.set()
        self._timer.join()
        self._raise_failure()
        self.flush()

    def __enter__(self) -> GroupedWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
