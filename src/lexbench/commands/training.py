"""Command-line parts every fine-tuning experiment shares: the training options (each
paper's hyperparameters are the defaults; every one is an option), the config they make,
where the fine-tuned model goes, and what a finished run prints. Each benchmark registers
its own `lexbench finetune NAME` with these (see `lexbench.benchmarks.scan.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import positive_int
from lexbench.commands.numbers import (
    DROPOUT,
    EPOCHS,
    FRACTION,
    LEARNING_RATE,
    NON_NEGATIVE,
    POSITIVE,
    SEED,
    IntOrWord,
)

#: `--eval-every`: "epoch" or a number of steps.
eval_every = IntOrWord("epoch", POSITIVE)


def add_training_arguments(parser: argparse.ArgumentParser, defaults: str) -> None:
    group = parser.add_argument_group("training", f"defaults: {defaults}")
    group.add_argument("--learning-rate", type=LEARNING_RATE, default=None)
    group.add_argument("--batch-size", type=positive_int, default=None, help="per device")
    group.add_argument("--epochs", type=EPOCHS, default=None)
    group.add_argument(
        "--max-steps",
        type=POSITIVE,
        default=None,
        help="stop after this many optimiser steps (overrides --epochs)",
    )
    group.add_argument(
        "--seed", type=SEED, default=None, help="seeds initialisation, data order and dropout"
    )
    group.add_argument("--weight-decay", type=FRACTION, default=None)
    group.add_argument("--warmup-steps", type=NON_NEGATIVE, default=None)
    group.add_argument("--lr-scheduler", default=None, help="transformers scheduler name (linear)")
    group.add_argument("--optimizer", default=None, help="transformers optim name (adamw_torch)")
    group.add_argument("--gradient-accumulation", type=positive_int, default=None)
    group.add_argument(
        "--eval-every",
        type=eval_every,
        default=None,
        help="'epoch' or N steps: validation and a checkpoint each time",
    )
    group.add_argument("--eval-batch-size", type=positive_int, default=None)
    group.add_argument("--logging-steps", type=positive_int, default=None)
    group.add_argument(
        "--save-total-limit",
        type=positive_int,
        default=None,
        help="checkpoints kept (the best one always)",
    )
    group.add_argument(
        "--device",
        choices=["auto", "cpu", "cuda", "mps"],
        default=None,
        help="auto: a GPU when there is one; one GPU of several: CUDA_VISIBLE_DEVICES",
    )
    group.add_argument(
        "--precision",
        choices=["fp32", "bf16", "fp16"],
        default=None,
        help="mixed precision on GPUs (fp32 default)",
    )
    group.add_argument(
        "--no-deterministic",
        action="store_true",
        help="allow non-deterministic GPU kernels (faster; runs may differ)",
    )
    lora = parser.add_argument_group("LoRA (peft)")
    lora.add_argument("--lora", action="store_true", help="train LoRA adapters, merged on save")
    lora.add_argument("--lora-r", type=positive_int, default=8)
    lora.add_argument("--lora-alpha", type=positive_int, default=16)
    lora.add_argument("--lora-dropout", type=DROPOUT, default=0.05)
    lora.add_argument(
        "--lora-targets", default="all-linear", help="module names, comma-separated, or all-linear"
    )
    run = parser.add_argument_group("run")
    run.add_argument("--output", type=Path, default=None, help="the fine-tuned model's folder")
    run.add_argument(
        "--restart",
        action="store_true",
        help="delete the output's checkpoints and start over instead of resuming",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")


def training_config(args: argparse.Namespace, paper_config: Any) -> Any:
    from lexbench.finetune.lora import LoraSettings

    lora = (
        LoraSettings(
            r=args.lora_r,
            alpha=args.lora_alpha,
            dropout=args.lora_dropout,
            target_modules=args.lora_targets,
        )
        if args.lora
        else None
    )
    return paper_config(
        learning_rate=args.learning_rate,
        batch_size=args.batch_size,
        epochs=args.epochs,
        max_steps=args.max_steps,
        seed=args.seed,
        weight_decay=args.weight_decay,
        warmup_steps=args.warmup_steps,
        lr_scheduler=args.lr_scheduler,
        optimizer=args.optimizer,
        gradient_accumulation=args.gradient_accumulation,
        eval_every=args.eval_every,
        eval_batch_size=args.eval_batch_size,
        logging_steps=args.logging_steps,
        save_total_limit=args.save_total_limit,
        device=args.device,
        precision=args.precision,
        deterministic=False if args.no_deterministic else None,
        lora=lora,
    )


def output_folder(args: argparse.Namespace, experiment: str) -> Path:
    if args.output is not None:
        return args.output
    from lexbench.run.store import slug

    return Path("finetuned") / experiment / slug(args.model)


def finished(result: Any) -> int:
    if not result.lineage:
        return 0  # a secondary process of accelerate launch: the main one reports
    best = result.outcome.best_validation()
    print(
        f"best validation {best['metric']}: {best['value']} at step {best['step']} "
        f"of {result.outcome.global_step}"
    )
    print(f"model: {result.lineage['spec']}")
    return 0
