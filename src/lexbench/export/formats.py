"""Writing a benchmark in another tool's format (`lexbench export NAME --format
hf|lm-eval|inspect`, shared by every benchmark's export command): the benchmark built with
the given options (`lexbench.export.rows`), written in the chosen format, and the line that
says how to use it, its paths shell-quoted. The command lines are `lexbench.commands.export`.

    lexbench export scan --format inspect -o scan-inspect
"""

from __future__ import annotations

from collections.abc import Mapping
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
    from lexbench.heartbeat import long_step
    from lexbench.terminal import terminal_text

    # Building the items (WordNet's index, a grid) and writing them: said when it is long.
    with long_step(f"exporting {benchmark} as {fmt} to {output}"):
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


LOG_FORMATS = ("inspect",)
