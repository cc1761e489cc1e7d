"""`lexbench report RUN... -o DIR`: a self-contained HTML page plus Markdown."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import (
    add_published_argument,
    add_runs_argument,
    positive_int,
    runs_or_default,
)
from lexbench.commands.numbers import RESAMPLES, SEED


def _report(args: argparse.Namespace) -> int:
    from lexbench.report.build import build_report

    limit = None if args.all_samples else args.max_samples
    files = build_report(
        runs_or_default(args.runs),
        args.output,
        title=args.title,
        max_samples=limit,
        resamples=args.resamples,
        seed=args.seed,
        published=args.published,
    )
    print(
        f"wrote {files.html} (self-contained), {files.markdown} and "
        f"{len(files.figures)} figure(s) under {files.html.parent / 'figures'}"
    )
    return 0


def register(cli: Any) -> None:
    parser = cli.command(
        "report", "turn run folders into one self-contained HTML page plus Markdown", _report
    )
    add_runs_argument(parser, "runs/lambda")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=Path,
        metavar="DIR",
        help="output folder: report.html, report.md, figures/",
    )
    parser.add_argument("--title", default="lexbench report", help="page title")
    parser.add_argument(
        "--max-samples",
        type=positive_int,
        default=2000,
        help="samples per run embedded in the browser (a seeded random subset "
        "when a run has more; default 2000)",
    )
    parser.add_argument(
        "--all-samples", action="store_true", help="embed every sample (large pages for large runs)"
    )
    parser.add_argument(
        "--resamples",
        type=RESAMPLES,
        default=10_000,
        help="bootstrap/permutation resamples for the comparison (default 10000)",
    )
    parser.add_argument("--seed", type=SEED, default=0, help="seed for resampling (default 0)")
    add_published_argument(parser)
