"""When to retry a request to an OpenAI-compatible server, and how long to wait: which HTTP
statuses are permanent or retryable, Retry-After parsing (seconds or an HTTP date, capped),
jittered exponential backoff, and a requests-per-minute limiter shared by the workers."""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections.abc import Callable

# Statuses retrying cannot fix: the run stops with the server's message.
PERMANENT_STATUSES = frozenset({400, 401, 403, 404, 405, 422})


# Statuses that mean "not now": request timeout, conflict, too early, rate limited.
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})


# The default longest Retry-After waited for; a longer ban fails the request at once.
MAX_RETRY_AFTER_SECONDS = 120.0
# A Retry-After is kept only up to a year: longer (1e308, inf) means "not in this run", and
# is printed as "over a year" rather than as a 309-digit number.
YEAR_SECONDS = 365.0 * 86_400.0


def wait_text(seconds: float) -> str:
    """A wait as people read it: "90 s", "over a year".

    >>> wait_text(90.4), wait_text(1e308)
    ('90 s', 'over a year')
    """
    return "over a year" if seconds >= YEAR_SECONDS else f"{seconds:.0f} s"


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP date.

    >>> parse_retry_after("3"), parse_retry_after("0.5"), parse_retry_after(None)
    (3.0, 0.5, None)
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            moment = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if moment is None:
            return None
        seconds = moment.timestamp() - (time.time() if now is None else now)
    if math.isnan(seconds):
        return None
    return min(max(0.0, seconds), YEAR_SECONDS)


def backoff_delay(attempt: int, rng: random.Random, base: float = 0.5, cap: float = 30.0) -> float:
    """Exponential backoff with jitter for the `attempt`-th retry (0-based): a uniform draw
    in [d/2, d] with d = min(cap, base * 2**attempt), so clients that failed together do not
    come back together."""
    ceiling = min(cap, base * (2.0**attempt))
    return ceiling / 2 + rng.uniform(0.0, ceiling / 2)


def retry_delay(
    attempt: int,
    retry_after: float | None,
    rng: random.Random,
    base: float = 0.5,
    cap: float = 30.0,
    max_wait: float = MAX_RETRY_AFTER_SECONDS,
) -> float:
    """How long to wait before the next attempt: the server's Retry-After when it sent one
    (never less, plus up to 10% jitter; at most `max_wait`), else exponential backoff."""
    if retry_after is not None:
        wait = min(retry_after, max_wait)
        return wait + rng.uniform(0.0, 0.1 * wait)
    return backoff_delay(attempt, rng, base, cap)


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or 500 <= status <= 599


def is_permanent_status(status: int) -> bool:
    return status in PERMANENT_STATUSES


class RateLimiter:
    """At most `requests_per_minute` request starts per minute, evenly spaced, plus a shared
    pause (a 429 with Retry-After holds back every request, not only the one refused).

    `reserve()` is the pure part: it books the next start slot and says how long to wait.
    """

    def __init__(
        self, requests_per_minute: float | None, clock: Callable[[], float] = time.monotonic
    ):
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._clock = clock
        self._next_slot = 0.0
        self._paused_until = 0.0

    def reserve(self) -> float:
        now = self._clock()
        start = max(now, self._paused_until, self._next_slot if self.interval else now)
        if self.interval:
            self._next_slot = start + self.interval
        return start - now

    def pause_for(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    async def acquire(self) -> None:
        if not self.interval and self._paused_until <= 0.0:
            return  # the common case: no limit, never paused
        delay = self.reserve()
        while delay > 0:
            await asyncio.sleep(delay)
            # A pause may have been set while we slept.
            delay = max(0.0, self._paused_until - self._clock())
