"""Send requests to a model through the cache, in chunks, with a progress bar.

The runner is the only place that talks to both the cache and the model:

1. look every request up in the cache (cached ones are never sent again);
2. send the rest in chunks (the backend batches inside a chunk); identical requests in
   one run (same cache key, different ids) are sent once and the answer shared;
3. commit answers to the cache as they arrive: as the backend reports them when it
   declares it streams them (`streams_answers()`: the HTTP backend per answer, the
   transformers backends per decoded batch), else chunk by chunk;
4. return responses in request order, and counts for results.json.

`Session` does this for one run a window at a time (a streaming run, `run.evaluate`, hands
it a few thousand requests at once, whatever the run's length); `execute` answers one list
as a single window.

Ctrl-C or a crash loses at most the requests in flight (streaming backends) or the chunk
in flight (batch backends); SIGKILL also the answers of the last quarter second, not yet
committed (streamed answers are committed in groups: `cache_writer`). Rerunning the same
command resumes, sending no request whose answer is cached. Failed responses (`error` set)
are returned and recorded in the samples but never cached, so a rerun asks them again; a
typed answer that is not a failure of the request (`Failure.OUT_OF_VOCABULARY`) is cached
like any answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from lexbench.models.base import Model, PermanentModelError
from lexbench.run.cache import ResponseCache, request_keys
from lexbench.run.cache_writer import GroupedWriter
from lexbench.run.progress import ProgressBar, run_header
from lexbench.run.send_claims import (
    Heartbeat,
    Holder,
    Lease,
    Owner,
    say_claims_lapsed,
    say_waiting,
)
from lexbench.types import Failure, Request, Response


@dataclass
class RunStats:
    """What the runner did, for results.json."""

    requests: int = 0
    cached: int = 0
    sent: int = 0
    failed: int = 0
    seconds: float = 0.0
    retries: int = 0
    # Why requests were retried ("HTTP 429", "timeout", ...), for backends that say.
    retry_reasons: dict[str, int] = field(default_factory=dict)
    extra: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {
            "requests": self.requests,
            "cached": self.cached,
            "sent": self.sent,
            "failed": self.failed,
            "seconds": round(self.seconds, 3),
            "retries": self.retries,
        }
        if self.retry_reasons:
            out["retry_reasons"] = dict(sorted(self.retry_reasons.items()))  # type: ignore[assignment]
        out.update(self.extra)
        return out


def _duplicate_ids(requests: Sequence[Request]) -> list[str]:
    seen: set[str] = set()
    duplicates = []
    for request in requests:
        if request.id in seen:
            duplicates.append(request.id)
        seen.add(request.id)
    return duplicates


def _plan_sends(
    pending: Sequence[int], keys: Sequence[str]
) -> tuple[list[int], dict[int, list[int]]]:
    """The first request of each distinct key (to send) and, per sent request, the later
    ones that share its key (answered with the same response)."""
    first_of_key: dict[str, int] = {}
    to_send: list[int] = []
    followers: dict[int, list[int]] = {}
    for index in pending:
        leader = first_of_key.get(keys[index])
        if leader is None:
            first_of_key[keys[index]] = index
            to_send.append(index)
        else:
            followers.setdefault(leader, []).append(index)
    return to_send, followers


def _end(steps: list[Callable[[], None]], failing: bool) -> None:
    """Run every step of a run's end. On the normal path the first step's error is raised
    (after the others ran); while an error (or Ctrl-C) is already propagating, theirs are
    said in one line each and the one in flight keeps its exit status."""
    first: Exception | None = None
    for step in steps:
        try:
            step()
        except Exception as error:
            if failing:
                print(f"lexbench: also, while stopping: {error}", file=sys.stderr, flush=True)
            elif first is None:
                first = error
    if first is not None:
        raise first


WAIT_NEWS_S = 60.0  # a waiting run says again whom it waits for, this often


class Session:
    """One run's conversation with a model through the cache, a window of requests at a
    time (`answer`), with one progress bar, one grouped cache writer and one set of send
    claims for the whole run; `close` ends it and completes `stats`.

    A streaming run (`run.evaluate`) hands it windows of a few thousand requests, so a
    run of any length holds one window's requests and answers. Identical requests are
    sent once within a window; a later window finds the answer in the cache (the writer
    commits at each window's end). Without a cache such a repeat is sent again."""

    def __init__(
        self,
        model: Model,
        cache: ResponseCache | None = None,
        chunk_size: int | None = None,
        progress: bool = True,
        description: str = "requests",
        total: int | None = None,
        pace: Callable[[], str] | None = None,
    ):
        self.model = model
        self.cache = cache
        self.size = chunk_size or model.chunk_size()
        self.progress = progress
        self.description = description
        self.total = total  # requests in the whole run, for the bar (None: unknown)
        self.pace = pace  # what the bar shows last (a plan's position), read at each redraw
        self.stats = RunStats()
        self.answered = 0
        self.with_error = 0  # answers carrying an error (failed, or the model's typed "no")
        self._busy = 0.0  # seconds spent answering (the request phase)
        self._retries_before = model.retry_counts()
        self._fingerprint = model.fingerprint()
        self._streaming = model.streams_answers()
        self._bar: ProgressBar | None = None
        self._shown: tuple[int, int] = (0, 0)  # (retries, failed) on the bar
        self._owner = Owner.current() if cache is not None else None
        self._heartbeat: Heartbeat | None = None  # refreshes the send claims (send_claims)
        self._lease = Lease()  # whether the claims may have lapsed (a stopped run)
        self._lapse_said = False
        # Streamed answers are committed in small groups (see cache_writer), batches whole.
        self._writer = GroupedWriter(cache) if cache is not None and self._streaming else None
        self._told: list[Holder] = []  # the first other sender met
        if progress:  # a run people watch starts by saying what it is
            backend = str(self._fingerprint.get("backend", ""))
            where = cache.path if cache is not None else None
            print(run_header(description, model.name, backend, where), file=sys.stderr, flush=True)

    def _open_bar(self) -> None:
        if self._bar is not None or not self.progress:
            return
        self._bar = ProgressBar(
            self.description, self.total, initial=self.answered, extra=self.pace
        )
        # A backend decoding long answers reports its tokens: the bar moves between answers.
        self.model.on_tokens = self._bar.tokens
        self.model.on_prefill = self._bar.prefill  # and before them, the prompts it reads

    def answer(
        self,
        requests: Sequence[Request],
        on_response: Callable[[int, Response], None] | None = None,
    ) -> list[Response]:
        """Answer one window of `requests`, in order (see `execute`); an interruption
        says how far the run got and is raised."""
        began = time.perf_counter()
        try:
            return self._answer(requests, on_response)
        except KeyboardInterrupt:
            kept = "; they are cached. Run the same command again to resume" if self.cache else ""
            of = f"/{self.total}" if self.total is not None else ""
            print(
                f"\nlexbench: interrupted after {self.answered}{of} responses{kept}.",
                file=sys.stderr,
            )
            raise
        except PermanentModelError:
            if self.cache is not None:
                done = self.answered - self.with_error
                of = f"/{self.total}" if self.total is not None else ""
                print(
                    f"lexbench: {done}{of} answers received before the error are "
                    "cached; fix the problem and run the same command to resume.",
                    file=sys.stderr,
                )
            raise
        finally:
            self._busy += time.perf_counter() - began

    def _answer(
        self,
        requests: Sequence[Request],
        on_response: Callable[[int, Response], None] | None,
    ) -> list[Response]:
        duplicates = _duplicate_ids(requests)
        if duplicates:
            raise ValueError(f"request ids must be unique; repeated: {duplicates[:5]}")
        model, cache, stats = self.model, self.cache, self.stats
        fingerprint, owner, writer = self._fingerprint, self._owner, self._writer
        stats.requests += len(requests)
        keys = request_keys(fingerprint, requests)
        found = cache.get_many(keys) if cache is not None else {}
        responses: list[Response | None] = []
        pending: list[int] = []
        for index, (request, key) in enumerate(zip(requests, keys)):
            hit = found.get(key)
            if hit is not None:
                # The cached answer may come from another item asking the same thing.
                responses.append(replace(hit, request_id=request.id))
                self.with_error += hit.error is not None
            else:
                responses.append(None)
                pending.append(index)
        cached = len(requests) - len(pending)
        stats.cached += cached
        self.answered += cached
        if on_response is not None:
            for index, response in enumerate(responses):
                if response is not None:
                    on_response(index, response)
        if not pending:
            if self._bar is not None:
                self._bar.answered(cached, sent=False)
            return [r for r in responses if r is not None]
        if self._bar is None:
            self._open_bar()
        elif cached:
            self._bar.answered(cached, sent=False)
        to_send, followers = _plan_sends(pending, keys)
        if followers:
            shared = sum(len(v) for v in followers.values())
            stats.extra["deduplicated"] = stats.extra.get("deduplicated", 0) + shared
        bar = self._bar

        def record(index: int, answer: Response, cache_it: bool, sent: bool = True) -> None:
            """Store one arrived answer (and share it with requests asking the same thing)."""
            if responses[index] is not None:
                raise RuntimeError(
                    f"{type(model).__name__} answered request {requests[index].id} twice"
                )
            if cache_it and writer is not None and cache is not None and owner is not None:
                writer.add((keys[index], fingerprint, requests[index], answer))
            group = [index, *followers.get(index, ())]
            for member in group:
                final = (
                    answer if member == index else replace(answer, request_id=requests[member].id)
                )
                responses[member] = final
                # Failed requests, not a model's typed answer such as "out of vocabulary".
                stats.failed += answer.failure == Failure.REQUEST_FAILED
                self.with_error += answer.error is not None
                if on_response is not None:
                    on_response(member, final)
            self.answered += len(group)
            if sent:
                stats.sent += 1
            else:  # answered by another process sending it at the same time
                stats.cached += len(group)
            if bar is not None:
                bar.answered(len(group), sent=sent)
                now = (model.retry_counts().total - self._retries_before.total, stats.failed)
                if now != self._shown:
                    self._shown = now
                    bar.note(retries=now[0], failed=now[1])

        def claimed(indices: list[int], regroup: bool = True) -> tuple[list[int], list[int]]:
            """(requests this run may send now, requests another process is sending): those
            another process answered meanwhile are recorded at once (never sent twice).
            `regroup`: nothing is in flight, so every claim this run relies on is made now."""
            if cache is None or owner is None or not indices:
                return indices, []
            if self._heartbeat is None:
                lease = self._lease
                self._heartbeat = Heartbeat(lambda: lease.renewed(cache.refresh_claims(owner)))
            if regroup:
                self._lease.restart(time.time())
            answered, mine, others = cache.claim_for_sending([keys[i] for i in indices], owner)
            for i in indices:
                if keys[i] in answered:
                    hit = answered[keys[i]]
                    record(i, replace(hit, request_id=requests[i].id), cache_it=False, sent=False)
            if others:
                self._told[:] = [next(iter(others.values()))]  # the one named when waiting
            mine_keys, waiting = set(mine), [i for i in indices if keys[i] in others]
            return [i for i in indices if keys[i] in mine_keys], waiting

        waiting: list[int] = []

        def recheck(chunk: list[int], withdrawn: set[int]) -> Callable[[Sequence[int]], set[int]]:
            """The backend's look before it sends (`Model.before_send`): nothing while this
            run's claims are surely its own; once they may have lapsed (this process was
            stopped or hung), each request is claimed again first, and one another process
            answered or is sending meanwhile is not sent (recorded now, or waited for)."""

            def before_send(positions: Sequence[int]) -> set[int]:
                if cache is None or owner is None or self._lease.trusted(time.time()):
                    return set()
                wanted = [p for p in positions if responses[chunk[p]] is None]
                mine, others = claimed([chunk[p] for p in wanted], regroup=False)
                kept = set(mine)
                gone = {p for p in wanted if chunk[p] not in kept}
                waiting.extend(others)
                if gone and not self._lapse_said:
                    self._lapse_said = True
                    say_claims_lapsed(cache.path)
                withdrawn.update(gone)
                return gone

            return before_send

        def send(chunk: list[int]) -> None:
            if not chunk:
                return
            batch = [requests[i] for i in chunk]
            if bar is not None:
                bar.sending()
            withdrawn: set[int] = set()  # positions another process answers (recheck)
            if self._streaming:

                def arrived(position: int, answer: Response, chunk: list[int] = chunk) -> None:
                    record(chunk[position], answer, cache_it=True)

                if cache is not None:
                    model.before_send = recheck(chunk, withdrawn)
                try:
                    answers = model.answer_each(batch, arrived)
                finally:
                    model.before_send = None
                chunk = [i for position, i in enumerate(chunk) if position not in withdrawn]
            else:
                answers = model.answer(batch)
                if cache is not None:
                    cache.put_many(
                        (keys[i], fingerprint, requests[i], a) for i, a in zip(chunk, answers)
                    )
            if len(answers) != len(chunk):
                raise RuntimeError(
                    f"{type(model).__name__} returned {len(answers)} responses "
                    f"for {len(chunk)} requests"
                )
            for i, answer in zip(chunk, answers):
                if responses[i] is None:  # not already recorded as it arrived
                    record(i, answer, cache_it=self._streaming)

        for start in range(0, len(to_send), self.size):
            mine, others = claimed(to_send[start : start + self.size])
            waiting += others
            send(mine)
        if waiting and cache is not None:  # counted across every chunk
            say_waiting(len(waiting), cache.path, self._told[0], 0.0)
        pause, began, said = 0.05, time.monotonic(), time.monotonic()
        while waiting:  # requests other processes were sending when this one reached them
            time.sleep(pause)
            pause = min(1.0, pause * 1.5)
            mine, waiting = claimed(waiting)
            if waiting and cache is not None and time.monotonic() - said >= WAIT_NEWS_S:
                said = time.monotonic()
                say_waiting(len(waiting), cache.path, self._told[-1], said - began)
            for start in range(0, len(mine), self.size):
                send(mine[start : start + self.size])
        if writer is not None:
            # A later window asking the same thing finds it in the cache.
            writer.flush()
        return [r for r in responses if r is not None]

    def close(self, failing: bool = False) -> RunStats:
        """End the run: close the bar, commit what is left, release the send claims (each
        step runs whatever the others do), and complete `stats`."""
        steps: list[Callable[[], None]] = [] if self._bar is None else [self._bar.close]
        if self._bar is not None:
            self.model.on_tokens = self.model.on_prefill = None
        if self._writer is not None:
            steps.append(self._writer.close)  # commits what is left, however the run ends
        cache, owner = self.cache, self._owner
        if self._heartbeat is not None:
            steps.append(self._heartbeat.stop)
        if cache is not None and owner is not None:
            steps.append(lambda: cache.release_claims(owner))
        _end(steps, failing=failing)
        retries_after = self.model.retry_counts()
        before = self._retries_before
        self.stats.retries = retries_after.total - before.total
        self.stats.retry_reasons = {
            reason: count - before.reasons.get(reason, 0)
            for reason, count in retries_after.reasons.items()
            if count > before.reasons.get(reason, 0)
        }
        self.stats.seconds = self._busy
        return self.stats


def execute(
    model: Model,
    requests: Sequence[Request],
    cache: ResponseCache | None = None,
    chunk_size: int | None = None,
    progress: bool = True,
    description: str = "requests",
    on_response: Callable[[int, Response], None] | None = None,
) -> tuple[list[Response], RunStats]:
    """Answer `requests` with `model`, reading and filling `cache`. Order is preserved.

    `on_response(index, response)` is called once for every request as its final response
    is known (cached ones first), on the thread that runs the model's loop: keep it short
    (`run.scoring.BackgroundScoring.arrived` hands the work to a thread of its own)."""
    session = Session(model, cache, chunk_size, progress, description, total=len(requests))
    ended = False
    try:
        responses = session.answer(requests, on_response)
        ended = True
    finally:
        stats = session.close(failing=not ended)
    return responses, stats
