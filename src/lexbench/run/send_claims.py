"""Who is sending a request right now: claims shared through the response cache.

Two runs that use one cache file but write different run folders (another `--out`, another
benchmark asking the same things) must not send the same request at the same time: a paid
API would be asked, and paid, twice. Before sending, the runner claims each request's
cache key in the cache's `sending` table (`ResponseCache.claim_for_sending`); a key another
live process holds is not sent but waited for, and its answer read from the cache once it
is there. A claim ends when its answer is stored (its row goes with the next group of
such rows, or at the run's end: it binds no one meanwhile, as the answer is read first),
when its request fails (the waiter then sends it), when its run ends, or when its owner is
found dead: a process on this machine that no longer runs (or whose pid now belongs to
another process), or a process on another machine that has not refreshed its claims for
`FOREIGN_LEASE_S` seconds.

>>> Owner.current().pid == os.getpid()
True
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass

# A claim of another machine's process counts as abandoned after this long without news
# (its owner refreshes its claims whenever it stores an answer, at most every REFRESH_S).
FOREIGN_LEASE_S = 600.0
REFRESH_S = 60.0


def process_started(pid: int) -> str:
    """When process `pid` started (clock ticks since boot, from /proc), or "" where the
    system does not say: with the pid it tells a live owner from a later process that was
    given the same pid."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            fields = handle.read().rsplit(")", 1)[-1].split()
    except OSError:
        return ""
    return fields[19] if len(fields) > 19 else ""


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
    """Whether the process that made a claim may still be sending its request."""
    if host != socket.gethostname() or os.name == "nt":  # no way to look at the process
        return now - since < FOREIGN_LEASE_S
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    now_started = process_started(pid)
    return not (started and now_started and now_started != started)
