"""`lexbench export NAME --format hf|lm-eval|inspect`, shared by every benchmark's export
command: the benchmark built with the given options (`lexbench.export.rows`), written in
the chosen format, and the line that says how to use it, its paths shell-quoted.

    lexbench export scan --format inspect -o scan-inspect
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

FORMATS = ("hf", "lm-eval", "inspect")
FORMAT_HELP = (
    "hf: a Hugging Face dataset (parquet + card, split 'test'); lm-eval: an "
    "lm-evaluation-harness task; inspect: an inspect_ai task (both scored by lexbench's "
    "own scorer)"
)


def export(benchmark: str, options: Mapping[str, Any], fmt: str, output: str | Path) -> str:
    """Write `benchmark` (built with `options`) as `fmt` to `output`; returns what to print
    (escape sequences in a path shown as escapes, not sent to the terminal)."""
    from lexbench.terminal import terminal_text

    return terminal_text(_export(benchmark, options, fmt, output))


def _export(benchmark: str, options: Mapping[str, Any], fmt: str, output: str | Path) -> str:
    from lexbench.export.tool_runs import printed_command

    if fmt == "hf":
        from lexbench.export.rows import export_set, write_hf

        exported = export_set(benchmark, options)
        out = write_hf(output, exported)
        return (
            f"wrote {len(exported.rows)} rows to {out} (split 'test'); load them with\n"
            f"  datasets.load_dataset({str(out)!r}, split='test')"
        )
    if fmt == "lm-eval":
        from lexbench.export.lm_eval import write_lm_eval_task
        from lexbench.export.lm_eval_mode import mode_note
        from lexbench.export.rows import export_set
        from lexbench.export.verify import RANK_NOTE

        exported = export_set(benchmark, options)
        out = write_lm_eval_task(output, exported)
        ranks = exported.requests and exported.requests[0][0].kind == "rank"
        return (
            f"wrote an lm-eval task for {len(exported.rows)} items to {out} "
            f"({exported.manifest['prompt_mode']} prompts); run it with\n"
            f"  {printed_command(fmt, out, exported.chat)}\n"
            f"{mode_note(exported.chat)}\n"
            "MODEL: a transformers folder or Hub id (README.md beside the task says the same)"
            + (f"\n{RANK_NOTE}" if ranks else "")
        )
    if fmt == "inspect":
        from lexbench import plugins
        from lexbench.export.inspect_task import INSPECT_KINDS, write_inspect_task
        from lexbench.export.rows import export_set

        needs = plugins.benchmark(benchmark).needs_any
        if needs and not set(needs) & set(INSPECT_KINDS):
            raise ValueError(
                f"{benchmark}: inspect_ai has no log-likelihood request, and {benchmark} needs "
                f"{' or '.join(needs)} requests; export it with --format lm-eval or hf"
            )
        exported = export_set(benchmark, options, kinds=INSPECT_KINDS)
        out = write_inspect_task(output, exported)
        return (
            f"wrote an inspect_ai task for {len(exported.rows)} items to {out} "
            f"({exported.manifest['prompt_mode']} prompts); run it with\n"
            f"  {printed_command(fmt, out, exported.chat)}\n"
            "MODEL: a transformers folder or Hub id (other providers: drop --model-config)"
        )
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


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


LOG_FORMATS = ("inspect",)


def _export_log(args: argparse.Namespace) -> int:
    from lexbench.commands.arguments import runs_or_default
    from lexbench.export.inspect_log import write_inspect_logs
    from lexbench.terminal import terminal_text

    written = write_inspect_logs(runs_or_default(args.runs), args.output)
    lines = [f"wrote {len(written)} inspect_ai log(s) to {args.output}:"]
    lines += [f"  {path.name}" for path in written]
    lines.append(f"browse them with\n  inspect view --log-dir {shlex.quote(str(args.output))}")
    print(terminal_text("\n".join(lines)))
    return 0


def register_export_log(cli: Any) -> None:
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
