"""LAMBDA's report: the paper's accuracy table across models, and its two figures.

* Summary: one row per run, accuracy per relation and overall, in % with the Wald 95%
  interval the paper prints (Wilson intervals are in each run's section).
* Figures, drawn from results.json: accuracy per relation with Wilson whiskers (one bar
  series per run), and, per run, accuracy against query length with the least-squares
  trend and Spearman's rho (points sized by items per length).
* Per run: the tables of `lambda_analysis.report_markdown`, regenerated from results.json
  so they always match it (report.md is used only when results.json lacks those tables).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.lambda_.analysis import rho_text
from lexbench.parts import NOT_AVAILABLE, pct, with_interval
from lexbench.report import figures as plots
from lexbench.report.registry import Figure, GenericReporter, figure_name
from lexbench.report.runs import LoadedRun

_TABLE_KEYS = ("overall", "per_relation", "error_taxonomy", "accuracy_by_query_length", "dataset")


def _cell(block: Mapping[str, Any] | None) -> str:
    """ "5.3 [3.3, 8.5]": accuracy in % with the Wald 95% interval; "n/a" with no item."""
    if not block:
        return NOT_AVAILABLE
    wald = block["wald"]
    return with_interval(block["accuracy"], wald["low"], wald["high"], pct)


def relations_of(runs: Sequence[LoadedRun]) -> list[str]:
    """Relations in the order the runs were configured with (the paper's: synonym, antonym,
    derivation), then any others; results.json itself stores them sorted by name."""
    configured: list[str] = []
    for run in runs:
        dataset = run.config.get("benchmark", {}).get("dataset", {})
        if isinstance(dataset, Mapping) and isinstance(dataset.get("relations"), list):
            configured += [str(r) for r in dataset["relations"]]
    present = {r for run in runs for r in run.results.get("per_relation", {})}
    ordered = [r for r in dict.fromkeys(configured) if r in present]
    return ordered + sorted(present - set(ordered))


def _by_number(table: Mapping[str, Any]) -> dict[str, Any]:
    def key(k: str) -> tuple[int, str]:
        return (int(k) if k.lstrip("-").isdigit() else 0, k)

    return {k: table[k] for k in sorted(table, key=key)}


def in_reading_order(results: Mapping[str, Any], relations: Sequence[str]) -> dict[str, Any]:
    """results.json is written with sorted keys: put relations back in the configured order
    and query lengths in numeric order ("4" before "10") before printing the tables."""

    def relation_order(table: Mapping[str, Any]) -> dict[str, Any]:
        return {
            **{r: table[r] for r in relations if r in table},
            **{r: v for r, v in table.items() if r not in relations},
        }

    out = dict(results)
    for key in ("per_relation", "error_taxonomy"):
        out[key] = relation_order(results[key])
    by_length = dict(results["accuracy_by_query_length"])
    by_length["table"] = _by_number(by_length["table"])
    out["accuracy_by_query_length"] = by_length
    dataset = dict(results["dataset"])
    for key in (
        "query_length_by_relation",
        "query_pos_by_relation",
        "candidate_set_size_by_relation",
    ):
        if key in dataset:
            dataset[key] = relation_order(dataset[key])
    query_length = dataset.get("query_length", {})
    if "count_per_length" in query_length:
        dataset["query_length"] = {
            **query_length,
            "count_per_length": _by_number(query_length["count_per_length"]),
        }
    out["dataset"] = dataset
    return out


@dataclass(frozen=True)
class LambdaReporter(GenericReporter):
    benchmark: str = "lambda"
    title: str = "LAMBDA"

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        relations = relations_of(runs)
        lines = [
            "| run | n | " + " | ".join(relations) + " | **overall** |",
            "|---|---:|" + "---:|" * (len(relations) + 1),
        ]
        for run in runs:
            per = run.results.get("per_relation", {})
            overall = run.results.get("overall")
            n = overall["n"] if overall else 0
            label = run.label.replace("|", "\\|")
            lines.append(
                f"| {label} | {n} | "
                + " | ".join(_cell(per.get(r)) for r in relations)
                + f" | **{_cell(overall)}** |"
            )
        return (
            "\n".join(lines) + "\n\nAccuracy in % with the Wald 95% interval, as the paper "
            "prints it; Wilson intervals (better near 0 and 1) are in each run's tables."
        )

    def run_markdown(self, run: LoadedRun) -> str:
        from lexbench.benchmarks.lambda_.analysis import report_markdown

        if all(key in run.results for key in _TABLE_KEYS):
            return report_markdown(
                in_reading_order(run.results, relations_of([run])), title=run.label
            )
        return super().run_markdown(run)

    def figures(self, runs: Sequence[LoadedRun], folder: Path) -> list[Figure]:
        out = [self._relation_figure(runs, folder)] if relations_of(runs) else []
        for position, run in enumerate(runs, 1):
            block = run.results.get("accuracy_by_query_length")
            if block and block.get("table"):
                out.append(self._length_figure(run, position, block, folder))
        return out + super().figures(runs, folder)

    def _relation_figure(self, runs: Sequence[LoadedRun], folder: Path) -> Figure:
        relations = [*relations_of(runs), "overall"]
        series: dict[str, list[float]] = {}
        lows: list[float] = []
        highs: list[float] = []
        for run in runs:
            blocks = [run.results.get("per_relation", {}).get(r) for r in relations[:-1]]
            blocks.append(run.results.get("overall"))
            nan = float("nan")
            series[run.label] = [b["accuracy"] if b else nan for b in blocks]
            lows += [b["wilson"]["low"] if b else nan for b in blocks]
            highs += [b["wilson"]["high"] if b else nan for b in blocks]
        several = len(runs) > 1
        title = "LAMBDA: accuracy per relation" + ("" if several else f" ({runs[0].label})")
        path = plots.bar_with_intervals(
            folder / "lambda-accuracy-per-relation.png",
            relations,
            [] if several else series[runs[0].label],
            lows,
            highs,
            title=title,
            ylabel="accuracy",
            series=series if several else None,
        )
        return Figure(
            "Accuracy per relation",
            path,
            "Bars: accuracy; whiskers: Wilson 95% intervals"
            + ("; one colour per run." if len(runs) > 1 else "."),
        )

    def _length_figure(
        self, run: LoadedRun, position: int, block: Mapping[str, Any], folder: Path
    ) -> Figure:
        lengths = sorted(block["table"], key=int)
        x = [int(n) for n in lengths]
        y = [float(block["table"][n]["accuracy"]) for n in lengths]
        sizes = [int(block["table"][n]["n"]) for n in lengths]
        rho_all = block["spearman_all_lengths"]
        rho_kept = block.get("spearman_lengths_with_min_items", {})
        note = f"Spearman ρ, all lengths: {rho_text(rho_all)}"
        if rho_kept:
            note += (
                f"\nlengths with ≥{block.get('spearman_min_items', '?')} items: "
                f"{rho_text(rho_kept)}"
            )
        # Headroom above the highest point keeps the two-line annotation off the data.
        # (over the points drawn: a length with no scored item has a NaN accuracy)
        top = max((v for v in y if math.isfinite(v)), default=1.0)
        path = plots.scatter_with_trend(
            folder / figure_name(run, position, "accuracy-by-query-length"),
            x,
            y,
            sizes=sizes,
            title=f"Accuracy by query length\n{run.label}",
            xlabel="query length (characters)",
            ylabel="accuracy",
            annotation=note,
            ylim=(-0.04 * max(top, 0.05), max(top, 0.05) * 1.35),
        )
        return Figure(
            f"Accuracy by query length: {run.label}",
            path,
            f"Points sized by items per length; line: least-squares trend. "
            f"{note.replace(chr(10), '; ')}.",
        )


#: The report sections LAMBDA's spec registers (`BenchmarkSpec.reporters`).
REPORTERS = (LambdaReporter(),)
