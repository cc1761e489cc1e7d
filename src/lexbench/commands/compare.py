"""`lexbench compare RUN_A RUN_B ...`: paired tests on shared items and a leaderboard.

Items are paired by id and question (runs of differently generated items are refused);
runs made from different datasets are compared with a warning on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import add_published_argument
from lexbench.commands.numbers import RESAMPLES, RESAMPLES_OR_NONE, SEED
from lexbench.terminal import terminal_text

SUFFIX_FORMATS = {
    ".csv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".tex": "latex",
    ".json": "json",
    ".txt": "text",
}


def output_format(requested: str | None, output: Path | None) -> str:
    """--format, else the output file's suffix, else plain text."""
    if requested:
        return requested
    if output is None:
        return "text"
    try:
        return SUFFIX_FORMATS[output.suffix.lower()]
    except KeyError:
        raise ValueError(
            f"cannot tell the format from {output.name!r}; pass --format "
            f"(csv, markdown, latex, json, text)"
        ) from None


def _compare(args: argparse.Namespace) -> int:
    from lexbench.report import compare, compare_format
    from lexbench.report.paper_tests import paper_tests
    from lexbench.report.runs import load_runs

    fmt = output_format(args.format, args.output)
    runs = load_runs(args.runs)
    benchmark = compare.check_same_benchmark(runs) if runs else ""
    paper = paper_tests(benchmark, args.paper_resamples, args.paper_two_sided)
    result = compare.compare_runs(
        runs, resamples=args.resamples, seed=args.seed, baseline=args.baseline, paper=paper
    )
    for warning in result.warnings:  # loud, whatever the output format
        print(f"lexbench: WARNING: {terminal_text(warning)}", file=sys.stderr)
    papers = _published(runs, fmt) if args.published else ""  # never in a paired test
    if fmt == "csv":
        texts = {
            "comparisons": compare_format.comparisons_csv(result),
            "leaderboard": compare_format.leaderboard_csv(result),
        }
        if args.output is None:
            tail = "\n" + papers if papers else ""
            print(texts["comparisons"] + "\n" + texts["leaderboard"] + tail, end="")
            return 0
        leaderboard_path = args.output.with_name(
            f"{args.output.stem}.leaderboard{args.output.suffix}"
        )
        _write(args.output, texts["comparisons"])
        _write(leaderboard_path, texts["leaderboard"])
        written = f"wrote {args.output} (paired comparisons) and {leaderboard_path} (leaderboard)"
        if papers:
            published_path = args.output.with_name(
                f"{args.output.stem}.published{args.output.suffix}"
            )
            _write(published_path, papers)
            written += f" and {published_path} (published rows, not re-run)"
        print(written)
        return 0
    if fmt == "json":
        record = result.to_dict()
        if args.published:
            from lexbench.report.published_board import compare_records

            record["published"] = compare_records(runs)
        text = compare_format.json_text(record)  # strict JSON: null where no number
    else:
        text = {
            "text": compare_format.to_text,
            "markdown": compare_format.to_markdown,
            "latex": compare_format.to_latex,
        }[fmt](result)
        text += "\n" + papers if papers else ""
    if args.output is None:
        print(text, end="" if text.endswith("\n") else "\n")
    else:
        _write(args.output, text)
        print(f"wrote {args.output}")
    return 0


def _published(runs: Any, fmt: str) -> str:
    """The papers' rows beside these runs in `fmt` (json is added to the record instead)."""
    from lexbench.report.published_board import compare_csv, compare_latex
    from lexbench.report.published_format import published_markdown

    if fmt == "csv":
        return compare_csv(runs)
    if fmt == "latex":
        return compare_latex(runs)
    return published_markdown(runs, level=2) if fmt in ("text", "markdown") else ""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def register(cli: Any) -> None:
    parser = cli.command(
        "compare",
        "paired tests between runs of one benchmark (exact McNemar, paired "
        "permutation, bootstrap intervals) and a leaderboard",
        _compare,
    )
    parser.add_argument(
        "runs",
        nargs="+",
        type=Path,
        metavar="RUN",
        help="two or more run folders of the same benchmark (or directories holding them)",
    )
    parser.add_argument(
        "--format",
        choices=["text", "csv", "markdown", "latex", "json"],
        default=None,
        help="output format (default: from -o's suffix, else text)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="write here instead of stdout (CSV also writes STEM.leaderboard.csv)",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        help="compare every run against this one (label or folder) instead of all pairs",
    )
    parser.add_argument(
        "--resamples",
        type=RESAMPLES,
        default=10_000,
        help="permutation and bootstrap resamples (default 10000)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seed for resampling (default 0)")
    parser.add_argument(
        "--paper-resamples",
        type=RESAMPLES_OR_NONE,
        default=None,
        metavar="N",
        help="resamples of the tests the benchmark's paper used, shown beside the paired "
        "ones (SCAN, Google, BATS, pairs: the SCAN paper's unpaired permutation test, "
        "default its 1000000); 0 leaves them out",
    )
    parser.add_argument(
        "--paper-two-sided",
        choices=["doubled", "absolute"],
        default="doubled",
        help="two-sided p of the paper's permutation test: doubled, twice the smaller "
        "one-sided p as scipy.stats.permutation_test (the authors' call; default), or "
        "absolute, the share of re-splits with |difference| >= the observed one",
    )
    add_published_argument(parser)
