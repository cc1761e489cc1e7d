"""Sending calls to an OpenAI-compatible server: at most `max_concurrency` prompts in
flight, several compatible completions prompts per request where the server takes a list,
retries with backoff, and the server's own limits learned from its refusals.

Batching. Completions calls that differ only in their prompt go out up to
`prompts_per_request` to a request (vLLM, SGLang, llama.cpp's server, TGI and OpenAI's
completions take a list of prompts). Until one batched answer has come back whole, a
batched request the server refuses (400, 413, 422, 500, 501) or answers with the wrong
number of choices turns batching off for the model, says so once, and its prompts go again
one per request without spending an attempt. Once batching is known to work, a batched
request that fails is retried prompt by prompt (a 429 or 502–504, which say "not now" to
the whole request, retries it whole), so one bad prompt cannot take the others down; a
choice that cannot be read is retried alone while the others are delivered. Every prompt
keeps its own attempt count, so none is tried more than `max_retries + 1` times.

Each answer is delivered as it arrives (`deliver(call, value)`; a `RequestFailed` when the
call failed for good), which is where the runner caches it: a kill loses only what was in
flight. 400 (unless adapted), 401, 403, 404, 405 and 422 stop everything at once with
`PermanentModelError`.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from lexbench.models.base import PermanentModelError, UnsupportedRequest
from lexbench.models.openai.adapt import learn_from_refusal
from lexbench.models.openai.call import BatchShapeError, Call
from lexbench.models.openai.flight import (
    ANNOUNCE_WAIT_SECONDS,
    BATCH_REFUSALS,
    MALFORMED,
    WHOLE_REQUEST_STATUSES,
    Flight,
    RequestFailed,
    Resend,
    Retry,
    SendOptions,
    ServerState,
)
from lexbench.models.openai.http import (
    CannotConnect,
    ConnectionPool,
    TransportError,
    error_detail,
    permanent_hint,
    unreachable_hint,
)
from lexbench.models.openai.retry import (
    RateLimiter,
    is_permanent_status,
    is_retryable_status,
    parse_retry_after,
    retry_delay,
    wait_text,
)

Deliver = Callable[[Call, Any], None]
# Which of the calls about to be sent still are (the runner's look before sending, after a
# run lost its claims: another run may have answered the others).
Keep = Callable[[list[Call]], list[Call]]
# Request bodies as `json.dumps(body, separators=(",", ":"))` writes them (ASCII), from one
# encoder built once rather than one per request.
_BODY_JSON = json.JSONEncoder(separators=(",", ":"))


class Sender:
    """Sends calls for one model instance; `run` is one asyncio run's worth of calls."""

    def __init__(
        self,
        options: SendOptions,
        pool: ConnectionPool,
        limiter: RateLimiter,
        state: ServerState,
        redact: Callable[[str], str],
        excerpt: Callable[[str, int], str],
        rng: random.Random,
    ):
        self.options = options
        self.pool = pool
        self.limiter = limiter
        self.state = state
        self._redact = redact
        self._excerpt = excerpt
        self._rng = rng

    def batch_size(self) -> int:
        return 1 if self.state.batching is False else self.options.prompts_per_request

    async def run(
        self,
        calls: Sequence[Call],
        deliver: Deliver,
        *,
        soft: bool = False,
        keep: Keep | None = None,
    ) -> None:
        """Send every call and deliver each one's value or `RequestFailed`. With `soft`, a
        permanent or unsupported-request error is delivered to the calls it concerns
        instead of stopping the run. `keep`, asked just before each request goes out (a
        retry too), drops the calls it leaves out: they are neither sent nor delivered."""
        if not calls:
            return
        try:
            async with asyncio.TaskGroup() as group:
                flight = Flight(
                    calls,
                    self.options.max_concurrency,
                    group,
                    lambda f, batch: self._send(f, batch, deliver, soft, keep),
                    self.batch_size,
                )
                flight.dispatch()
                await flight.done.wait()
        except BaseExceptionGroup as errors:
            # Surface the one error that stopped the run, not a group of one.
            raise first_leaf(errors) from None

    # ------------------------------------------------------------ one request

    async def _send(
        self, flight: Flight, calls: list[Call], deliver: Deliver, soft: bool, keep: Keep | None
    ) -> None:
        connection = self.pool.acquire()
        outcome: Exception | None = None
        slots = len(calls)
        try:
            await self.limiter.acquire()
            if keep is not None:  # the last moment before sending: after any wait
                calls = keep(calls)
            values = await self._attempt(connection, calls) if calls else []
        except (Retry, Resend, RequestFailed, PermanentModelError, UnsupportedRequest) as error:
            outcome = error
        finally:
            self.pool.release(connection)
            flight.free += slots
        if isinstance(outcome, (PermanentModelError, UnsupportedRequest)) and not soft:
            raise outcome
        if len(calls) < slots:
            flight.resolved(slots - len(calls))  # withdrawn by `keep`: never sent
        # The freed slots go out before this answer is delivered (caching it costs CPU),
        # and the yield lets those requests write themselves first.
        flight.dispatch()
        if outcome is None:
            await asyncio.sleep(0)
            for call, value in zip(calls, values):
                if isinstance(value, Retry):
                    self._retry(flight, [call], value, deliver)
                else:
                    deliver(call, value)
                    flight.resolved(1)
        elif isinstance(outcome, Retry):
            self._retry(flight, calls, outcome, deliver)
        elif isinstance(outcome, Resend):
            flight.put_back([[call] for call in calls] if outcome.alone else [calls])
        else:
            for call in calls:
                deliver(call, outcome)
            flight.resolved(len(calls))

    def _retry(self, flight: Flight, calls: list[Call], retry: Retry, deliver: Deliver) -> None:
        limit = self.options.max_retry_wait
        again: list[Call] = []
        for call in calls:
            call.attempts += 1
            if call.attempts > self.options.max_retries:
                deliver(
                    call,
                    RequestFailed(
                        f"failed after {call.attempts} "
                        f"attempt{'' if call.attempts == 1 else 's'}; last: {retry.reason}"
                    ),
                )
            elif retry.retry_after is not None and retry.retry_after > limit:
                deliver(
                    call,
                    RequestFailed(
                        f"the server asked to wait {wait_text(retry.retry_after)} before retrying "
                        f"(Retry-After), more than --max-retry-wait {limit:g} s; not retried; "
                        f"last: {retry.reason}"
                    ),
                )
            else:
                again.append(call)
                self.state.retry_count += 1
                self.state.retry_reasons[retry.reason.split(":")[0]] += 1
        if len(again) < len(calls):
            flight.resolved(len(calls) - len(again))
        if not again:
            return
        delay = retry_delay(
            min(c.attempts for c in again) - 1, retry.retry_after, self._rng, max_wait=limit
        )
        if retry.retry_after is not None:
            self.limiter.pause_for(retry.retry_after)
            self._announce_wait(delay, retry.reason)
        groups = [again] if retry.whole else [[call] for call in again]
        if delay <= 0:
            flight.put_back(groups)
        else:
            # Backoff sleeps hold no slot and no connection.
            flight.group.create_task(flight.later(delay, groups))

    async def _attempt(self, connection: Any, calls: list[Call]) -> list[Any]:
        first = calls[0]
        batched = len(calls) > 1
        body = (
            first.body
            if not batched
            else {**first.body, **first.batch_extra, "prompt": [c.body["prompt"] for c in calls]}
        )
        if self.pool.unreachable and not self.pool.answered:
            raise RequestFailed(self.pool.unreachable)  # the rest fail at once, unsent
        sent = self.state.adaptations.apply(body, first.endpoint)
        payload = _BODY_JSON.encode(sent).encode("ascii")
        try:
            async with asyncio.timeout(self.options.timeout):
                reply = await connection.post(self.pool.path(first.endpoint), payload)
        except TimeoutError:
            raise Retry(f"timeout: no answer within {self.options.timeout:g} s") from None
        except CannotConnect as error:
            if not self.pool.answered:  # a wrong URL or no server: retrying only waits
                self.pool.unreachable = unreachable_hint(
                    self.options.base_url, self.options.base_url_from, self._redact(str(error))
                )
                raise RequestFailed(self.pool.unreachable) from None
            raise Retry(f"connection error: {self._redact(str(error))}") from None
        except TransportError as error:
            raise Retry(f"connection error: {self._redact(str(error)) or 'dropped'}") from None
        self.pool.answered = True
        if reply.status == 200:
            try:
                data = json.loads(reply.body)
            except ValueError:
                raise Retry(f"malformed JSON: {self._excerpt(reply.text, 80)!r}") from None
            return self._values(data, calls, reply)
        return self._refused(reply, body, first.endpoint, batched)

    def _values(self, data: Any, calls: list[Call], reply: Any) -> list[Any]:
        try:
            if not isinstance(data, dict):
                raise TypeError(f"top level is {type(data).__name__}")
            choices = data["choices"]
            if len(calls) == 1:
                return [calls[0].parse(choices[0], data.get("usage") or {})]
            if not isinstance(choices, list) or len(choices) != len(calls):
                count = len(choices) if isinstance(choices, list) else type(choices).__name__
                self._refuse_batching(f"{count} choices for {len(calls)} prompts")
                raise TypeError(f"{count} choices for {len(calls)} prompts")
            indices = [c.get("index") if isinstance(c, dict) else None for c in choices]
            if sorted(i for i in indices if isinstance(i, int)) == list(range(len(calls))):
                choices = sorted(choices, key=lambda c: c["index"])
        except Resend:
            raise
        except MALFORMED as error:
            raise self._malformed(error, reply.text) from None
        values: list[Any] = []
        for call, choice in zip(calls, choices):
            try:
                values.append(call.parse(choice, None))
            except BatchShapeError as error:
                self._refuse_batching(str(error), confirmed_too=True)
            except MALFORMED as error:
                values.append(self._malformed(error, reply.text))
        if self.state.batching is None:
            self.state.batching = True
        return values

    def _malformed(self, error: BaseException, text: str) -> Retry:
        return Retry(
            f"malformed response: {type(error).__name__}: "
            f"{self._excerpt(str(error), 200)}; body {self._excerpt(text, 120)!r}"
        )

    def _refuse_batching(self, why: str, confirmed_too: bool = False) -> None:
        """Turn batching off (unless it has worked before) and send these prompts alone."""
        if self.state.batching is True and not confirmed_too:
            return
        if self.state.batching is not False:
            self.state.batching = False
            self.say(
                f"{self.options.base_url} does not take several prompts in one request "
                f"({why}); sending one prompt per request"
            )
        raise Resend(alone=True)

    def _refused(self, reply: Any, body: dict[str, Any], endpoint: str, batched: bool) -> list[Any]:
        status = reply.status
        full = error_detail(reply)
        detail = self._excerpt(full, 300)
        if status in (400, 422):
            note = learn_from_refusal(full[:2000], body, endpoint, self.state.adaptations)
            if note is not None:
                self.say(f"{self.options.base_url}: {note}")
                raise Resend(alone=False)
        if batched and status in BATCH_REFUSALS:
            if self.state.batching is not True:
                self._refuse_batching(f"HTTP {status}: {self._excerpt(full, 80)!r}")
            if is_permanent_status(status) or not is_retryable_status(status):
                raise Resend(alone=True)  # alone, the prompt at fault shows itself
        if is_permanent_status(status):
            raise PermanentModelError(
                f"{self.options.base_url}/{endpoint} answered HTTP {status} for model "
                f"{self.options.model!r}: {detail}. "
                + permanent_hint(
                    status,
                    self.options.api_key_env,
                    self.options.base_url,
                    full,
                    self.options.base_url_from,
                )
            )
        if is_retryable_status(status):
            raise Retry(
                f"HTTP {status}: {detail}",
                parse_retry_after(reply.headers.get("retry-after")),
                whole=status in WHOLE_REQUEST_STATUSES,
            )
        if batched:
            raise Resend(alone=True)
        raise RequestFailed(f"HTTP {status}: {detail}")

    # ------------------------------------------------------------ saying things

    def say(self, note: str) -> None:
        """One line on stderr (above any progress bar), once per note; kept for describe()."""
        if note in self.state.notes:
            return
        self.state.notes.append(note)
        from tqdm import tqdm

        tqdm.write(f"lexbench: {note}", file=sys.stderr)

    def _announce_wait(self, seconds: float, reason: str) -> None:
        """Say on stderr that the run waits because the server asked it to: once per pause,
        and only for waits long enough to look like a hang."""
        until = time.monotonic() + seconds
        if seconds < ANNOUNCE_WAIT_SECONDS or until <= self.state.announced_until + 1.0:
            return
        self.state.announced_until = until
        from tqdm import tqdm

        # Only our own words here (the reason's status part, the URL without credentials):
        # no server text reaches the terminal unescaped.
        clock = time.strftime("%H:%M:%S", time.localtime(time.time() + seconds))
        tqdm.write(
            f"lexbench: {self.options.base_url} asked to wait (Retry-After, "
            f"{reason.split(':')[0]}); waiting {seconds:.0f} s, until {clock} "
            f"(--max-retry-wait {self.options.max_retry_wait:g} s caps this)",
            file=sys.stderr,
        )


def first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The error to report from a task group: a permanent or unsupported-request error
    when there is one (it says what to fix), else the first error raised."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        error = pending.pop(0)
        if isinstance(error, BaseExceptionGroup):
            pending[:0] = list(error.exceptions)
        else:
            leaves.append(error)
    for leaf in leaves:
        if isinstance(leaf, (PermanentModelError, UnsupportedRequest)):
            return leaf
    return leaves[0]
