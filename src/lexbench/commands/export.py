"""The export command lines every benchmark shares: `--verify MODEL` on each `lexbench export
NAME` (the written task run in its tool and the same items in lexbench, then their
agreement), and `lexbench export-log RUN... --format inspect -o DIR` (run folders as
inspect_ai eval logs). Writing the formats is `lexbench.export.formats`'s.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lexbench.export.formats import LOG_FORMATS


def add_verify_argument(parser: argparse.ArgumentParser) -> None:
    """`--verify MODEL` on every `lexbench export NAME` command."""
    parser.add_argument(
        "--verify",
        default=None,
        metavar="MODEL",
        help="after writing an lm-eval or inspect task, run it in that tool and the same "
        "items in lexbench on MODEL (smollm2-135m or a transformers folder), and print "
        "the agreement; exit 1 when they differ or the tool completed nothing",
    )


def with_verify(
    handler: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """An export command's handler, then the check `--verify` asks for."""

    def export_then_verify(args: argparse.Namespace) -> int:
        code = int(handler(args) or 0)
        model = getattr(args, "verify", None)
        if code or model is None:
            return code
        from lexbench.export.verify import verify

        agreement = verify(args.format, args.output, model)
        print("\n".join(agreement.lines()))
        return 1 if agreement.differing else 0

    return export_then_verify


def _export_log(args: argparse.Namespace) -> int:
    from lexbench.commands.arguments import runs_or_default
    from lexbench.export.inspect_log import write_inspect_logs
    from lexbench.heartbeat import long_step
    from lexbench.terminal import terminal_text

    with long_step(f"writing inspect logs to {args.output}"):  # many runs: said when long
        written = write_inspect_logs(runs_or_default(args.runs), args.output)
    lines = [f"wrote {len(written)} inspect_ai log(s) to {args.output}:"]
    lines += [f"  {path.name}" for path in written]
    lines.append(f"browse them with\n  inspect view --log-dir {shlex.quote(str(args.output))}")
    print(terminal_text("\n".join(lines)))
    return 0


def register(cli: Any) -> None:
    """`lexbench export-log RUN... --format inspect -o DIR`."""
    from lexbench.commands.arguments import add_runs_argument

    parser = cli.command(
        "export-log",
        "write run folders as other tools' logs (inspect: eval logs that `inspect view` opens)",
        _export_log,
    )
    add_runs_argument(parser, "runs/scan")
    parser.add_argument("--format", choices=LOG_FORMATS, default="inspect", help="the log format")
    parser.add_argument("-o", "--output", required=True, type=Path, help="output folder")
