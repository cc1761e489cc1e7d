"""The bookkeeping of requests in flight to an OpenAI-compatible server: why a group is retried
or sent again, what is known of the server (whether it takes lists of prompts), the sender's
settings, and the queue of groups waiting, in flight and resolved."""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lexbench.models.openai.adapt import Adaptations
from lexbench.models.openai.call import Call

# Waits at least this long are announced on stderr.
ANNOUNCE_WAIT_SECONDS = 5.0


# Statuses with which a server refuses a list of prompts it does not take.
BATCH_REFUSALS = frozenset({400, 413, 422, 500, 501})


# Statuses that say "not now" to a whole request: a batch is retried whole.
WHOLE_REQUEST_STATUSES = frozenset({408, 409, 425, 429, 502, 503, 504})


MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError)


class RequestFailed(Exception):
    """One call failed for good (after its retries, or with a non-retryable status)."""


class Retry(Exception):
    """An attempt failed in a way another attempt may fix."""

    def __init__(self, reason: str, retry_after: float | None = None, whole: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.whole = whole  # retry a batch as it was, not prompt by prompt


class Resend(Exception):
    """Send these calls again without spending an attempt: alone (`alone`), or as they were
    (the request was changed to suit the server)."""

    def __init__(self, alone: bool):
        super().__init__()
        self.alone = alone


@dataclass
class ServerState:
    """What one model instance has learned about its server, kept across runs."""

    batching: bool | None = None  # None: not known yet
    adaptations: Adaptations = field(default_factory=Adaptations)
    retry_count: int = 0
    retry_reasons: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    announced_until: float = 0.0


@dataclass(frozen=True)
class SendOptions:
    base_url: str
    model: str
    api_key_env: str
    max_concurrency: int
    prompts_per_request: int
    timeout: float
    max_retries: int
    max_retry_wait: float
    base_url_from: str = "--base-url"  # where base_url came from, as hints name it


class Flight:
    """The calls of one `Sender.run`: queued by batch key, plus ready retries, the free
    prompt slots, and how many calls still wait for their value."""

    def __init__(
        self,
        calls: Sequence[Call],
        capacity: int,
        group: asyncio.TaskGroup,
        start: Callable[[Flight, list[Call]], Any],
        batch_size: Callable[[], int],
    ):
        self.free = capacity
        self.unresolved = len(calls)
        self.group = group
        self._start = start
        self._batch_size = batch_size
        self.fresh: dict[Any, deque[Call]] = {}
        for call in calls:
            key = call.batch_key if call.batch_key is not None else ("alone",)
            self.fresh.setdefault(key, deque()).append(call)
        self.ready: deque[list[Call]] = deque()
        self.done = asyncio.Event()

    def next_group(self, batch_size: int) -> list[Call] | None:
        if self.free <= 0:
            return None
        if self.ready:
            group = self.ready[0]
            if len(group) <= self.free:
                self.ready.popleft()
            else:
                group, self.ready[0] = group[: self.free], group[self.free :]
            self.free -= len(group)
            return group
        while self.fresh:
            key = next(iter(self.fresh))
            queue = self.fresh[key]
            if not queue:
                del self.fresh[key]
                continue
            size = 1 if key == ("alone",) else min(batch_size, self.free, len(queue))
            group = [queue.popleft() for _ in range(size)]
            self.free -= size
            return group
        return None

    def dispatch(self) -> None:
        """Start a request for every group the free slots allow."""
        while (group := self.next_group(self._batch_size())) is not None:
            self.group.create_task(self._start(self, group))

    def put_back(self, groups: list[list[Call]]) -> None:
        self.ready.extend(groups)
        self.dispatch()

    def resolved(self, count: int) -> None:
        self.unresolved -= count
        if self.unresolved <= 0:
            self.done.set()

    async def later(self, delay: float, groups: list[list[Call]]) -> None:
        await asyncio.sleep(delay)
        self.put_back(groups)
