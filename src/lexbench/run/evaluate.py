"""The one pipeline that runs any benchmark on any model.

    items -> requests -> (runner: model + cache) -> responses -> scores -> summary -> run folder

A benchmark (`lexbench.contract.Benchmark`) never calls a model and never touches
the cache. `evaluate` is the only function that connects a benchmark to a model, so
resuming, caching and the run-folder layout are the same for all of them.

The pipeline streams, for every benchmark alike: items are taken from the benchmark as it
yields them, a window of about `WINDOW_REQUESTS` requests at a time; each window is
answered (through the cache), scored, written to samples.jsonl in item order and handed to
the benchmark's tally (`Benchmark.tally`: counters, not prompts or outputs), then dropped.
A run of any length holds one window, the tally and its run folder's staging file. A
benchmark without a tally of its own keeps its items and scores for `summarize`, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lexbench.contract import Benchmark, Tally
from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache
from lexbench.run.runner import RunStats, Session
from lexbench.run.scoring import BackgroundScoring
from lexbench.run.staging import StagedRun
from lexbench.run.store import RunFolder, run_folder
from lexbench.types import Request, Response, Score

#: Requests answered per window of a streaming run (a window's items, requests, answers
#: and scores are what a run holds at once; the HTTP backend keeps 128 in flight across
#: it, so a window much larger than that costs memory and gains nothing).
WINDOW_REQUESTS = 1024


@dataclass(frozen=True)
class Evaluation:
    folder: RunFolder
    results: dict[str, Any]
    report: str
    stats: RunStats


class KeepAll:
    """The tally of a benchmark without one of its own: every item and score, summarised
    by the benchmark's `summarize` at the end (fine for thousands of items)."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark
        self.items: list[Any] = []
        self.scores: list[Score] = []

    def add(self, item: Any, score: Score) -> None:
        self.items.append(item)
        self.scores.append(score)

    def finish(self) -> dict[str, Any]:
        return self.benchmark.summarize(self.items, self.scores)


def tally_of(benchmark: Benchmark) -> Tally:
    make = getattr(benchmark, "tally", None)
    return make() if make is not None else KeepAll(benchmark)


def apply_chat(
    requests: Sequence[Request], chat: bool, system_prompt: str | None = None
) -> list[Request]:
    """Mark generation requests for the model's chat format, with `system_prompt` as the
    conversation's system turn. Only `generate`: a ranked next token or a continuation's
    log-probability is defined on the raw text, and a chat reply's first token has no
    leading space, so rank and loglikelihood stay plain."""
    if not chat:
        return list(requests)
    return [_chat(r, system_prompt) if r.kind == "generate" else r for r in requests]


def _chat(request: Request, system_prompt: str | None) -> Request:
    if system_prompt is None:
        return replace(request, chat=True)
    turns = request.messages or (("user", request.prompt),)
    return replace(request, chat=True, messages=(("system", system_prompt), *turns))


Window = tuple[list[Any], list[list[Request]]]


def windows(
    items: Iterable[Any], requests_of: Callable[[Any], list[Request]], size: int
) -> Iterator[Window]:
    """(items, their requests) in windows of at least `size` requests (an item's requests
    are never split), in item order, built only as each window is asked for."""
    chosen: list[Any] = []
    asked: list[list[Request]] = []
    count = 0
    for item in items:
        requests = requests_of(item)
        chosen.append(item)
        asked.append(requests)
        count += len(requests)
        if count >= size:
            yield chosen, asked
            chosen, asked, count = [], [], 0
    if chosen:
        yield chosen, asked


def evaluate(
    benchmark: Benchmark,
    model: Model,
    *,
    out_root: str | Path = "runs",
    cache: ResponseCache | None = None,
    progress: bool = True,
    chunk_size: int | None = None,
    chat: bool = False,
    system_prompt: str | None = None,
    run_options: Mapping[str, Any] | None = None,
    request: Mapping[str, Any] | None = None,
    source: str = "",
    window: int | None = None,
    pace: Callable[[], str] | None = None,
) -> Evaluation:
    """Run `benchmark` on `model` and write its run folder, streaming (module docstring).

    `chat` wraps generation prompts in the model's chat format, `system_prompt` (chat only)
    is its system turn (both part of the cache key and of the run folder's hash).
    `request` is the run's request as given (`lexbench.request.request_record`), recorded
    in config.json. `run_options` are the options the benchmark was built with,
    recorded in config.json so `lexbench rescore` can rebuild it; `source` says where a
    benchmark that is not built in was registered from (recorded for `rescore` and
    `report`). Every samples.jsonl line carries the item id and the raw responses, so any
    run can be re-scored later. `window`: requests per window (default
    `WINDOW_REQUESTS`). `pace`: what the progress line shows last (`run.progress`)."""
    window = WINDOW_REQUESTS if window is None else window
    if window < 1:
        raise ValueError(f"window must be at least 1 request, got {window}")
    items = benchmark.items()
    if isinstance(items, Sized) and len(items) == 0:
        raise ValueError(f"{benchmark.name}: no items to evaluate (check --limit and filters)")
    identity: dict[str, Any] = {"benchmark": benchmark.config(), "model": model.fingerprint()}
    if chat:
        identity["chat"] = True
    if system_prompt is not None:
        identity["system_prompt"] = system_prompt
    # Claimed before asking the model: a second process running this configuration waits,
    # then finds every answer in the cache instead of sending each request again.
    folder = run_folder(out_root, benchmark.name, model.name, identity, claim=True)
    tally = tally_of(benchmark)
    session = Session(model, cache, chunk_size, progress, description=benchmark.name, pace=pace)
    in_background = bool(getattr(benchmark, "scores_in_background", False))
    ended = False
    try:
        with StagedRun(folder) as staged:
            seen = 0
            for chosen, asked in windows(
                items, lambda i: apply_chat(benchmark.requests(i), chat, system_prompt), window
            ):
                if seen == 0 and isinstance(items, Sized):  # the bar's total, from the first window
                    session.total = round(len(items) * sum(map(len, asked)) / len(chosen))
                seen += len(chosen)
                scores, answered = _answer_window(benchmark, session, chosen, asked, in_background)
                for item, requests, responses, score in zip(chosen, asked, answered, scores):
                    staged.add_sample(sample_line(benchmark, item, requests, responses, score))
                    tally.add(item, score)
            if seen == 0:
                raise ValueError(
                    f"{benchmark.name}: no items to evaluate (check --limit and filters)"
                )
            ended = True
            stats = session.close()
            results = tally.finish()
            results["run"] = stats.to_dict()
            config = {
                "benchmark": benchmark.config(),
                "model": model.describe(),
                "chat": chat,
                "run_options": dict(run_options or {}),
            }
            if system_prompt is not None:
                config["system_prompt"] = system_prompt
            if request is not None:
                config["request"] = dict(request)
            if source and source != "built-in":
                config["benchmark_source"] = source
            report = benchmark.report(results)
            make_figures = getattr(benchmark, "figures", None)
            # Figures are an optional hook: PNGs under <run>/figures/, embedded by
            # `lexbench report`; the folder is put in place with them, as one unit.
            written = staged.finish(
                config,
                results,
                report,
                extra=None if make_figures is None else lambda path: make_figures(results, path),
            )
    finally:
        if not ended:
            session.close(failing=True)
    return Evaluation(folder=written, results=results, report=report, stats=stats)


def _answer_window(
    benchmark: Benchmark,
    session: Session,
    items: Sequence[Any],
    asked: Sequence[Sequence[Request]],
    in_background: bool,
) -> tuple[list[Score], list[Sequence[Response]]]:
    """One window answered and scored: (scores, each item's responses), in item order."""
    flat = [request for requests in asked for request in requests]
    background = (
        BackgroundScoring(benchmark.score, items, [len(r) for r in asked])
        if in_background
        else None
    )
    try:
        responses = session.answer(flat, on_response=background.arrived if background else None)
    except BaseException:
        if background is not None:
            background.cancel()
        raise
    answered: list[Sequence[Response]] = []
    position = 0
    for requests in asked:
        answered.append(responses[position : position + len(requests)])
        position += len(requests)
    scores = (
        background.scores()
        if background is not None
        else [benchmark.score(item, got) for item, got in zip(items, answered)]
    )
    return scores, answered


def sample_line(
    benchmark: Benchmark,
    item: Any,
    requests: Sequence[Request],
    responses: Sequence[Response],
    score: Score,
) -> dict[str, Any]:
    """The benchmark's samples.jsonl line, with the item id and the raw responses added
    (what `rescore` scores again)."""
    line = benchmark.sample(item, requests, responses, score)
    line.setdefault("id", item.id)
    line["responses"] = [r.to_dict() for r in responses]
    return line
