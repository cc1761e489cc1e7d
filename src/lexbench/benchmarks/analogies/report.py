"""The ranking analogy sets' report (SCAN, Google, BATS, pair files, SAT): each run's
metrics as its paper reports them, MRR@10 first, with standard errors clustered by concept
mapping (or section, relation, question), overall and per type. No "accuracy %" column: on
these benchmarks acc@1 is one of the metrics, beside MRR@10 and recall@k.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.parts import NOT_AVAILABLE, Row, fmt, is_number
from lexbench.report.registry import Figure, GenericReporter
from lexbench.report.runs import LoadedRun

LABELS = {
    "mrr": "MRR@10",
    "acc_at_1": "acc@1",
    "recall_at_5": "recall@5",
    "recall_at_10": "recall@10",
}
TITLES = {
    "scan": "SCAN",
    "google": "Google analogies",
    "bats": "BATS 3.0",
    "pairs": "Word-pair analogies",
    "sat": "SAT-style multiple choice",
}


def _cell(block: Mapping[str, Any] | None) -> str:
    """ "0.083 ± 0.012": the estimate ± its clustered SE; "n/a" where nothing was scored,
    "± n/a" where the SE is undefined (one cluster)."""
    if not block or not block.get("n") or not is_number(block.get("estimate")):
        return NOT_AVAILABLE
    return f"{fmt(block['estimate'])} ± {fmt(block.get('se'))}"


def _condition(run: LoadedRun) -> str:
    results = run.results
    if results.get("request_kind") == "analogy" or results.get("method"):
        return str(results.get("method") or "vectors")
    return f"{results.get('shots', 0)}-shot"


@dataclass(frozen=True)
class AnalogyReporter(GenericReporter):
    """One row per run and group (overall, then each type): the metrics ± clustered SE."""

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        metrics = list(runs[0].results.get("metrics") or LABELS)
        header = ["run", "condition", "group", "n", "scored", *(LABELS.get(m, m) for m in metrics)]
        lines = ["| " + " | ".join(header) + " |", "|---|---|---|" + "---:|" * (len(header) - 3)]
        for run in runs:
            results = run.results
            groups = [
                ("overall", results.get("overall") or {}),
                *sorted((results.get("by_type") or {}).items()),
            ]
            for group, block in groups:
                lines.append(
                    " | ".join(
                        [
                            f"| {run.label}",
                            _condition(run),
                            group,
                            str(block.get("n", NOT_AVAILABLE)),
                            str(block.get("scored", NOT_AVAILABLE)),
                            *(_cell(block.get(m)) for m in metrics),
                        ]
                    )
                    + " |"
                )
        cluster = runs[0].results.get("cluster", "mapping")
        return (
            side_by_side_markdown(runs)
            + "\n".join(lines)
            + f"\n\nEstimate ± standard error clustered by {cluster}; "
            "metrics over scored items (an item the model cannot take is left out or "
            "counted wrong, as the run's config says)."
        )

    def figures(self, runs: Sequence[LoadedRun], folder: Path) -> list[Figure]:
        """Each run's own figures, after one of every ranking run side by side."""
        own = GenericReporter.figures(self, runs, folder)
        ranked = _side_by_side_results(runs)
        if ranked is None:
            return own
        from lexbench.benchmarks.analogies.tables import mrr_figure
        from lexbench.run.store import slug

        name = self.title or self.benchmark
        path = mrr_figure(
            folder / f"{slug(self.benchmark)}-side-by-side.png",
            ranked,
            title=f"{name}: MRR@10 by type, {len(ranked)} runs side by side",
        )
        caption = "95% intervals clustered by mapping; groups every run has"
        return [Figure(f"{name}: runs side by side", path, caption), *own]


def _groups(results: Mapping[str, Any]) -> list[str]:
    return ["overall", *sorted(results.get("by_type") or {})]


def _side_by_side_results(
    runs: Sequence[LoadedRun],
) -> dict[str, dict[str, Any]] | None:
    """{label: results trimmed to the groups every run has}, for two or more ranking runs
    (MRR@10 overall and by type); None otherwise."""
    ranked = [r for r in runs if isinstance((r.results.get("overall") or {}).get("mrr"), Mapping)]
    if len(ranked) < 2:
        return None
    shared = [g for g in _groups(ranked[0].results) if all(g in _groups(r.results) for r in ranked)]
    return {
        run.label: {
            "overall": run.results["overall"],
            "by_type": {g: run.results["by_type"][g] for g in shared if g != "overall"},
        }
        for run in ranked
    }


def side_by_side_markdown(runs: Sequence[LoadedRun]) -> str:
    """A table with one column per run: MRR@10 ± clustered SE overall and per type (empty
    for fewer than two ranking runs)."""
    ranked = _side_by_side_results(runs)
    if ranked is None:
        return ""
    labels = list(ranked)
    first = next(iter(ranked.values()))
    lines = [
        "MRR@10 ± clustered SE, runs side by side:",
        "",
        "| group | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for group in ["overall", *first["by_type"]]:
        cells = [
            _cell((r["overall"] if group == "overall" else r["by_type"][group]).get("mrr"))
            for r in ranked.values()
        ]
        lines.append(f"| {group} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\nEach run by group:\n\n"


def ranking_headline(run: LoadedRun) -> Row | None:
    """The leaderboard row of a ranking set (SCAN, Google, BATS, pair files): MRR@10 with the
    interval clustered by mapping, as the run's report gives it, acc@1 and the SE beside it.
    None for a run without the ranking results (the generic accuracy row then applies)."""
    results = run.results
    overall = results.get("overall")
    if not isinstance(overall, Mapping) or "mrr" not in overall:
        return None
    mrr = overall["mrr"]
    extra = {
        "acc@1": fmt(float(overall.get("acc_at_1", {}).get("estimate", math.nan))),
        "SE (clustered)": fmt(float(mrr.get("se", math.nan))),
    }
    return Row(
        run.benchmark,
        run.model_name,
        str(run.path),
        int(overall.get("scored", 0)),
        "MRR@10",
        float(mrr["estimate"]),
        float(mrr["low"]),
        float(mrr["high"]),
        extra,
    )


#: The report sections of every analogy set (SCAN's among them), registered by each of their
#: specs (`BenchmarkSpec.reporters`); `lexbench report` gives a run the one of its name.
REPORTERS = tuple(AnalogyReporter(name, title) for name, title in TITLES.items())
