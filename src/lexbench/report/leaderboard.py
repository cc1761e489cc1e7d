"""One table per benchmark across models: the headline metric with its 95% interval.

Runs are grouped by benchmark (a SCAN run never sits beside a LAMBDA run). Each row: the
model, items scored, the benchmark's headline metric with its interval, and the figures
that benchmark's paper reads first. A benchmark says what its row is
(`BenchmarkSpec.headline`: SCAN and the ranking sets give MRR@10 with the interval clustered
by mapping, SetLexSem adds the SD of per-configuration accuracy); any other run gets
accuracy over its scored samples with a Wilson interval.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.parts import (
    NOT_AVAILABLE,
    LoadedRun,
    Row,
    is_number,
)
from lexbench.report.runs import failure_flag, load_runs
from lexbench.stats import wilson_interval


def _accuracy(run: LoadedRun) -> tuple[int, Any]:
    scored = [r for r in run.samples if r.get("correct") is not None]
    right = sum(1 for r in scored if r["correct"])
    return len(scored), wilson_interval(right, len(scored))


def accuracy_row(run: LoadedRun, extra: Mapping[str, str] | None = None) -> Row:
    """The default row: accuracy over scored samples with a Wilson interval."""
    scored, interval = _accuracy(run)
    return Row(
        run.benchmark,
        run.model_name,
        str(run.path),
        scored,
        "accuracy",
        interval.estimate,
        interval.low,
        interval.high,
        dict(extra or {}),
    )


def headline(run: LoadedRun) -> Row:
    """The leaderboard row of one run: its benchmark's own (`BenchmarkSpec.headline`), or
    accuracy with a Wilson interval."""
    from lexbench import plugins
    from lexbench.robustness.report import spread_columns

    spec = plugins.spec_for_run(run.benchmark)
    row = spec.headline(run) if spec is not None and spec.headline is not None else None
    row = row if row is not None else accuracy_row(run)
    spread = spread_columns(run.path)  # SD across sets / prompts, where a spread was run
    # Named by the run's label (model plus the settings that differ from the defaults), so
    # runs of one model in different conditions are told apart.
    flag = failure_flag(run)  # a run whose requests failed is not the model's score
    flagged = {"flag": flag} if flag else {}
    return replace(row, model=run.label, extra={**row.extra, **spread, **flagged})


def leaderboards(runs: Sequence[LoadedRun]) -> dict[str, list[Row]]:
    """Rows per benchmark, best first (ties by model name). The fresh sets and other
    wordings of a spread are folded into their published run's row (its SD columns)."""
    from lexbench.robustness.files import member_folders

    folded = member_folders(run.path for run in runs)
    tables: dict[str, list[Row]] = {}
    for run in runs:
        if run.path.resolve() in folded:
            continue
        row = headline(run)
        tables.setdefault(row.benchmark, []).append(row)
    for rows in tables.values():
        rows.sort(key=lambda r: (-(r.estimate if r.estimate == r.estimate else -math.inf), r.model))
    return dict(sorted(tables.items()))


def to_markdown(
    tables: Mapping[str, Sequence[Row]], notes: Mapping[str, Sequence[str]] | None = None
) -> str:
    """One table per benchmark; `notes` are said under its table (the published rows'
    slices and those listed apart, `lexbench.report.published_board`)."""
    parts = ["# Leaderboard", ""]
    for benchmark, rows in tables.items():
        cells = [r.cells() for r in rows]
        header = list(dict.fromkeys(k for c in cells for k in c))
        parts += [
            f"## {benchmark}",
            "",
            "| " + " | ".join(header) + " |",
            "|" + "---|" * len(header),
        ]
        parts += ["| " + " | ".join(c.get(h, "") for h in header) + " |" for c in cells]
        parts.append("")
        parts += [line for note in (notes or {}).get(benchmark, ()) for line in (note, "")]
    return "\n".join(parts)


def to_csv(tables: Mapping[str, Sequence[Row]]) -> str:
    """Full-precision numbers; "n/a" where a run has none (nothing scored). Lines end in
    "\\n" (as compare's CSV), so the terminal shows no carriage return."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    extras = sorted({k for rows in tables.values() for r in rows for k in r.extra})
    writer.writerow(
        ["benchmark", "model", "scored", "metric", "estimate", "low", "high", *extras, "run"]
    )
    for rows in tables.values():
        for r in rows:
            writer.writerow(
                [
                    r.benchmark,
                    r.model,
                    r.cells()["scored"],  # a published row without N: "—"
                    r.metric,
                    *(number_cell(v) for v in (r.estimate, r.low, r.high)),
                    *(r.extra.get(k, "") for k in extras),
                    r.run,
                ]
            )
    return buffer.getvalue()


def number_cell(value: Any) -> Any:
    """A CSV cell: the number, or "n/a" where there is none (NaN, ±inf, None)."""
    return value if is_number(value) else NOT_AVAILABLE


def build_leaderboard(paths: Iterable[str | Path]) -> dict[str, list[Row]]:
    runs = load_runs(paths)
    if not runs:
        raise ValueError("no run folders found in the paths given")
    return leaderboards(runs)
