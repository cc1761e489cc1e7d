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
as a single window. One window's work (the cache, sharing, claims, sending) is
`window_answers`; this run's side of the send claims, `claimant`.

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
from dataclasses import dataclass, field

from lexbench.models.base import Model, PermanentModelError
from lexbench.run.cache import ResponseCache
from lexbench.run.cache_writer import GroupedWriter
from lexbench.run.claimant import Claimant
from lexbench.run.progress import ProgressBar, run_header
from lexbench.run.send_claims import Owner
from lexbench.run.window_answers import Route, WindowAnswers, duplicate_ids
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
        # This run's send claims in the cache (see send_claims): none without a cache.
        self._claimant = Claimant(cache, Owner.current()) if cache is not None else None
        # Streamed answers are committed in small groups (see cache_writer), batches whole.
        writer = GroupedWriter(cache) if cache is not None and self._streaming else None
        self._writer = writer
        self._route = Route(
            model, cache, self._fingerprint, self._streaming, self.size, writer, self._claimant
        )
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
        duplicates = duplicate_ids(requests)
        if duplicates:
            raise ValueError(f"request ids must be unique; repeated: {duplicates[:5]}")
        stats = self.stats
        stats.requests += len(requests)
        window = WindowAnswers(self._route, requests, on_response, self._account)
        self.with_error += window.cached_with_error
        cached = len(requests) - len(window.pending)
        stats.cached += cached
        self.answered += cached
        window.tell_cached()
        if not window.pending:
            if self._bar is not None:
                self._bar.answered(cached, sent=False)
            return window.answers()
        if self._bar is None:
            self._open_bar()
        elif cached:
            self._bar.answered(cached, sent=False)
        shared = window.shared()
        if shared:
            stats.extra["deduplicated"] = stats.extra.get("deduplicated", 0) + shared
        window.send_all(self._bar)
        return window.answers()

    def _account(self, answer: Response, count: int, sent: bool) -> None:
        """Count, for the run, one recorded answer given to `count` requests, and show it."""
        stats = self.stats
        # Failed requests, not a model's typed answer such as "out of vocabulary".
        stats.failed += count * (answer.failure == Failure.REQUEST_FAILED)
        self.with_error += count * (answer.error is not None)
        self.answered += count
        if sent:
            stats.sent += 1
        else:  # answered by another process sending it at the same time
            stats.cached += count
        bar = self._bar
        if bar is not None:
            bar.answered(count, sent=sent)
            now = (self.model.retry_counts().total - self._retries_before.total, stats.failed)
            if now != self._shown:
                self._shown = now
                bar.note(retries=now[0], failed=now[1])

    def close(self, failing: bool = False) -> RunStats:
        """End the run: close the bar, commit what is left, release the send claims (each
        step runs whatever the others do), and complete `stats`."""
        steps: list[Callable[[], None]] = [] if self._bar is None else [self._bar.close]
        if self._bar is not None:
            self.model.on_tokens = self.model.on_prefill = None
        if self._writer is not None:
            steps.append(self._writer.close)  # commits what is left, however the run ends
        if self._claimant is not None:
            steps += self._claimant.end_steps()  # the heartbeat stopped, the claims released
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
