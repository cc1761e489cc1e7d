"""`lexbench leaderboard`: one table per benchmark across run folders, each run's headline
metric with its 95% interval."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import add_published_argument, add_runs_argument, runs_or_default
from lexbench.terminal import terminal_text


def _leaderboard(args: argparse.Namespace) -> int:
    from lexbench.report.leaderboard import to_csv, to_markdown
    from lexbench.report.published_board import leaderboard_tables

    tables, notes = leaderboard_tables(runs_or_default(args.runs), args.published)
    text = to_csv(tables) if args.format == "csv" else to_markdown(tables, notes)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        print(terminal_text(text))
    return 0


def register(cli: Any) -> None:
    board = cli.command(
        "leaderboard",
        "one table per benchmark across run folders: the headline metric with its 95%% interval",
        _leaderboard,
    )
    add_runs_argument(board, "runs/lambda")
    board.add_argument("--format", choices=["md", "csv"], default="md")
    board.add_argument("-o", "--output", type=Path, default=None, help="write to this file")
    add_published_argument(board)
