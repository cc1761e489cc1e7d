"""Per-benchmark report sections, looked up by results.json's `benchmark` field.

A reporter turns the runs of one benchmark into Markdown (the summary table as the paper
prints it, and a section per run) and figures (PNGs). `GenericReporter` works for any
benchmark that follows the run-folder conventions: its table comes from samples.jsonl
(accuracy with a Wilson interval, and the mean score when it is graded), each run's own
report.md is shown as written, and the PNGs under `<run>/figures/` are embedded. A
benchmark with a richer page declares its own reporter (`BenchmarkSpec.reporters`; see
`lexbench.benchmarks.lambda_.report`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lexbench.parts import Figure, LoadedRun, Reporter
from lexbench.run.store import slug


def demote_headings(markdown: str, levels: int) -> str:
    """`# A` -> `### A` with levels=2 (outside fenced code), capped at six #."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else re.match(r"^(#{1,6})(\s.*)$", line)
        out.append(
            f"{'#' * min(6, len(match.group(1)) + levels)}{match.group(2)}" if match else line
        )
    return "\n".join(out)


def figure_name(run: LoadedRun, position: int, stem: str) -> str:
    """`scan-2-lm-a-mrr_by_type.png`: the run's position in its group keeps two labels that
    slug alike ("lm (a)", "lm-a") from writing to one file."""
    return f"{slug(run.benchmark)}-{position}-{slug(run.label)}-{slug(stem)}.png"


@dataclass(frozen=True)
class GenericReporter:
    """Any benchmark: samples-based summary, the run's report.md, its figures folder."""

    benchmark: str
    title: str = ""

    @property
    def heading(self) -> str:
        return self.title or self.benchmark

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        from lexbench.report.compare_format import format_ci, format_num, format_pct, markdown_table
        from lexbench.report.standings import is_graded, leaderboard

        graded = is_graded(runs)
        rows = []
        given_order = [r.label for r in runs]
        for standing in sorted(leaderboard(runs, graded), key=lambda s: given_order.index(s.label)):
            row = {
                "run": standing.label,
                "items": str(standing.items),
                "scored": str(standing.scored),
                "accuracy %": format_pct(standing.accuracy.estimate),
                "Wilson 95%": format_ci(standing.accuracy, format_pct),
            }
            if standing.score is not None:
                row.update(
                    {
                        "mean score": format_num(standing.score.estimate),
                        "bootstrap 95%": format_ci(standing.score, format_num),
                    }
                )
            rows.append(row)
        note = "Accuracy over scored items (`correct` not null) with Wilson 95% intervals" + (
            "; mean score = mean of each sample's `value`, percentile bootstrap 95%."
            if graded
            else "."
        )
        return markdown_table(rows) + "\n\n" + note

    def run_markdown(self, run: LoadedRun) -> str:
        if run.report_markdown.strip():
            return run.report_markdown
        return f"# {run.label}\n\n(no report.md in {run.path})"

    def figures(self, runs: Sequence[LoadedRun], folder: Path) -> list[Figure]:
        """The PNGs each run carries under `<run>/figures/`, copied next to the report."""
        out = []
        folder.mkdir(parents=True, exist_ok=True)
        for position, run in enumerate(runs, 1):
            for source in run.figure_files:
                target = folder / figure_name(run, position, source.stem)
                shutil.copyfile(source, target)
                out.append(
                    Figure(
                        title=f"{run.label}: {source.stem.replace('_', ' ')}",
                        path=target,
                        caption=f"from {source}",
                    )
                )
        return out


def reporter_for(benchmark: str) -> Reporter:
    """The reporter its benchmark declares for runs named `benchmark`
    (`BenchmarkSpec.reporters`), or the generic one."""
    from lexbench import plugins

    spec = plugins.spec_for_run(benchmark)
    if spec is not None and spec.reporters is not None:
        for reporter in spec.reporters():
            if reporter.benchmark == benchmark:
                return reporter
    return GenericReporter(benchmark)
