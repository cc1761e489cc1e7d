"""The papers' rows in the leaderboard and in `lexbench compare`'s machine-readable outputs.

`with_published(runs, tables)` adds to each benchmark's leaderboard the published headline
numbers (`PublishedRow.headline`, in the runs' own metric) comparable with at least one of
its runs, as rows marked "published, not re-run" and ranked among the runs; it returns, per
benchmark, the lines said under the table: the slices ("n=30 of 3,000") and the published
rows listed apart, with each difference named. `compare_records`, `compare_csv` and
`compare_latex` give `lexbench compare` the same rows for JSON, CSV and LaTeX.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lexbench.parts import LoadedRun, Row, p_text, pct, with_interval
from lexbench.report.published import Beside, published_for_run
from lexbench.report.published_format import MARK, sentence, shown
from lexbench.stats import wilson_interval

Notes = dict[str, list[str]]


@dataclass(frozen=True)
class PublishedBoardRow(Row):
    """A published headline row in a leaderboard: `scored` is the paper's N, "—" where the
    paper gives none (then there is no interval either)."""

    known_n: bool = True

    def cells(self) -> dict[str, str]:
        cells = super().cells()
        return cells if self.known_n else {**cells, "scored": "—"}


def _published_row(benchmark: str, b: Beside) -> Row:
    row = b.row
    low = high = float("nan")
    if row.count is not None and row.n and row.metric == "accuracy":
        interval = wilson_interval(min(max(row.count, 0), row.n), row.n)
        low, high = interval.low, interval.high
    return PublishedBoardRow(
        benchmark=benchmark,
        model=row.model,
        run=f"{row.table}, {row.column} ({row.paper.title.split(':')[0]} paper)",
        scored=row.n or 0,
        metric=row.metric,
        estimate=row.estimate,
        low=low,
        high=high,
        extra={"source": f"{MARK}, {row.table}"},
        known_n=row.n is not None,
    )


def with_published(
    runs: Sequence[LoadedRun], tables: Mapping[str, Sequence[Row]]
) -> tuple[dict[str, list[Row]], Notes]:
    """`tables` with the comparable published headline rows ranked in, and the notes."""
    out = {name: list(rows) for name, rows in tables.items()}
    notes: Notes = {}
    by_benchmark: dict[str, list[LoadedRun]] = {}
    for run in runs:
        by_benchmark.setdefault(run.benchmark, []).append(run)
    for benchmark, group in by_benchmark.items():
        if benchmark not in out:
            continue
        metrics = {r.metric for r in out[benchmark]}
        per_run = {run.label: published_for_run(run) for run in group}
        added, apart = _board_rows(benchmark, per_run, metrics)
        if not added and not apart:
            continue
        if added:  # every row has a source, so the column stands in one place
            out[benchmark] = [replace(r, extra={**r.extra, "source": ""}) for r in out[benchmark]]
        out[benchmark] += added
        out[benchmark].sort(key=_rank)
        notes[benchmark] = apart
    return out, notes


def _rank(row: Row) -> tuple[float, str]:
    return (-(row.estimate if row.estimate == row.estimate else -math.inf), row.model)


def _board_rows(
    benchmark: str, per_run: Mapping[str, list[Beside]], metrics: set[str]
) -> tuple[list[Row], list[str]]:
    first = next(iter(per_run.values()), [])
    heads = [i for i, b in enumerate(first) if b.row.headline and b.row.metric in metrics]
    ranked = [i for i in heads if any(bs[i].comparability.comparable for bs in per_run.values())]
    slices = dict.fromkeys(
        f"{label}: {note}"
        for label, bs in per_run.items()
        for i in heads
        if bs[i].comparability.comparable
        for note in bs[i].comparability.notes
    )
    lines = [f"Read with the published rows: {'; '.join(slices)}."] if slices else []
    for label, bs in per_run.items():
        # A run beside some headline rows is ranked with them; the others measure other
        # conditions (another language, another mode). One beside none: its nearest rows.
        if not heads or any(bs[i].comparability.comparable for i in heads):
            continue
        fewest = min(len(bs[i].comparability.differences) for i in heads)
        apart: dict[tuple[str, ...], list[int]] = {}
        for i in heads:
            if len(bs[i].comparability.differences) == fewest:
                apart.setdefault(bs[i].comparability.differences, []).append(i)
        for differences, group in apart.items():
            where = ", ".join(
                dict.fromkeys(f"{first[i].row.table} {first[i].row.column}" for i in group)
            )
            reason = " ".join(sentence(d) for d in differences)
            if set(group) <= set(ranked):  # in the table, comparable with another run
                lines.append(f"The published rows of {where} are not comparable with {label}: ")
            else:
                listed = ", ".join(f"{first[i].row.model} {shown(first[i].row)}" for i in group)
                lines.append(f"Listed apart, not comparable with {label} ({where}: {listed}): ")
            lines[-1] += reason
    return [_published_row(benchmark, first[i]) for i in ranked], lines


def compare_records(runs: Sequence[LoadedRun]) -> list[dict[str, Any]]:
    """Every published row beside every run, for `lexbench compare --format json`."""
    return [{"run": run.label, **b.to_dict()} for run in runs for b in published_for_run(run)]


def compare_csv(runs: Sequence[LoadedRun]) -> str:
    """The same, one CSV row per run and published row (full precision)."""
    records = compare_records(runs)
    fields = [
        "run",
        "paper",
        "table",
        "column",
        "model",
        "condition",
        "metric",
        "value",
        "estimate",
        "n",
        "status",
        "differences",
        "notes",
        "run_value",
        "run_n",
        "z",
        "p_value",
        "source",
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for record in records:
        test = record.get("test") or {}
        writer.writerow(
            {
                **record,
                "differences": " | ".join(record["differences"]),
                "notes": " | ".join(record["notes"]),
                "z": test.get("z", ""),
                "p_value": test.get("p_value", ""),
            }
        )
    return buffer.getvalue()


def compare_latex(runs: Sequence[LoadedRun]) -> str:
    """A booktabs table of the comparable published accuracies against each run."""
    from lexbench.report.compare_format import latex_escape

    lines = []
    for run in runs:
        for b in published_for_run(run):
            if b.test is None or not b.row.headline:
                continue
            t = b.test
            cells = [
                run.label,
                f"{b.row.model} ({b.row.table}, {b.row.column})",
                pct(t.run.estimate),
                shown(b.row),
                with_interval(t.difference.estimate, t.difference.low, t.difference.high, pct),
                p_text(t.p_value, ".4f"),
            ]
            lines.append(" & ".join(latex_escape(c) for c in cells) + r" \\")
    if not lines:
        return ""
    header = ["run", "published row (not re-run)", "run %", "published %", "difference pp", "p"]
    return "\n".join(
        [
            r"\begin{table}[ht]",
            r"\centering",
            r"\small",
            r"\begin{tabular}{llrrrr}",
            r"\toprule",
            " & ".join(header) + r" \\",
            r"\midrule",
            *lines,
            r"\bottomrule",
            r"\end{tabular}",
            r"\caption{Published accuracies (not re-run) against each run: unpaired "
            r"two-proportion z-test, Newcombe 95\% interval of the difference.}",
            r"\end{table}",
        ]
    )


def leaderboard_tables(
    paths: Sequence[Any], published: bool = True
) -> tuple[dict[str, list[Row]], Notes]:
    """`lexbench leaderboard`: the tables of the run folders under `paths`, with the
    comparable published rows ranked in (`published=False`: the runs alone) and the notes."""
    from lexbench.report.leaderboard import leaderboards
    from lexbench.report.runs import load_runs

    runs = load_runs(paths)
    if not runs:
        raise ValueError("no run folders found in the paths given")
    tables = leaderboards(runs)
    return with_published(runs, tables) if published else (tables, {})
