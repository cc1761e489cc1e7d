"""The one pipeline that runs any benchmark on any model.

    items -> requests -> (runner: model + cache) -> responses -> scores -> summary -> run folder

A benchmark (`lexbench.benchmarks.base.Benchmark`) never calls a model and never touches
the cache. `evaluate` is the only function that connects a benchmark to a model, so
resuming, caching and the run-folder layout are the same for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.base import Benchmark
from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache
from lexbench.run.runner import RunStats, execute
from lexbench.run.scoring import BackgroundScoring
from lexbench.run.store import RunFolder, run_folder, write_run
from lexbench.types import Request, Response, Score


@dataclass(frozen=True)
class Evaluation:
    folder: RunFolder
    results: dict[str, Any]
    report: str
    stats: RunStats


def apply_chat(requests: Sequence[Request], chat: bool) -> list[Request]:
    """Mark generation requests for the model's chat format. Only `generate`: a ranked next
    token or a continuation's log-probability is defined on the raw text, and a chat reply's
    first token has no leading space, so rank and loglikelihood stay plain."""
    if not chat:
        return list(requests)
    return [replace(r, chat=True) if r.kind == "generate" else r for r in requests]


def evaluate(
    benchmark: Benchmark,
    model: Model,
    *,
    out_root: str | Path = "runs",
    cache: ResponseCache | None = None,
    progress: bool = True,
    chunk_size: int | None = None,
    chat: bool = False,
    run_options: Mapping[str, Any] | None = None,
    source: str = "",
) -> Evaluation:
    """Run `benchmark` on `model` and write its run folder.

    `chat` wraps generation prompts in the model's chat format (part of the cache key and
    of the run folder's hash). `run_options` are the options the benchmark was built with,
    recorded in config.json so `lexbench rescore` can rebuild it; `source` says where a
    benchmark that is not built in was registered from (recorded for `rescore` and
    `report`). Every samples.jsonl line carries the item id and the raw responses, so any
    run can be re-scored later."""
    items = list(benchmark.items())
    if not items:
        raise ValueError(f"{benchmark.name}: no items to evaluate (check --limit and filters)")
    per_item = [apply_chat(benchmark.requests(item), chat) for item in items]
    flat = [request for requests in per_item for request in requests]
    identity: dict[str, Any] = {"benchmark": benchmark.config(), "model": model.fingerprint()}
    if chat:
        identity["chat"] = True
    # Claimed before asking the model: a second process running this configuration waits,
    # then finds every answer in the cache instead of sending each request again.
    folder = run_folder(out_root, benchmark.name, model.name, identity, claim=True)
    background = (
        BackgroundScoring(benchmark.score, items, [len(r) for r in per_item])
        if getattr(benchmark, "scores_in_background", False)
        else None
    )
    try:
        responses, stats = execute(
            model,
            flat,
            cache=cache,
            progress=progress,
            chunk_size=chunk_size,
            description=benchmark.name,
            on_response=background.arrived if background else None,
        )
    except BaseException:
        if background is not None:
            background.cancel()
        raise
    answered_per_item: list[Sequence[Response]] = []
    position = 0
    for requests in per_item:
        answered_per_item.append(responses[position : position + len(requests)])
        position += len(requests)
    scores: list[Score] = (
        background.scores()
        if background is not None
        else [benchmark.score(item, answered) for item, answered in zip(items, answered_per_item)]
    )
    # Made one at a time as samples.jsonl is written (10^5 rows of SetLexSem are 150 MB).
    samples = (
        sample_line(benchmark, item, requests, answered, score)
        for item, requests, answered, score in zip(items, per_item, answered_per_item, scores)
    )
    results = benchmark.summarize(items, scores)
    results["run"] = stats.to_dict()
    config = {
        "benchmark": benchmark.config(),
        "model": model.describe(),
        "chat": chat,
        "run_options": dict(run_options or {}),
    }
    if source and source != "built-in":
        config["benchmark_source"] = source
    report = benchmark.report(results)
    make_figures = getattr(benchmark, "figures", None)
    # The folder is written as one unit, figures included (optional hook: PNGs under
    # <run>/figures/, embedded by `lexbench report`); this releases the claim.
    folder = write_run(
        folder,
        config,
        samples,
        results,
        report,
        extra=None if make_figures is None else lambda path: make_figures(results, path),
    )
    return Evaluation(folder=folder, results=results, report=report, stats=stats)


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
