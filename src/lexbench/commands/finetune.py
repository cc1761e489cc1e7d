"""`lexbench finetune ...`: the papers' fine-tuning experiments, and their tables.

    lexbench finetune scan-bats --model smollm2-135m --data BATS_3.0.zip --output ft/bats
    lexbench finetune ekar-qa --model all-minilm-l6-v2 --data DIR --output ft/ekar-qa
    lexbench finetune ekar-qa --model roberta-large --input-format explanations --output ft/qa-expl
    lexbench finetune ekar-explain --model hf:facebook/bart-large --data DIR --output ft/eg
    lexbench finetune table ft/bats                      # SCAN Table 4 (before/after, tests)
    lexbench finetune table ft/ekar-qa                   # E-KAR accuracy per meta-relation
    lexbench finetune table ft/eg --qa-model ft/qa-expl  # E-KAR Table 3: EG metrics, Acc(Δ)

Each benchmark registers its own experiments (`lexbench finetune NAME`, in its `cli`
module) and says, through `BenchmarkSpec.finetune_tables`, which tables it makes of their
folders; `finetune table` reads a folder's lineage and asks the benchmark that made it.
Defaults are each paper's hyperparameters; every one is an option. Rerunning a killed
command resumes from its last checkpoint (`--restart` starts over). Several GPUs or
machines: `accelerate launch -m lexbench.cli finetune ...` (see the docs, Fine-tuning).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def _table(args: argparse.Namespace) -> int:
    from lexbench import plugins
    from lexbench.finetune.lineage import read_lineage

    lineage = read_lineage(args.folder)
    if lineage is None:
        raise ValueError(
            f"{args.folder} has no lexbench-lineage.json: give a folder written by "
            "lexbench finetune"
        )
    experiment = lineage["experiment"]
    for spec in plugins.benchmarks():
        tables = spec.finetune_tables
        if tables is not None and experiment in tables.experiments:
            table = tables.table(args.folder, experiment, args)
            break
    else:
        raise ValueError(
            f"{args.folder}: unknown experiment {experiment!r} in its lineage "
            "(no registered benchmark makes its table)"
        )
    print(table["report"])
    print(f"run folder: {table['folder']}")
    return 0


def register(cli: Any) -> None:
    from lexbench import plugins

    table = cli.benchmark_command(
        "finetune",
        "table",
        "the paper's table for a fine-tuned folder (its lineage says which)",
        _table,
    )
    table.add_argument("folder", type=Path, help="a folder written by lexbench finetune")
    table.add_argument("--out", type=Path, default=Path("runs"), help="root of the run folders")
    table.add_argument("--no-progress", action="store_true")
    for spec in plugins.benchmarks():
        if spec.finetune_tables is not None:
            spec.finetune_tables.add_arguments(table)
