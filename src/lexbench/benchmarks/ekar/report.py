"""E-KAR's report: accuracy per meta-relation across runs (the paper's Figure 2a as a
table, with intervals), a figure of it, and each run's tables regenerated from results.json.

* `EkarReporter` (results.json `benchmark: "ekar"`, question answering): one row per run,
  accuracy in % with the Wilson 95% interval for R1-R5 and overall. An item counts under
  every meta-relation annotated for its query, so the R columns can hold more items than
  the overall one.
* `EkarExplanationReporter` (`"ekar-explain"`): one row per run, ROUGE-2 F1 and the other
  metrics of E_Q and E_A with bootstrap intervals, and the metrics that were skipped, with
  the reason (BLEURT and MoverScore without a checkpoint).

E-KAR's spec declares them (`BenchmarkSpec.reporters`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.data import META_RELATIONS
from lexbench.parts import NOT_AVAILABLE, pct, with_interval
from lexbench.report import figures as plots
from lexbench.report.registry import Figure, GenericReporter
from lexbench.report.runs import LoadedRun

_QA_KEYS = ("overall", "by_meta_relation", "by_relation", "by_terms", "items", "labelled")
_EXPLAIN_KEYS = ("explanations", "rouge2_f1_by_meta_relation", "items", "error_classes")


def _cell(block: Mapping[str, Any] | None) -> str:
    """ "41.7 [33.1, 50.8] (n=120)" from an accuracy block; "n/a" when it has no items."""
    if not block or not block.get("n"):
        return NOT_AVAILABLE
    wilson = block["wilson"]
    shown = with_interval(block["accuracy"], wilson["low"], wilson["high"], pct)
    return f"{shown} (n={block['n']})"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _setting(run: LoadedRun) -> str:
    config = run.results.get("config", {})
    return " ".join(
        str(config.get(k)) for k in ("language", "split", "mode", "method") if config.get(k)
    )


def _meta_block(run: LoadedRun, meta: str) -> Mapping[str, Any] | None:
    for row in run.results.get("by_meta_relation", []):
        if row.get("meta_relation") == meta:
            return row
    return None


@dataclass(frozen=True)
class EkarReporter(GenericReporter):
    benchmark: str = "ekar"
    title: str = "E-KAR question answering"

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        metas = list(META_RELATIONS)
        lines = [
            "| run | setting | "
            + " | ".join(f"{m} {META_RELATIONS[m]}" for m in metas)
            + " | **overall** |",
            "|---|---|" + "---:|" * (len(metas) + 1),
        ]
        for run in runs:
            cells = [_cell(_meta_block(run, m)) for m in metas]
            lines.append(
                f"| {_escape(run.label)} | {_escape(_setting(run))} | "
                + " | ".join(cells)
                + f" | **{_cell(run.results.get('overall'))}** |"
            )
        return (
            "\n".join(lines) + "\n\nAccuracy in % with the Wilson 95% interval and the "
            "number of labelled items. An item counts under every meta-relation annotated "
            "for its query; Wald intervals and the sub-relations are in each run's tables."
        )

    def run_markdown(self, run: LoadedRun) -> str:
        from lexbench.benchmarks.ekar.tables import report_markdown

        if all(key in run.results for key in _QA_KEYS):
            return report_markdown(run.results).replace(
                "# E-KAR question answering", f"# {run.label}: E-KAR question answering", 1
            )
        return super().run_markdown(run)

    def figures(self, runs: Sequence[LoadedRun], folder: Path) -> list[Figure]:
        labelled = [r for r in runs if (r.results.get("overall") or {}).get("n")]
        out = [self._meta_figure(labelled, folder)] if labelled else []
        # Each run's own figure is the same chart for one run: copy it only for a single run.
        return (
            out
            if len(labelled) > 1
            else out
            + [
                f
                for f in super().figures(runs, folder)
                if "accuracy_by_meta_relation" not in f.path.name
            ]
        )

    def _meta_figure(self, runs: Sequence[LoadedRun], folder: Path) -> Figure:
        metas = [*list(META_RELATIONS), "overall"]
        nan = float("nan")
        series: dict[str, list[float]] = {}
        lows: list[float] = []
        highs: list[float] = []
        for run in runs:
            blocks = [_meta_block(run, m) for m in metas[:-1]] + [run.results.get("overall")]
            blocks = [b if b and b.get("n") else None for b in blocks]
            series[run.label] = [b["accuracy"] if b else nan for b in blocks]
            lows += [b["wilson"]["low"] if b else nan for b in blocks]
            highs += [b["wilson"]["high"] if b else nan for b in blocks]
        several = len(runs) > 1
        labels = [f"{m} {META_RELATIONS[m]}" if m in META_RELATIONS else m for m in metas]
        path = plots.bar_with_intervals(
            folder / "ekar-accuracy-by-meta-relation.png",
            labels,
            [] if several else series[runs[0].label],
            lows,
            highs,
            title="E-KAR: accuracy by meta-relation" + ("" if several else f" ({runs[0].label})"),
            ylabel="accuracy",
            series=series if several else None,
        )
        return Figure(
            "Accuracy by meta-relation",
            path,
            "Bars: accuracy; whiskers: Wilson 95% intervals"
            + ("; one colour per run." if several else "."),
        )


def _interval_cell(block: Mapping[str, Any] | None) -> str:
    if not block or not block.get("n"):
        return NOT_AVAILABLE
    return with_interval(block["estimate"], block["low"], block["high"])


@dataclass(frozen=True)
class EkarExplanationReporter(GenericReporter):
    benchmark: str = "ekar-explain"
    title: str = "E-KAR explanation generation"

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        metrics = sorted(
            {
                m
                for run in runs
                for group in run.results.get("explanations", {}).values()
                for m in group
            }
        )
        columns = [
            (g, m)
            for g in ("E_Q", "E_A")
            for m in metrics
            if any(m in run.results.get("explanations", {}).get(g, {}) for run in runs)
        ]
        lines = [
            "| run | setting | " + " | ".join(f"{g} {m}" for g, m in columns) + " |",
            "|---|---|" + "---:|" * len(columns),
        ]
        skipped: dict[str, set[str]] = {}
        for run in runs:
            tables = run.results.get("explanations", {})
            config = run.results.get("config", {})
            setting = " ".join(
                str(config.get(k))
                for k in ("language", "split", "mode", "prompt_format")
                if config.get(k)
            )
            lines.append(
                f"| {_escape(run.label)} | {_escape(setting)} | "
                + " | ".join(_interval_cell(tables.get(g, {}).get(m)) for g, m in columns)
                + " |"
            )
            for metric, reason in run.results.get("skipped_metrics", {}).items():
                skipped.setdefault(f"{metric}: {reason}", set()).add(run.label)
        notes = ["Means with 95% bootstrap intervals; E_Q is generated in HARD mode only."]
        notes += [
            f"Not computed -- {reason} (runs: {', '.join(sorted(labels))})."
            for reason, labels in sorted(skipped.items())
        ]
        return "\n".join(lines) + "\n\n" + "\n\n".join(notes)

    def run_markdown(self, run: LoadedRun) -> str:
        from lexbench.benchmarks.ekar.explain_report import explanation_report_markdown

        if all(key in run.results for key in _EXPLAIN_KEYS) and "config" in run.results:
            return explanation_report_markdown(run.results).replace(
                "# E-KAR explanation generation", f"# {run.label}: E-KAR explanation generation", 1
            )
        return super().run_markdown(run)


#: The report sections E-KAR's spec registers (`BenchmarkSpec.reporters`): one per run name.
REPORTERS = (EkarReporter(), EkarExplanationReporter())
