"""`lexbench finetune ...`: the papers' fine-tuning experiments, and their tables.

    lexbench finetune scan-bats --model smollm2-135m --data BATS_3.0.zip --output ft/bats
    lexbench finetune ekar-qa --model all-minilm-l6-v2 --data DIR --output ft/ekar-qa
    lexbench finetune ekar-qa --model roberta-large --input-format explanations --output ft/qa-expl
    lexbench finetune ekar-explain --model hf:facebook/bart-large --data DIR --output ft/eg
    lexbench finetune table ft/bats                      # SCAN Table 4 (before/after, tests)
    lexbench finetune table ft/ekar-qa                   # E-KAR accuracy per meta-relation
    lexbench finetune table ft/eg --qa-model ft/qa-expl  # E-KAR Table 3: EG metrics, Acc(Δ)

Defaults are each paper's hyperparameters; every one is an option. Rerunning a killed
command resumes from its last checkpoint (`--restart` starts over). Several GPUs or
machines: `accelerate launch -m lexbench.cli finetune ...` (see the README, Fine-tuning experiments).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.common import positive_int


def _eval_every(text: str) -> str | int:
    if text == "epoch":
        return text
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 'epoch' or a positive number of steps, got {text}")
    return value


def _add_training_arguments(parser: argparse.ArgumentParser, defaults: str) -> None:
    group = parser.add_argument_group("training", f"defaults: {defaults}")
    group.add_argument("--learning-rate", type=float, default=None)
    group.add_argument("--batch-size", type=positive_int, default=None, help="per device")
    group.add_argument("--epochs", type=float, default=None)
    group.add_argument("--max-steps", type=int, default=None,
                       help="stop after this many optimiser steps (overrides --epochs)")
    group.add_argument("--seed", type=int, default=None,
                       help="seeds initialisation, data order and dropout")
    group.add_argument("--weight-decay", type=float, default=None)
    group.add_argument("--warmup-steps", type=int, default=None)
    group.add_argument("--lr-scheduler", default=None, help="transformers scheduler name (linear)")
    group.add_argument("--optimizer", default=None, help="transformers optim name (adamw_torch)")
    group.add_argument("--gradient-accumulation", type=positive_int, default=None)
    group.add_argument("--eval-every", type=_eval_every, default=None,
                       help="'epoch' or N steps: validation and a checkpoint each time")
    group.add_argument("--eval-batch-size", type=positive_int, default=None)
    group.add_argument("--logging-steps", type=positive_int, default=None)
    group.add_argument("--save-total-limit", type=positive_int, default=None,
                       help="checkpoints kept (the best one always)")
    group.add_argument("--device", choices=["auto", "cpu", "cuda", "mps"], default=None,
                       help="auto: a GPU when there is one; one GPU of several: CUDA_VISIBLE_DEVICES")
    group.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default=None,
                       help="mixed precision on GPUs (fp32 default)")
    group.add_argument("--no-deterministic", action="store_true",
                       help="allow non-deterministic GPU kernels (faster; runs may differ)")
    lora = parser.add_argument_group("LoRA (peft)")
    lora.add_argument("--lora", action="store_true", help="train LoRA adapters, merged on save")
    lora.add_argument("--lora-r", type=positive_int, default=8)
    lora.add_argument("--lora-alpha", type=positive_int, default=16)
    lora.add_argument("--lora-dropout", type=float, default=0.05)
    lora.add_argument("--lora-targets", default="all-linear",
                      help="module names, comma-separated, or all-linear")
    run = parser.add_argument_group("run")
    run.add_argument("--output", type=Path, default=None, help="the fine-tuned model's folder")
    run.add_argument("--restart", action="store_true",
                     help="delete the output's checkpoints and start over instead of resuming")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")


def _config(args: argparse.Namespace, paper_config: Any) -> Any:
    from lexbench.finetune.trainer import LoraSettings

    lora = (LoraSettings(r=args.lora_r, alpha=args.lora_alpha, dropout=args.lora_dropout,
                         target_modules=args.lora_targets) if args.lora else None)
    return paper_config(
        learning_rate=args.learning_rate, batch_size=args.batch_size, epochs=args.epochs,
        max_steps=args.max_steps, seed=args.seed, weight_decay=args.weight_decay,
        warmup_steps=args.warmup_steps, lr_scheduler=args.lr_scheduler, optimizer=args.optimizer,
        gradient_accumulation=args.gradient_accumulation, eval_every=args.eval_every,
        eval_batch_size=args.eval_batch_size, logging_steps=args.logging_steps,
        save_total_limit=args.save_total_limit, device=args.device, precision=args.precision,
        deterministic=False if args.no_deterministic else None, lora=lora)


def _output(args: argparse.Namespace, experiment: str) -> Path:
    if args.output is not None:
        return args.output
    from lexbench.run.store import slug

    return Path("finetuned") / experiment / slug(args.model)


def _finished(result: Any) -> int:
    if not result.lineage:
        return 0   # a secondary process of accelerate launch: the main one reports
    best = result.outcome.best_validation()
    print(f"best validation {best['metric']}: {best['value']} at step {best['step']} "
          f"of {result.outcome.global_step}")
    print(f"model: {result.lineage['spec']}")
    return 0


def _scan_bats(args: argparse.Namespace) -> int:
    from lexbench.finetune.scan_bats import finetune_scan_bats, paper_config

    result = finetune_scan_bats(
        args.model, data=args.data, output=_output(args, "scan-bats"),
        config=_config(args, paper_config), split_seed=args.split_seed, loss_on=args.loss_on,
        validation_limit=args.validation_limit, train_limit=args.train_limit,
        restart=args.restart, progress=not args.no_progress)
    return _finished(result)


def _ekar_qa(args: argparse.Namespace) -> int:
    from lexbench.finetune.ekar_qa import finetune_ekar_qa, paper_config

    result = finetune_ekar_qa(
        args.model, output=_output(args, "ekar-qa"), data=args.data, language=args.language,
        mode=args.mode, input_format=args.input_format, train_split=args.train_split,
        eval_split=args.eval_split, revision=args.data_revision,
        config=_config(args, paper_config), max_length=args.max_length, dropout=args.dropout,
        restart=args.restart, progress=not args.no_progress)
    return _finished(result)


def _ekar_explain(args: argparse.Namespace) -> int:
    from lexbench.finetune.ekar_generator import finetune_ekar_explain, paper_config

    result = finetune_ekar_explain(
        args.model, output=_output(args, "ekar-explain"), data=args.data, language=args.language,
        mode=args.mode, train_split=args.train_split, eval_split=args.eval_split,
        revision=args.data_revision, config=_config(args, paper_config),
        max_length=args.max_length, restart=args.restart, progress=not args.no_progress)
    return _finished(result)


def _table(args: argparse.Namespace) -> int:
    from lexbench.finetune.lineage import read_lineage

    lineage = read_lineage(args.folder)
    if lineage is None:
        raise ValueError(f"{args.folder} has no lexbench-lineage.json: give a folder written by "
                         "lexbench finetune")
    experiment = lineage["experiment"]
    if experiment == "scan-bats":
        from lexbench.finetune.scan_table import scan_bats_table

        table = scan_bats_table(args.folder, base=args.base, bats=args.bats, scan=args.scan,
                                scan_limit=args.scan_limit, bats_limit=args.bats_limit,
                                resamples=args.resamples, seed=args.test_seed,
                                unpaired_resamples=args.unpaired_resamples, out=args.out,
                                progress=not args.no_progress)
    elif experiment == "ekar-qa":
        from lexbench.finetune.ekar_qa import ekar_qa_table

        table = ekar_qa_table(args.folder, split=args.split, data=args.data,
                              revision=args.data_revision, device=args.device, out=args.out)
    elif experiment == "ekar-explain":
        if args.qa_model is None:
            raise ValueError("the Acc(Δ) table needs --qa-model DIR: a classifier from lexbench "
                             "finetune ekar-qa --input-format explanations")
        from lexbench.finetune.ekar_accdelta import accdelta_table

        table = accdelta_table(args.folder, args.qa_model, split=args.split, data=args.data,
                               revision=args.data_revision, max_new_tokens=args.max_new_tokens,
                               use_similarity=not args.no_similarity,
                               bertscore_model=args.bertscore_model, device=args.device,
                               out=args.out)
    else:
        raise ValueError(f"{args.folder}: unknown experiment {experiment!r} in its lineage")
    print(table["report"])
    print(f"run folder: {table['folder']}")
    return 0


def _add_ekar_data(parser: argparse.ArgumentParser) -> None:
    data = parser.add_argument_group("data")
    data.add_argument("--data", type=Path, default=None,
                      help="folder with train.json/validation.json/test.json (default: the Hub)")
    data.add_argument("--data-revision", default="v1.1", help="v1.1 (default), v1.0, or a commit")
    data.add_argument("--language", choices=["en", "zh"], default="en")
    data.add_argument("--mode", choices=["hard", "easy"], default="hard",
                      help="easy: the query's gold explanation is part of the input")
    data.add_argument("--train-split", choices=["train", "validation"], default="train",
                      help="validation: train on the development split, as the paper does "
                           "for sets without a training split")
    data.add_argument("--eval-split", choices=["train", "validation"], default="validation",
                      help="the split that picks the best checkpoint")


def register(cli: Any) -> None:
    scan = cli.benchmark_command("finetune", "scan-bats",
                                 "SCAN's training-set effect: fine-tune a causal or masked LM on "
                                 "BATS (70/15/15 by word pair)", _scan_bats)
    scan.add_argument("--model", required=True,
                      help="smollm2-135m, hf:PATH|HUB_ID (causal) or mlm:PATH|HUB_ID (masked)")
    scan.add_argument("--data", type=Path, default=None,
                      help="BATS 3.0 zip or folder (default: downloaded once and checked)")
    scan.add_argument("--split-seed", type=int, default=101, help="the paper code's seed (101)")
    scan.add_argument("--loss-on", choices=["sequence", "answer"], default="sequence",
                      help="sequence: every token, as the paper's code; answer: d's token only")
    scan.add_argument("--validation-limit", type=positive_int, default=None,
                      help="score at most N validation analogies (seeded sample)")
    scan.add_argument("--train-limit", type=positive_int, default=None,
                      help="train on at most N analogies (seeded sample)")
    _add_training_arguments(scan, "AdamW (weight decay 0.01), lr 5e-5 constant, batch 16, 4 "
                                  "epochs, validation MRR@10 every 1,000 steps, seed 101")

    qa = cli.benchmark_command("finetune", "ekar-qa",
                               "E-KAR's fine-tuned QA baseline: encoder + MLP + softmax over the "
                               "candidates", _ekar_qa)
    qa.add_argument("--model", required=True,
                    help="an encoder: all-minilm-l6-v2 (packaged), a folder, or a Hub id")
    qa.add_argument("--input-format", choices=["request", "explanations"], default="request",
                    help="request: as lexbench run ekar asks; explanations: Appendix A.1's "
                         "Acc(Δ) input with gold explanations")
    qa.add_argument("--max-length", type=positive_int, default=256, help="tokens per choice")
    qa.add_argument("--dropout", type=float, default=0.1, help="in the MLP head")
    _add_ekar_data(qa)
    _add_training_arguments(qa, "transformers' defaults (AdamW, lr 5e-5, batch 8, 3 epochs, "
                                "seed 42), validation accuracy every epoch")

    explain = cli.benchmark_command("finetune", "ekar-explain",
                                    "E-KAR's explanation generator (seq2seq or causal LM)",
                                    _ekar_explain)
    explain.add_argument("--model", required=True,
                         help="smollm2-135m, hf:PATH|HUB_ID: a causal LM or a BART/T5")
    explain.add_argument("--max-length", type=positive_int, default=512, help="tokens per example")
    _add_ekar_data(explain)
    _add_training_arguments(explain, "transformers' defaults (AdamW, lr 5e-5, batch 8, 3 "
                                     "epochs, seed 42), validation loss every epoch")

    table = cli.benchmark_command("finetune", "table",
                                  "the paper's table for a fine-tuned folder (its lineage says which)",
                                  _table)
    table.add_argument("folder", type=Path, help="a folder written by lexbench finetune")
    table.add_argument("--out", type=Path, default=Path("runs"), help="root of the run folders")
    table.add_argument("--no-progress", action="store_true")
    scan_group = table.add_argument_group("scan-bats")
    scan_group.add_argument("--base", default=None, help="the model before (default: the lineage's)")
    scan_group.add_argument("--bats", type=Path, default=None, help="default: the lineage's data")
    scan_group.add_argument("--scan", type=Path, default=None,
                            help="SCAN_dataset.csv (default: downloaded once and checked)")
    scan_group.add_argument("--scan-limit", type=positive_int, default=None)
    scan_group.add_argument("--bats-limit", type=positive_int, default=None)
    scan_group.add_argument("--resamples", type=positive_int, default=100_000,
                            help="resamples of lexbench's paired tests (default 100000)")
    scan_group.add_argument("--unpaired-resamples", type=positive_int, default=1_000_000,
                            help="resamples of the paper's unpaired test (default 1000000)")
    scan_group.add_argument("--test-seed", type=int, default=0)
    ekar = table.add_argument_group("ekar-qa, ekar-explain")
    ekar.add_argument("--split", choices=["train", "validation", "test"], default="test")
    ekar.add_argument("--data", type=Path, default=None, help="default: the lineage's data")
    ekar.add_argument("--data-revision", default="v1.1")
    ekar.add_argument("--device", default="cpu")
    ekar.add_argument("--qa-model", type=Path, default=None,
                      help="ekar-explain: the Acc(Δ) QA model (ekar-qa --input-format explanations)")
    ekar.add_argument("--max-new-tokens", type=positive_int, default=64)
    ekar.add_argument("--no-similarity", action="store_true")
    ekar.add_argument("--bertscore-model", default=None)
