"""`lexbench run scan`: one condition, or several conditions and a baseline in one report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.cli import (
    add_ranking_arguments,
    vector_model_options,
    vector_options,
)
from lexbench.commands.arguments import add_limit_argument, positive_int
from lexbench.commands.numbers import RESAMPLES, SEED
from lexbench.commands.requests import RunCommand
from lexbench.commands.training import finished, output_folder, training_config
from lexbench.plan import Condition, Outcome
from lexbench.request import RunRequest
from lexbench.terminal import terminal_text


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The builder options of `lexbench run scan` (its slice and data are shared); one
    `--shots` value is the run's, several are conditions (`_conditions`)."""
    return {"shots": args.shots[0], "seed": args.seed, "types": args.types, "method": args.method}


def _conditions(args: argparse.Namespace, request: RunRequest) -> list[Condition]:
    """One condition, or one per `--shots` value and the `--baseline` (one combined report)."""
    from lexbench.benchmarks.scan.conditions import check_shots, scan_conditions
    from lexbench.commands.arguments import one_model
    from lexbench.models.registry import split_spec

    check_shots(args.shots)
    if len(args.shots) == 1 and args.baseline is None:
        return [Condition("", request)]
    one_model(args, "lexbench run scan with several --shots or a --baseline")
    if args.sets or args.prompt_variant != "paper":
        raise ValueError(
            "--prompt-variant and --sets take one --shots value and no --baseline (one "
            "condition per run; run the conditions one at a time)"
        )
    if args.method is not None and split_spec(args.model)[0] != "vectors":
        raise ValueError(
            "--method applies to word-vector models; use --baseline-method for the baseline"
        )
    baseline_options = (
        vector_options(args) if args.baseline and split_spec(args.baseline)[0] == "vectors" else {}
    )
    return scan_conditions(
        request, args.shots, args.baseline, args.baseline_method, baseline_options
    )


def _finish(args: argparse.Namespace, outcome: Outcome) -> None:
    """Several conditions: their combined report; one: its report, as every run shows it."""
    from lexbench.benchmarks.scan.conditions import combine
    from lexbench.commands.outcome import show_runs

    if len(args.shots) == 1 and args.baseline is None:
        show_runs(outcome)
        return
    combined = combine(
        outcome.ran,
        resamples=args.resamples,
        unpaired_resamples=args.unpaired_resamples,
        seed=args.seed,
        out=args.out,
    )
    print(terminal_text(combined["report"]))
    print(f"combined report: {combined['folder']}/report.md")


def register(cli: Any) -> None:
    run = cli.run_command(
        "scan",
        "evaluate a model on SCAN (science and metaphor analogies, MRR@10)",
        RunCommand(
            _run_options,
            model_options=vector_model_options,
            conditions=_conditions,
            finish=_finish,
        ),
    )
    data = run.add_argument_group("dataset")
    data.add_argument(
        "--data", default=None, help="a SCAN_dataset.csv (default: the copy shipped with lexbench)"
    )
    add_limit_argument(data, "concept mapping (65 mappings)")
    data.add_argument(
        "--types",
        nargs="+",
        choices=["science", "metaphor"],
        default=None,
        help="only these analogy types",
    )
    add_ranking_arguments(run, shots_nargs="+")
    compare = run.add_argument_group("comparison")
    compare.add_argument(
        "--baseline",
        default=None,
        metavar="SPEC",
        help="also run this model (e.g. glove) and put it beside the others in one combined report",
    )
    compare.add_argument(
        "--baseline-method",
        default=None,
        choices=["3cosadd", "3cosmul", "pairdiff", "scan-paper"],
        help="the baseline's vector method (default scan-paper, the paper's)",
    )
    compare.add_argument(
        "--resamples",
        type=RESAMPLES,
        default=100_000,
        help="paired permutation resamples (default 100000)",
    )
    compare.add_argument(
        "--unpaired-resamples",
        type=RESAMPLES,
        default=1_000_000,
        help="resamples of the paper's unpaired permutation test (default 1000000, the paper's)",
    )
    register_finetune(cli)


# ------------------------------------------------------------------------------ fine-tuning


def _scan_bats(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.scan.finetune import finetune_scan_bats, paper_config

    result = finetune_scan_bats(
        args.model,
        data=args.data,
        output=output_folder(args, "scan-bats"),
        config=training_config(args, paper_config),
        split_seed=args.split_seed,
        loss_on=args.loss_on,
        validation_limit=args.validation_limit,
        train_limit=args.train_limit,
        restart=args.restart,
        progress=not args.no_progress,
    )
    return finished(result)


def register_finetune(cli: Any) -> None:
    """`lexbench finetune scan-bats`: the paper's training-set effect (Table 4)."""
    from lexbench.commands.training import add_training_arguments

    scan = cli.benchmark_command(
        "finetune",
        "scan-bats",
        "SCAN's training-set effect: fine-tune a causal or masked LM on "
        "BATS (70/15/15 by word pair)",
        _scan_bats,
    )
    scan.add_argument(
        "--model",
        required=True,
        help="smollm2-135m, hf:PATH|HUB_ID (causal) or mlm:PATH|HUB_ID (masked)",
    )
    scan.add_argument(
        "--data",
        type=Path,
        default=None,
        help="BATS 3.0 zip or folder (default: downloaded once and checked)",
    )
    scan.add_argument("--split-seed", type=SEED, default=101, help="the paper code's seed (101)")
    scan.add_argument(
        "--loss-on",
        choices=["sequence", "answer"],
        default="sequence",
        help="sequence: every token, as the paper's code; answer: d's token only",
    )
    scan.add_argument(
        "--validation-limit",
        type=positive_int,
        default=None,
        help="score at most N validation analogies (seeded sample)",
    )
    scan.add_argument(
        "--train-limit",
        type=positive_int,
        default=None,
        help="train on at most N analogies (seeded sample)",
    )
    add_training_arguments(
        scan,
        "AdamW (weight decay 0.01), lr 5e-5 constant, batch 16, 4 "
        "epochs, validation MRR@10 every 1,000 steps, seed 101",
    )


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `lexbench finetune table` for a scan-bats folder."""
    scan_group = parser.add_argument_group("scan-bats")
    scan_group.add_argument(
        "--base", default=None, help="the model before (default: the lineage's)"
    )
    scan_group.add_argument("--bats", type=Path, default=None, help="default: the lineage's data")
    scan_group.add_argument(
        "--scan",
        type=Path,
        default=None,
        help="SCAN_dataset.csv (default: downloaded once and checked)",
    )
    scan_group.add_argument("--scan-limit", type=positive_int, default=None)
    scan_group.add_argument("--bats-limit", type=positive_int, default=None)
    scan_group.add_argument(
        "--resamples",
        type=RESAMPLES,
        default=100_000,
        help="resamples of lexbench's paired tests (default 100000)",
    )
    scan_group.add_argument(
        "--unpaired-resamples",
        type=RESAMPLES,
        default=1_000_000,
        help="resamples of the paper's unpaired test (default 1000000)",
    )
    scan_group.add_argument("--test-seed", type=SEED, default=0)


def finetune_table(folder: Path, experiment: str, args: argparse.Namespace) -> dict[str, Any]:
    """SCAN's Table 4 for a folder written by `lexbench finetune scan-bats`."""
    from lexbench.benchmarks.scan.finetune_table import scan_bats_table

    return scan_bats_table(
        folder,
        base=args.base,
        bats=args.bats,
        scan=args.scan,
        scan_limit=args.scan_limit,
        bats_limit=args.bats_limit,
        resamples=args.resamples,
        seed=args.test_seed,
        unpaired_resamples=args.unpaired_resamples,
        out=args.out,
        progress=not args.no_progress,
    )
