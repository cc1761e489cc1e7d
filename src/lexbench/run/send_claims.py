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

A run that was itself stopped (SIGSTOP, a suspended laptop) or hung past `trust_s()` (the
lease less two refreshes) may have lost its claims that way, and another run may have
answered them meanwhile: `Lease` notices the gap (at its next refresh, or before its next
send), and from then on the runner checks each request against the cache and claims it
again before sending it, until it claims its next group of requests (`run.claimant`,
`run.window_answers`).
`LEXBENCH_TEST_CLAIM_LEASE_S` (tests only) shortens the lease, so that a test with real
processes and real signals runs in seconds.

>>> Owner.current().pid == os.getpid()
True
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _lease_from_environment(default: float = 300.0) -> float:
    """The lease: 300 s, or shorter where a test sets LEXBENCH_TEST_CLAIM_LEASE_S (a
    number from 1 to 300; anything else is ignored, as the knob is not a user's option)."""
    try:
        value = float(os.environ.get("LEXBENCH_TEST_CLAIM_LEASE_S", ""))
    except ValueError:
        return default
    return value if math.isfinite(value) and 1.0 <= value <= default else default


# A claim not refreshed for this long is taken over, whoever holds it; its live owner
# refreshes it every REFRESH_S seconds, so it takes ten missed refreshes in a row.
CLAIM_LEASE_S = _lease_from_environment()
REFRESH_S = CLAIM_LEASE_S / 10


def trust_s() -> float:
    """How long after its last refresh a run still takes its claims to be its own: the
    lease less two refreshes, so a send decided just before is out before any takeover."""
    return CLAIM_LEASE_S - 2 * REFRESH_S


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


class Lease:
    """When this run's claims were last known to be its own, and whether they may have
    lapsed since (thread-safe: the heartbeat renews it, the sending thread asks it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._since = time.time()
        self._lapsed = False

    def restart(self, at: float) -> None:
        """Every claim in use is being made now (a new group of requests is claimed)."""
        with self._lock:
            self._since, self._lapsed = at, False

    def renewed(self, at: float) -> None:
        """The claims were refreshed at `at`. A gap of `trust_s()` or more since the last
        time means this run was stopped or hung meanwhile: another may have taken them."""
        with self._lock:
            if at - self._since >= trust_s():
                self._lapsed = True
            self._since = max(self._since, at)

    def trusted(self, now: float) -> bool:
        """Whether a request claimed in the current group may be sent without a new look at
        the cache; once not, not again until `restart`."""
        with self._lock:
            if not self._lapsed and now - self._since >= trust_s():
                self._lapsed = True
            return not self._lapsed


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


# ---------------------------------------------------------------- what a run says


def say_waiting(count: int, cache: Path, holder: Holder, waited: float) -> None:
    """Whom a run waits for, and for how long at most: the holder's claims are taken over
    at once if it dies, and after `CLAIM_LEASE_S` without a refresh if it hangs."""
    bound = holder.taken_over_in(time.time())
    print(
        f"\nlexbench: {count} request(s) are being sent by another process using {cache} "
        f"({holder.describe()}){f' (waited {waited:.0f} s so far)' if waited else ''}; "
        f"waiting for its answers instead of sending them twice. They are sent from here if "
        f"that process dies (seen within a second) or leaves its claims unrefreshed for "
        f"{CLAIM_LEASE_S:.0f} s (next deadline in {bound:.0f} s)",
        file=sys.stderr,
        flush=True,
    )


def say_claims_lapsed(cache: Path) -> None:
    """Once per run, when a run that lost its claims finds requests answered elsewhere."""
    print(
        f"\nlexbench: this run was stopped or stalled long enough that another process using "
        f"{cache} may have taken over its requests; each is now checked against the cache "
        "before it is sent, and those answered or being sent elsewhere are not sent again",
        file=sys.stderr,
        flush=True,
    )
