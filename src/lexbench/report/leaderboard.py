"""One table per benchmark across models: the headline metric with its 95% interval.

Runs are grouped by benchmark (a SCAN run never sits beside a LAMBDA run). Each row: the
model, items scored, the benchmark's headline metric with its interval, and the figures
that benchmark's paper reads first:

* LAMBDA, E-KAR, SAT: accuracy with a Wilson interval (from the samples);
* SCAN, Google, BATS, pair files: MRR@10 with the interval clustered by mapping (from
  results.json, as the run's report gives it), acc@1 beside it;
* SetLexSem: accuracy over all prompts (Wilson) and the paper's robustness figure, the SD of
  per-configuration accuracy (lower is more robust).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.report.runs import LoadedRun, load_runs
from lexbench.stats import wilson_interval

RANKING_SETS = frozenset({"scan", "google", "bats", "pairs"})


@dataclass(frozen=True)
class Row:
    benchmark: str
    model: str
    run: str
    scored: int
    metric: str
    estimate: float
    low: float
    high: float
    extra: dict[str, str]

    def cells(self) -> dict[str, str]:
        return {"model": self.model, "scored": str(self.scored),
                self.metric: _fmt(self.estimate), "95% interval": f"[{_fmt(self.low)}, {_fmt(self.high)}]",
                **self.extra, "run": self.run}


def _fmt(value: float) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def _accuracy(run: LoadedRun) -> tuple[int, Any]:
    scored = [r for r in run.samples if r.get("correct") is not None]
    right = sum(1 for r in scored if r["correct"])
    return len(scored), wilson_interval(right, len(scored))


def headline(run: LoadedRun) -> Row:
    """The leaderboard row of one run."""
    benchmark = run.benchmark
    results = run.results
    extra: dict[str, str] = {}
    if benchmark in RANKING_SETS and isinstance(results.get("overall"), Mapping):
        overall = results["overall"]
        mrr = overall["mrr"]
        extra["acc@1"] = _fmt(float(overall.get("acc_at_1", {}).get("estimate", math.nan)))
        extra["SE (clustered)"] = _fmt(float(mrr.get("se", math.nan)))
        return Row(benchmark, run.model_name, str(run.path), int(overall.get("scored", 0)),
                   "MRR@10", float(mrr["estimate"]), float(mrr["low"]), float(mrr["high"]), extra)
    scored, interval = _accuracy(run)
    if benchmark == "setlexsem":
        extra["SD of accuracy"] = _fmt(setlexsem_sd(run))
    return Row(benchmark, run.model_name, str(run.path), scored, "accuracy",
               interval.estimate, interval.low, interval.high, extra)


def setlexsem_sd(run: LoadedRun) -> float:
    """SD across configurations of per-configuration accuracy (the SetLexSem paper's
    robustness measure), from the samples: configurations are the `config_id` of each row."""
    by_config: dict[str, list[bool]] = {}
    for row in run.samples:
        if row.get("correct") is None:
            continue
        key = str(row.get("config_id") or row.get("configuration") or row.get("config") or "")
        by_config.setdefault(key, []).append(bool(row["correct"]))
    accuracies = [sum(v) / len(v) for v in by_config.values() if v]
    if len(accuracies) < 2:
        return math.nan
    mean = sum(accuracies) / len(accuracies)
    return math.sqrt(sum((a - mean) ** 2 for a in accuracies) / (len(accuracies) - 1))


def leaderboards(runs: Sequence[LoadedRun]) -> dict[str, list[Row]]:
    """Rows per benchmark, best first (ties by model name)."""
    tables: dict[str, list[Row]] = {}
    for run in runs:
        row = headline(run)
        tables.setdefault(row.benchmark, []).append(row)
    for rows in tables.values():
        rows.sort(key=lambda r: (-(r.estimate if r.estimate == r.estimate else -math.inf), r.model))
    return dict(sorted(tables.items()))


def to_markdown(tables: Mapping[str, Sequence[Row]]) -> str:
    parts = ["# Leaderboard", ""]
    for benchmark, rows in tables.items():
        cells = [r.cells() for r in rows]
        header = list(dict.fromkeys(k for c in cells for k in c))
        parts += [f"## {benchmark}", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        parts += ["| " + " | ".join(c.get(h, "") for h in header) + " |" for c in cells]
        parts.append("")
    return "\n".join(parts)


def to_csv(tables: Mapping[str, Sequence[Row]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    extras = sorted({k for rows in tables.values() for r in rows for k in r.extra})
    writer.writerow(["benchmark", "model", "scored", "metric", "estimate", "low", "high",
                     *extras, "run"])
    for rows in tables.values():
        for r in rows:
            writer.writerow([r.benchmark, r.model, r.scored, r.metric, r.estimate, r.low, r.high,
                             *(r.extra.get(k, "") for k in extras), r.run])
    return buffer.getvalue()


def build_leaderboard(paths: Iterable[str | Path]) -> dict[str, list[Row]]:
    runs = load_runs(paths)
    if not runs:
        raise ValueError("no run folders found in the paths given")
    return leaderboards(runs)
