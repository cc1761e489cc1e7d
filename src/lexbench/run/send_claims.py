"""Who is sending a request right now: claims shared through the response cache.

Two runs that use one cache file but write different run folders (another `--out`, another
benchmark asking the same things) must not send the same request at the same time: a paid
API would be asked, and paid, twice. Before sending, the runner claims each request's
cache key in the cache's `sending` table (`ResponseCache.claim_for_sending`); a key another
live process holds is not sent but waited for, and its answer read from the cache once it
is there. A claim ends when its answer is stored (its row goes with the next group of
such rows, or at the run's end: it binds no one meanwhile, as the answer is read first),
when its request fails (the waiter then sends it), when its run ends, or when its owner is
found gone:

- at once (at the waiter's next look, within a second) when the owner is a process of this
  machine that no longer runs, is a zombie (killed, not yet reaped by its parent), or whose
  pid now belongs to another process;
- after `CLAIM_LEASE_S` seconds without a refresh, whoever the owner is: a live owner
  refreshes its claims every `REFRESH_S` seconds from a thread of its own (`Heartbeat`),
  whatever its model is doing, so a claim that old belongs to a process that is stopped,
  hung, or on another machine that cannot be looked at.

The first sweep of a run (`sweep_dead`) also deletes every claim of an owner found gone,
asked for or not, so the claims of killed runs do not pile up in the file.

>>> Owner.current().pid == os.getpid()
True
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# A claim not refreshed for this long is taken over, whoever holds it; its live owner
# refreshes it every REFRESH_S seconds, so it takes ten missed refreshes in a row.
CLAIM_LEASE_S = 300.0
REFRESH_S = 30.0


def _proc_stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name ([] where there is none)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[-1].split()
    except OSError:
        return []


def process_started(pid: int) -> str:
    """When process `pid` started (clock ticks since boot, from /proc), or "" where the
    system does not say: with the pid it tells a live owner from a later process that was
    given the same pid."""
    fields = _proc_stat(pid)
    return fields[19] if len(fields) > 19 else ""


def is_zombie(pid: int) -> bool:
    """Whether `pid` has died and waits only to be reaped (state Z, or X while it goes):
    `kill(pid, 0)` still finds it, but it sends nothing any more."""
    fields = _proc_stat(pid)
    return bool(fields) and fields[0] in ("Z", "X")


@dataclass(frozen=True)
class Owner:
    """One `execute` call of one process: its claims carry all four."""

    host: str
    pid: int
    started: str
    token: str

    @property
    def id(self) -> str:
        return f"{self.host}:{self.pid}:{self.token}"

    @classmethod
    def current(cls) -> Owner:
        pid = os.getpid()
        return cls(socket.gethostname(), pid, process_started(pid), secrets.token_hex(6))

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}"


def owner_alive(host: str, pid: int, started: str, since: float, now: float) -> bool:
    """Whether the process that made a claim may still be sending its request: refreshed
    within the lease, and, where it can be looked at, running (not a zombie, not a later
    process given the same pid)."""
    if now - since >= CLAIM_LEASE_S:
        return False  # stopped, hung, or out of reach: see the module docstring
    if host != socket.gethostname() or os.name == "nt":  # no way to look at the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    if is_zombie(pid):
        return False
    now_started = process_started(pid)
    return not (started and now_started and now_started != started)


@dataclass(frozen=True)
class Holder:
    """Another owner's claim on a key this run waits for."""

    host: str
    pid: int
    since: float  # its last refresh (time.time())

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}"

    def taken_over_in(self, now: float) -> float:
        """Seconds until the claim is taken over unless refreshed (sooner if it dies)."""
        return max(0.0, self.since + CLAIM_LEASE_S - now)


# ---------------------------------------------------------------- the `sending` table
# Each function runs inside the caller's transaction (the cache's lock held).


def claim(
    db: sqlite3.Connection, keys: Sequence[str], owner: Owner, now: float
) -> tuple[list[str], dict[str, Holder]]:
    """Claim those of `keys` no live other owner holds: (claimed, {key: other holder})."""
    held: dict[str, tuple[Any, ...]] = {}
    for start in range(0, len(keys), 500):
        chunk = list(keys[start : start + 500])
        marks = ",".join("?" * len(chunk))
        for row in db.execute(
            f"SELECT key, owner, host, pid, started, since FROM sending WHERE key IN ({marks})",
            chunk,
        ):
            held[row[0]] = row[1:]
    mine: list[str] = []
    others: dict[str, Holder] = {}
    for key in keys:
        holder = held.get(key)
        if (
            holder is not None
            and holder[0] != owner.id
            and owner_alive(holder[1], holder[2], holder[3], holder[4], now)
        ):
            others[key] = Holder(holder[1], holder[2], holder[4])
        else:
            mine.append(key)
    db.executemany(
        "INSERT OR REPLACE INTO sending (key, owner, host, pid, started, since) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [(k, owner.id, owner.host, owner.pid, owner.started, now) for k in mine],
    )
    return mine, others


def sweep_dead(db: sqlite3.Connection, owner: Owner, now: float) -> int:
    """Delete every claim of every owner found gone (see `owner_alive`); how many."""
    owners = db.execute(
        "SELECT owner, host, pid, started, MAX(since) FROM sending GROUP BY owner"
    ).fetchall()
    gone = [
        (who,)
        for who, host, pid, started, since in owners
        if who != owner.id and not owner_alive(host, pid, started, since, now)
    ]
    if not gone:
        return 0
    before = db.total_changes
    db.executemany("DELETE FROM sending WHERE owner = ?", gone)
    return db.total_changes - before


class Heartbeat:
    """Calls `refresh` every `every` seconds on a daemon thread until `stop()`: a live
    owner's claims stay fresh while its model works on one long batch. A refresh that
    fails (the cache busy for a minute) is tried again at the next beat; a claim only
    lapses after CLAIM_LEASE_S without any."""

    def __init__(self, refresh: Callable[[], None], every: float | None = None):
        self._refresh = refresh
        self._every = REFRESH_S if every is None else every
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="lexbench-claims", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stopped.wait(self._every):
            with contextlib.suppress(Exception):  # see the class docstring: tried again
                self._refresh()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)  # a refresh stuck on a busy cache ends on its own
