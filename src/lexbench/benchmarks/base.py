"""What every benchmark provides, and the one pipeline that runs any of them.

    items -> requests -> (runner: model + cache) -> responses -> scores -> summary -> run folder

A benchmark is a plain object with the methods of `Benchmark`; it never calls a model and
never touches the cache. `evaluate` is the only function that connects a benchmark to a
model, so resuming, caching and the run-folder layout are the same for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache
from lexbench.run.runner import RunStats, execute
from lexbench.run.store import RunFolder, run_folder, write_run
from lexbench.types import Request, Response, Score


class HasId(Protocol):
    @property
    def id(self) -> str: ...


class Benchmark(Protocol):
    """The four steps a benchmark defines; see lexbench.benchmarks.lambda_ for one."""

    name: str

    def config(self) -> dict[str, Any]:
        """Everything that defines the run apart from the model (goes into config.json)."""

    def items(self) -> Sequence[Any]:
        """The items to evaluate, deterministic for a given config."""

    def requests(self, item: Any) -> list[Request]:
        """What to ask the model for one item (request ids unique across the run)."""

    def score(self, item: Any, responses: Sequence[Response]) -> Score:
        """Score one item from its responses; never calls a model."""

    def sample(self, item: Any, requests: Sequence[Request], responses: Sequence[Response],
               score: Score) -> dict[str, Any]:
        """The samples.jsonl line for one item."""

    def summarize(self, items: Sequence[Any], scores: Sequence[Score]) -> dict[str, Any]:
        """The results.json body: the paper's tables with intervals."""

    def report(self, results: Mapping[str, Any]) -> str:
        """Markdown for report.md and the terminal."""

    # Optional: figures(self, results, folder: Path) -> list[Path] writes PNGs to
    # <run>/figures/. Not part of the Protocol so benchmarks without figures still conform.


@dataclass(frozen=True)
class Evaluation:
    folder: RunFolder
    results: dict[str, Any]
    report: str
    stats: RunStats


def evaluate(benchmark: Benchmark, model: Model, *, out_root: str | Path = "runs",
             cache: ResponseCache | None = None, progress: bool = True,
             chunk_size: int | None = None) -> Evaluation:
    """Run `benchmark` on `model` and write its run folder."""
    items = list(benchmark.items())
    if not items:
        raise ValueError(f"{benchmark.name}: no items to evaluate (check --limit and filters)")
    per_item = [benchmark.requests(item) for item in items]
    flat = [request for requests in per_item for request in requests]
    responses, stats = execute(model, flat, cache=cache, progress=progress,
                               chunk_size=chunk_size, description=benchmark.name)
    scores: list[Score] = []
    samples: list[dict[str, Any]] = []
    position = 0
    for item, requests in zip(items, per_item):
        answered = responses[position:position + len(requests)]
        position += len(requests)
        score = benchmark.score(item, answered)
        scores.append(score)
        samples.append(benchmark.sample(item, requests, answered, score))
    results = benchmark.summarize(items, scores)
    results["run"] = stats.to_dict()
    config = {"benchmark": benchmark.config(), "model": model.describe()}
    folder = run_folder(out_root, benchmark.name, model.name,
                        {"benchmark": benchmark.config(), "model": model.fingerprint()})
    report = benchmark.report(results)
    write_run(folder, config, samples, results, report)
    make_figures = getattr(benchmark, "figures", None)
    if make_figures is not None:
        # Optional hook: PNGs under <run>/figures/, embedded by `lexbench report`.
        make_figures(results, folder.path)
    return Evaluation(folder=folder, results=results, report=report, stats=stats)
