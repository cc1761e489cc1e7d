"""`lexbench export NAME --format hf|lm-eval|inspect`, shared by every benchmark's export
command: the benchmark built with the given options (`lexbench.export.rows`), written in
the chosen format, and the line that says how to use it, its paths shell-quoted.

    lexbench export scan --format inspect -o scan-inspect
"""

from __future__ import annotations

import shlex
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
    """Write `benchmark` (built with `options`) as `fmt` to `output`; returns what to print."""
    from lexbench.export.lm_eval import task_name

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
        from lexbench.export.rows import export_set

        exported = export_set(benchmark, options)
        out = write_lm_eval_task(output, exported)
        return (
            f"wrote an lm-eval task for {len(exported.rows)} items to {out}; run it with\n"
            f"  lm_eval --include_path {shlex.quote(str(out))} --tasks "
            f"{shlex.quote(task_name(benchmark))} --model hf --model_args pretrained=MODEL"
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
            f"wrote an inspect_ai task for {len(exported.rows)} items to {out}; run it with\n"
            f"  inspect eval {shlex.quote(str(out / 'task.py'))} --model hf/MODEL"
        )
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
