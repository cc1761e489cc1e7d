"""This run's side of the send claims, for the whole run (`send_claims` says what a claim is,
why runs that share a cache need them, and how they end).

A run claims each group of requests just before it sends them (`claim`): the first claim
starts the heartbeat that keeps the run's claims fresh from a thread of its own, and each
new group restarts the lease. Once the lease may have lapsed (this process was stopped or
hung), the runner claims each request again just before it goes out, and says so once
(`say_lapsed`). A run that waits for requests another process is sending names the last
such process it met (`say_waiting`). At the run's end the heartbeat stops and every claim
is released (`end_steps`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from lexbench.run.cache import ResponseCache
from lexbench.run.send_claims import (
    Heartbeat,
    Holder,
    Lease,
    Owner,
    say_claims_lapsed,
    say_waiting,
)
from lexbench.types import Response


class Claimant:
    """The send claims of one run (one `Owner`) in one cache, across its windows."""

    def __init__(self, cache: ResponseCache, owner: Owner):
        self.cache = cache
        self.owner = owner
        self._heartbeat: Heartbeat | None = None  # refreshes the claims, from the first on
        self._lease = Lease()  # whether the claims may have lapsed (a stopped run)
        self._lapse_said = False
        self._met: Holder | None = None  # the last other sender met, named when waiting

    def claim(
        self, keys: list[str], regroup: bool
    ) -> tuple[dict[str, Response], list[str], dict[str, Holder]]:
        """Claim `keys` to send (`ResponseCache.claim_for_sending`): (answers stored since
        they were looked up, keys now this run's, {key: holder} for keys another process
        is sending). `regroup`: nothing is in flight, so every claim this run relies on is
        made now (the lease starts again)."""
        if self._heartbeat is None:
            lease, cache, owner = self._lease, self.cache, self.owner
            self._heartbeat = Heartbeat(lambda: lease.renewed(cache.refresh_claims(owner)))
        if regroup:
            self._lease.restart(time.time())
        answered, mine, others = self.cache.claim_for_sending(keys, self.owner)
        if others:
            self._met = next(iter(others.values()))
        return answered, mine, others

    def trusted(self) -> bool:
        """Whether the claims of the current group are surely still this run's."""
        return self._lease.trusted(time.time())

    def say_lapsed(self) -> None:
        """Once per run: requests it claimed may have been answered elsewhere meanwhile."""
        if not self._lapse_said:
            self._lapse_said = True
            say_claims_lapsed(self.cache.path)

    def say_waiting(self, count: int, waited: float) -> None:
        """Whom the run waits for (`count` requests), and for how long at most."""
        if self._met is None:
            raise RuntimeError("waiting for requests no other process was found sending")
        say_waiting(count, self.cache.path, self._met, waited)

    def end_steps(self) -> list[Callable[[], None]]:
        """The run's end, in order: the heartbeat stopped, then every claim released."""
        cache, owner = self.cache, self.owner
        steps: list[Callable[[], None]] = [] if self._heartbeat is None else [self._heartbeat.stop]
        steps.append(lambda: cache.release_claims(owner))
        return steps
