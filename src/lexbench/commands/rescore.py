"""`lexbench rescore RUN`: score a run folder's recorded raw outputs again (any benchmark),
without asking the model."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.terminal import terminal_text


def _rescore(args: argparse.Namespace) -> int:
    from lexbench.run.rescore import rescore_run

    rescored = rescore_run(args.run, write=args.write)
    print(terminal_text(rescored.report))
    print(
        f"{rescored.changed} of {rescored.items} items changed verdict or value"
        + ("; run folder updated" if args.write else " (use --write to update the run folder)")
    )
    return 0


def register(cli: Any) -> None:
    rescore = cli.command(
        "rescore",
        "score a run folder's recorded raw outputs again (any benchmark), without asking the model",
        _rescore,
    )
    rescore.add_argument("run", type=Path, help="a run folder")
    rescore.add_argument(
        "--write",
        action="store_true",
        help="replace the folder's samples, results, report and figures",
    )
