"""Score a finished run again from its recorded raw responses, for any benchmark.

Every samples.jsonl line carries the item id and the raw responses, and config.json the
options the benchmark was built with, so a run can be re-scored after a scorer changes
without asking the model anything: the benchmark is rebuilt (items regenerate
deterministically), each item's responses are read back, and scores, tables and the report
are computed again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.models.base import Model
from lexbench.types import REQUEST_KINDS, Response


class RecordedModel(Model):
    """Stands for the model of a finished run: it declares what that model answered (so the
    benchmark builds the same requests) and answers nothing."""

    def __init__(self, described: Mapping[str, Any]):
        self.name = str(described.get("name", "recorded"))
        self.kinds = frozenset(described.get("kinds") or REQUEST_KINDS)
        self._fingerprint = {k: v for k, v in described.items() if k not in ("name", "kinds")}

    def fingerprint(self) -> dict[str, Any]:
        return dict(self._fingerprint)


@dataclass(frozen=True)
class Rescored:
    results: dict[str, Any]
    report: str
    changed: int  # items whose verdict or value changed
    items: int


def rescore_run(path: str | Path, *, write: bool = False) -> Rescored:
    """Score the run folder at `path` again; with `write`, replace its samples, results,
    report and figures (atomically, as a run does)."""
    from lexbench import plugins
    from lexbench.run.evaluate import apply_chat, sample_line
    from lexbench.run.store import RunFolder, read_run, write_run

    folder = RunFolder(Path(path))
    config, samples, old_results = read_run(folder.path)
    if not samples:
        raise ValueError(
            f"{folder.samples_path} is empty: nothing to re-score; run the "
            "benchmark again to rewrite the folder"
        )
    options = dict(config.get("run_options") or {})
    name = options.pop("benchmark", None)
    if name is None:
        raise ValueError(
            f"{folder.config_path} records no run options (a run made before "
            "lexbench recorded them): run the benchmark again to re-score it"
        )
    missing = [i for i, row in enumerate(samples, 1) if "responses" not in row]
    if missing:
        raise ValueError(
            f"{folder.samples_path}: line {missing[0]} has no raw responses "
            f"({len(missing)} lines lack them): run the benchmark again"
        )
    source = str(config.get("benchmark_source") or "")
    if source.startswith("path "):
        plugins.include([source[len("path ") :]])  # a benchmark added by --include
    spec = plugins.benchmark(name)
    benchmark = spec.build(RecordedModel(config.get("model") or {}), **options)
    # A run in another wording is re-scored in that wording (its samples keep their prompt).
    from lexbench.robustness.variants import PAPER, apply_variant

    recorded = config.get("benchmark") or {}
    benchmark = apply_variant(spec, benchmark, recorded.get("prompt_variant") or PAPER)
    by_id = {str(row["id"]): row for row in samples}
    items = list(benchmark.items())
    absent = [item.id for item in items if str(item.id) not in by_id]
    if absent:
        raise ValueError(
            f"{folder.path}: the rebuilt benchmark has items the run did not "
            f"record ({absent[:3]}): the data or generator changed since the run"
        )
    scores, lines, changed = [], [], 0
    for item in items:
        row = by_id[str(item.id)]
        requests = apply_chat(benchmark.requests(item), bool(config.get("chat")))
        responses = [Response.from_dict(r) for r in row["responses"]]
        if len(responses) != len(requests):
            raise ValueError(
                f"{folder.samples_path}: item {item.id} recorded "
                f"{len(responses)} responses for {len(requests)} requests"
            )
        score = benchmark.score(item, responses)
        scores.append(score)
        lines.append(sample_line(benchmark, item, requests, responses, score))
        changed += score.correct != row.get("correct") or score.value != row.get("value")
    results = benchmark.summarize(items, scores)
    # The report's "Requests: N (... sent ...)" line describes a model being asked; a
    # re-score asks nothing, so its report says so (results.json keeps the run's counts).
    report = benchmark.report(results).rstrip("\n") + "\n\n" + rescored_line(len(items))
    results["run"] = old_results.get("run", {})  # the requests of the run that was scored
    results["rescored"] = {"requests_sent": 0, "items": len(items), "changed": changed}
    if write:
        make_figures = getattr(benchmark, "figures", None)
        write_run(
            folder,
            config,
            lines,
            results,
            report,
            extra=None if make_figures is None else lambda p: make_figures(results, p),
        )
    return Rescored(results, report, changed, len(items))


def rescored_line(items: int) -> str:
    """The report's last line after a re-score, in place of the run's request counts."""
    return f"Re-scored from the recorded responses of {items} items: nothing sent\n"
