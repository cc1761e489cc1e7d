"""`lexbench report`: run folders -> DIR/report.html (self-contained) + DIR/report.md.

    DIR/report.html   one page: tables, figures (base64 PNG), comparison, sample browser
    DIR/report.md     the same tables, with the figures linked from DIR/figures/
    DIR/figures/      every figure as a PNG file

Runs are grouped by results.json's `benchmark` field, in the order given; each group is
rendered by its reporter (`registry.reporter_for`). The paired comparison (`lexbench
compare`) of each largest set of a group's runs that share scored items is included too;
a run left out of them (every request failed, or it shares no scored item) is named with
the reason (`groups.sharing_groups`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lexbench import __version__
from lexbench.report import markdown as md
from lexbench.report.compare import compare_runs
from lexbench.report.compare_format import to_markdown
from lexbench.report.groups import describe, sharing_groups
from lexbench.report.leaderboard import leaderboards
from lexbench.report.leaderboard import to_markdown as leaderboard_markdown
from lexbench.report.page import BenchmarkBlock, FigureBlock, data_uri, render_page
from lexbench.report.published_board import with_published
from lexbench.report.published_format import published_markdown
from lexbench.report.registry import Figure, demote_headings, reporter_for
from lexbench.report.runs import LoadedRun, discover, failure_flag, label_runs, load_run
from lexbench.robustness.report import robustness_markdown
from lexbench.run.store import slug

DEFAULT_MAX_SAMPLES = 2000


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    figures: tuple[Path, ...]


def _write_text(path: Path, text: str) -> None:
    """Write via a unique temporary name and rename, so a crash never leaves half a report
    and two reports never share a temporary file (lone surrogates as visible escapes)."""
    from lexbench.run.files import write_text

    write_text(path, text)


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a literal bar must not split the cell."""
    return text.replace("|", "\\|")


def group_by_benchmark(runs: Sequence[LoadedRun]) -> dict[str, list[LoadedRun]]:
    groups: dict[str, list[LoadedRun]] = {}
    for run in runs:
        groups.setdefault(run.benchmark, []).append(run)
    return groups


def _comparisons(runs: Sequence[LoadedRun], resamples: int, seed: int) -> tuple[str, list[str]]:
    """The paired comparisons of one benchmark's runs as Markdown, and the notes above them:
    each largest set of runs that share scored items is compared (`groups.sharing_groups`);
    a run left out is named with the reason."""
    grouping = sharing_groups(runs)
    notes = [out.sentence() for out in grouping.left_out]
    parts = []
    for group in grouping.groups:
        if len(grouping.groups) > 1 or grouping.left_out:
            parts += [f"Paired comparisons of {describe(group)} (they share scored items):", ""]
        try:
            parts.append(
                to_markdown(compare_runs(group, resamples=resamples, seed=seed), heading_level=3)
            )
        except ValueError as error:  # cannot be compared after all: said on the page
            notes.append(f"No paired comparison of {describe(group)}: {error}")
    return "\n".join(parts).strip(), notes


def _image_resolver(run: LoadedRun) -> md.ImageResolver:
    """Relative PNG links in a run's report.md become data URIs (inside the run folder only)."""
    root = run.path.resolve()

    def resolve(src: str) -> str | None:
        if re.match(r"^[a-z]+:", src) or not src.lower().endswith(".png"):
            return None
        target = (root / src).resolve()
        if root not in target.parents or not target.is_file():
            return None
        return data_uri(target)

    return resolve


def _figures_markdown(figures: Sequence[Figure], out_dir: Path) -> str:
    parts = []
    for figure in figures:
        relative = figure.path.relative_to(out_dir).as_posix()
        parts += [
            f"![{figure.title}]({relative})",
            "",
            f"*{figure.title}*" + (f". {figure.caption}" if figure.caption else ""),
            "",
        ]
    return "\n".join(parts)


def build_report(
    runs_or_paths: Iterable[LoadedRun | str | Path],
    out_dir: str | Path,
    *,
    title: str = "lexbench report",
    max_samples: int | None = DEFAULT_MAX_SAMPLES,
    resamples: int = 10_000,
    seed: int = 0,
    published: bool = True,
) -> ReportFiles:
    """Write the report for the given runs (or run-folder paths) into `out_dir`; with
    `published`, the papers' rows beside comparable runs (docs/published-results.md)."""
    given = list(runs_or_paths)
    if not given:
        raise ValueError("report needs at least one run folder")
    if max_samples is not None and max_samples < 1:
        raise ValueError(f"max_samples must be at least 1 (or None for all), got {max_samples}")
    loaded: list[LoadedRun] = []
    for item in given:
        if isinstance(item, LoadedRun):
            loaded.append(item)
        else:
            loaded.extend(load_run(path) for path in discover([item]))
    runs = label_runs(loaded)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a directory")
    figure_dir = out / "figures"
    figure_dir.mkdir(parents=True, exist_ok=True)

    markdown_parts = [
        f"# {title}",
        "",
        "| run | benchmark | samples | folder |",
        "|---|---|---:|---|",
    ]
    markdown_parts += [
        f"| {_cell(r.label)} | {_cell(r.benchmark)} | {len(r.samples)} | `{_cell(str(r.path))}` |"
        for r in runs
    ]
    markdown_parts.append("")
    # A run whose requests failed is flagged first: its scores are not the model's.
    markdown_parts += [
        f"**Warning:** run {r.label} ({r.benchmark}): {flag}."
        for r in runs
        if (flag := failure_flag(r))
    ]
    markdown_parts.append("")
    blocks: list[BenchmarkBlock] = []
    all_figures: list[Path] = []
    # The leaderboard first: one table per benchmark, the headline metric with its interval.
    tables, board_notes = leaderboards(runs), dict[str, list[str]]()
    if published:
        tables, board_notes = with_published(runs, tables)
    board = demote_headings(leaderboard_markdown(tables, board_notes), 1)
    markdown_parts += [board, ""]
    blocks.append(
        BenchmarkBlock(
            anchor="leaderboard",
            title="Leaderboard",
            # The block's own title says "Leaderboard": its table without the heading again.
            summary_html=md.to_html(board.partition("\n")[2], heading_offset=1),
            comparison_html="",
            figures=[],
            runs=[],
            notes=[],
        )
    )
    robust = robustness_markdown(r.path for r in runs)  # spreads and probes, where run
    if robust:
        markdown_parts += ["## Robustness", "", robust, ""]
        blocks.append(
            BenchmarkBlock(
                anchor="robustness",
                title="Robustness: spread and contamination",
                summary_html=md.to_html(robust, heading_offset=0),
                comparison_html="",
                figures=[],
                runs=[],
                notes=[],
            )
        )
    for benchmark, group in group_by_benchmark(runs).items():
        reporter = reporter_for(benchmark)
        heading = getattr(reporter, "title", "") or benchmark
        summary = reporter.summary_markdown(group)
        try:
            figures = reporter.figures(group, figure_dir)
        except Exception as error:  # re-raised, naming the results the figures came from
            sources = ", ".join(str(run.path / "results.json") for run in group)
            raise ValueError(
                f"the {benchmark} figures cannot be drawn from {sources}: "
                f"{type(error).__name__}: {error}"
            ) from error
        all_figures += [f.path for f in figures]
        comparison_md, notes = _comparisons(group, resamples, seed) if len(group) > 1 else ("", [])
        run_sections = [(run.label, reporter.run_markdown(run)) for run in group]
        papers_md = published_markdown(group) if published else ""

        markdown_parts += [f"## {heading}", ""]
        if summary.strip():  # no heading over nothing
            markdown_parts += ["### Summary", "", summary, ""]
        for note in notes:  # a paragraph each (one line each would run together)
            markdown_parts += [note, ""]
        if comparison_md:
            markdown_parts += [comparison_md, ""]
        if papers_md:
            markdown_parts += [papers_md, ""]
        if figures:
            markdown_parts += ["### Figures", "", _figures_markdown(figures, out)]
        markdown_parts += ["### Runs", ""]
        for _, section in run_sections:
            markdown_parts += [demote_headings(section, 3), ""]

        blocks.append(
            BenchmarkBlock(
                anchor=f"benchmark-{slug(benchmark)}",
                title=heading,
                summary_html=md.to_html(summary),
                comparison_html=md.to_html(comparison_md, heading_offset=0),
                published_html=md.to_html(papers_md),
                figures=[FigureBlock(f.title, f.path, f.caption) for f in figures],
                runs=[
                    (label, md.to_html(section, _image_resolver(run), heading_offset=3))
                    for (label, section), run in zip(run_sections, group)
                ],
                notes=notes,
            )
        )

    html_path = out / "report.html"
    markdown_path = out / "report.md"
    _write_text(html_path, render_page(title, blocks, runs, max_samples, __version__))
    _write_text(markdown_path, "\n".join(markdown_parts).rstrip() + "\n")
    return ReportFiles(html_path, markdown_path, tuple(all_figures))
