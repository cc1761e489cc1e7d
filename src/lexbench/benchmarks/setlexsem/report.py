"""SetLexSem's report across runs: the paper's "by model" tables and Figure 3.

* Summary: Table 3 (accuracy by model: mean, SD and N of per-configuration accuracy on the
  paper's Table 3 configurations: main design, k = 0, formal phrasing, the two allow-empty
  methods), then the mean (SD) by set operation per model (Figure 4a's configurations) and
  lexbench's "every configuration" column, all from each run's results.json. The SD is the
  paper's measure of robustness: lower is more robust.
* Figure 3: one violin of per-configuration accuracies per model.
* Per run: the tables of `setlexsem_markdown.report_markdown`, regenerated from results.json.

SetLexSem's spec declares it (`BenchmarkSpec.reporters`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.parts import NOT_AVAILABLE, Row, fmt, pct
from lexbench.report.leaderboard import accuracy_row
from lexbench.report.registry import Figure, GenericReporter
from lexbench.report.runs import LoadedRun


def _configs(run: LoadedRun) -> list[Mapping[str, Any]]:
    return [c for c in run.results.get("configurations", []) if c.get("n")]


def _pct(value: Any) -> str:
    return pct(value, 2)  # "n/a" where no configuration was scored


def _label(run: LoadedRun) -> str:
    return run.label.replace("|", "\\|")


@dataclass(frozen=True)
class SetLexSemReporter(GenericReporter):
    benchmark: str = "setlexsem"
    title: str = "SetLexSem"

    def table3_configs(self, run: LoadedRun) -> list[Mapping[str, Any]]:
        from lexbench.benchmarks.setlexsem.designs import ALLOW_EMPTY, in_main_design

        return [
            c
            for c in _configs(run)
            if in_main_design(c)
            and c["k"] == 0
            and c["phrasing"] == "formal"
            and c["method"] in ALLOW_EMPTY
        ]

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        from lexbench.benchmarks.setlexsem.analysis import factor_table, spread
        from lexbench.benchmarks.setlexsem.designs import pooled_main
        from lexbench.benchmarks.setlexsem.markdown import level

        lines = [
            "**Table 3: accuracy of each model** (per-configuration accuracy, %; the "
            "paper's configurations: main design, k = 0, formal phrasing, allow-empty "
            "methods)",
            "",
            "| LLM | Mean | Std | N (prompts) | configurations | lexbench: every configuration, "
            "Mean (Std), N |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for run in runs:
            paper = spread(self.table3_configs(run))
            every = spread(_configs(run))
            lines.append(
                f"| {_label(run)} | {_pct(paper['mean'])} | {_pct(paper['sd'])} | "
                f"{paper['prompts']} | {paper['configurations']} | "
                f"{_pct(every['mean'])} ({_pct(every['sd'])}), {every['prompts']} |"
            )
        operations = ("union", "intersection", "difference", "symmetric_difference")
        lines += [
            "",
            "**Accuracy across set operations by model** (Table 4's configurations: "
            "main design plus the random baseline; Mean (Std), %)",
            "",
            "| LLM | " + " | ".join(level(o, "operation") for o in operations) + " |",
            "|---|" + "---:|" * len(operations),
        ]
        for run in runs:
            rows = {
                r["operation"]: r for r in factor_table(pooled_main(_configs(run)), ["operation"])
            }
            cells = [
                f"{_pct(rows[o]['mean'])} ({_pct(rows[o]['sd'])})" if o in rows else NOT_AVAILABLE
                for o in operations
            ]
            lines.append(f"| {_label(run)} | " + " | ".join(cells) + " |")
        grids = {str(run.config.get("benchmark", {}).get("dataset", {})) for run in runs}
        note = (
            "\n\nMean and Std are over per-configuration accuracies, as in the paper; the "
            "Std is its measure of robustness (lower is more robust). N counts prompts."
        )
        if len(grids) > 1:
            note += (
                " The runs were generated with different grids, limits or selections, so "
                "their configurations differ (compare N)."
            )
        return "\n".join(lines) + note

    def run_markdown(self, run: LoadedRun) -> str:
        from lexbench.benchmarks.setlexsem.markdown import report_markdown

        if all(key in run.results for key in ("overall", "paper_tables", "error_classes")):
            return report_markdown(run.results, title=run.label)
        return super().run_markdown(run)

    def figures(self, runs: Sequence[LoadedRun], folder: Path) -> list[Figure]:
        from lexbench.report.figures import violin

        groups = {run.label: [c["accuracy"] for c in self.table3_configs(run)] for run in runs}
        groups = {label: values for label, values in groups.items() if values}
        out = []
        if groups:
            path = violin(
                Path(folder) / "setlexsem-figure3-by-model.png",
                groups,
                title="SetLexSem Figure 3: accuracy by model",
                ylabel="accuracy per configuration",
            )
            out.append(
                Figure(
                    "Figure 3: accuracy by model",
                    path,
                    "One point per configuration of Table 3 (main design, k = 0, "
                    "formal, allow-empty methods).",
                )
            )
        return out + super().figures(runs, folder)


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


def setlexsem_headline(run: LoadedRun) -> Row:
    """Accuracy over all prompts (Wilson) and the paper's robustness figure, the SD of
    per-configuration accuracy (lower is more robust)."""
    return accuracy_row(run, {"SD of accuracy": fmt(setlexsem_sd(run))})


#: The report sections SetLexSem's spec registers (`BenchmarkSpec.reporters`).
REPORTERS = (SetLexSemReporter(),)
