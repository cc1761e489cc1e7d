"""`lexbench finetune ekar-qa|ekar-explain` and E-KAR's `lexbench finetune table`: the
paper's fine-tuned QA baselines (Table 2) and explanation models (Table 3, Acc(Δ))."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.commands.arguments import positive_int
from lexbench.commands.numbers import DROPOUT, NEW_TOKENS
from lexbench.commands.training import finished, output_folder, training_config


def _ekar_qa(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.ekar.finetune_qa import finetune_ekar_qa, paper_config

    result = finetune_ekar_qa(
        args.model,
        output=output_folder(args, "ekar-qa"),
        data=args.data,
        language=args.language,
        mode=args.mode,
        input_format=args.input_format,
        train_split=args.train_split,
        eval_split=args.eval_split,
        revision=args.data_revision,
        config=training_config(args, paper_config),
        max_length=args.max_length,
        dropout=args.dropout,
        restart=args.restart,
        progress=not args.no_progress,
    )
    return finished(result)


def _ekar_explain(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.ekar.finetune_explain import finetune_ekar_explain, paper_config

    result = finetune_ekar_explain(
        args.model,
        output=output_folder(args, "ekar-explain"),
        data=args.data,
        language=args.language,
        mode=args.mode,
        train_split=args.train_split,
        eval_split=args.eval_split,
        revision=args.data_revision,
        config=training_config(args, paper_config),
        max_length=args.max_length,
        restart=args.restart,
        progress=not args.no_progress,
    )
    return finished(result)


def add_ekar_data(parser: argparse.ArgumentParser) -> None:
    data = parser.add_argument_group("data")
    data.add_argument(
        "--data",
        type=Path,
        default=None,
        help="folder with train.json/validation.json/test.json (default: the Hub)",
    )
    data.add_argument("--data-revision", default="v1.1", help="v1.1 (default), v1.0, or a commit")
    data.add_argument("--language", choices=["en", "zh"], default="en")
    data.add_argument(
        "--mode",
        choices=["hard", "easy"],
        default="hard",
        help="easy: the query's gold explanation is part of the input",
    )
    data.add_argument(
        "--train-split",
        choices=["train", "validation"],
        default="train",
        help="validation: train on the development split, as the paper does "
        "for sets without a training split",
    )
    data.add_argument(
        "--eval-split",
        choices=["train", "validation"],
        default="validation",
        help="the split that picks the best checkpoint",
    )


def register_finetune(cli: Any) -> None:
    """`lexbench finetune ekar-qa|ekar-explain`: the paper's fine-tuned baselines."""
    from lexbench.commands.training import add_training_arguments

    qa = cli.benchmark_command(
        "finetune",
        "ekar-qa",
        "E-KAR's fine-tuned QA baseline: encoder + MLP + softmax over the candidates",
        _ekar_qa,
    )
    qa.add_argument(
        "--model",
        required=True,
        help="an encoder: all-minilm-l6-v2 (packaged), a folder, or a Hub id",
    )
    qa.add_argument(
        "--input-format",
        choices=["request", "explanations"],
        default="request",
        help="request: as lexbench run ekar asks; explanations: Appendix A.1's "
        "Acc(Δ) input with gold explanations",
    )
    qa.add_argument("--max-length", type=positive_int, default=256, help="tokens per choice")
    qa.add_argument("--dropout", type=DROPOUT, default=0.1, help="in the MLP head")
    add_ekar_data(qa)
    add_training_arguments(
        qa,
        "transformers' defaults (AdamW, lr 5e-5, batch 8, 3 epochs, "
        "seed 42), validation accuracy every epoch",
    )

    explain = cli.benchmark_command(
        "finetune",
        "ekar-explain",
        "E-KAR's explanation generator (seq2seq or causal LM)",
        _ekar_explain,
    )
    explain.add_argument(
        "--model", required=True, help="smollm2-135m, hf:PATH|HUB_ID: a causal LM or a BART/T5"
    )
    explain.add_argument("--max-length", type=positive_int, default=512, help="tokens per example")
    add_ekar_data(explain)
    add_training_arguments(
        explain,
        "transformers' defaults (AdamW, lr 5e-5, batch 8, 3 "
        "epochs, seed 42), validation loss every epoch",
    )


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `lexbench finetune table` for ekar-qa and ekar-explain folders."""
    ekar = parser.add_argument_group("ekar-qa, ekar-explain")
    ekar.add_argument("--split", choices=["train", "validation", "test"], default="test")
    ekar.add_argument("--data", type=Path, default=None, help="default: the lineage's data")
    ekar.add_argument("--data-revision", default="v1.1")
    ekar.add_argument("--device", default="cpu")
    ekar.add_argument(
        "--qa-model",
        type=Path,
        default=None,
        help="ekar-explain: the Acc(Δ) QA model (ekar-qa --input-format explanations)",
    )
    ekar.add_argument(
        "--max-new-tokens",
        type=NEW_TOKENS,
        default=EXPLANATION_MAX_NEW_TOKENS,
        help="ekar-explain: the longest explanation generated, in new tokens (default "
        f"{EXPLANATION_MAX_NEW_TOKENS}, as in run ekar --task explain)",
    )
    ekar.add_argument("--no-similarity", action="store_true")
    ekar.add_argument("--bertscore-model", default=None)


def finetune_table(folder: Path, experiment: str, args: argparse.Namespace) -> dict[str, Any]:
    """Accuracy per meta-relation (ekar-qa) or Table 3, EG metrics and Acc(Δ) (ekar-explain)."""
    if experiment == "ekar-qa":
        from lexbench.benchmarks.ekar.finetune_qa_table import ekar_qa_table

        return ekar_qa_table(
            folder,
            split=args.split,
            data=args.data,
            revision=args.data_revision,
            device=args.device,
            out=args.out,
        )
    if args.qa_model is None:
        raise ValueError(
            "the Acc(Δ) table needs --qa-model DIR: a classifier from lexbench "
            "finetune ekar-qa --input-format explanations"
        )
    from lexbench.benchmarks.ekar.finetune_accdelta import accdelta_table

    return accdelta_table(
        folder,
        args.qa_model,
        split=args.split,
        data=args.data,
        revision=args.data_revision,
        max_new_tokens=args.max_new_tokens,
        use_similarity=not args.no_similarity,
        bertscore_model=args.bertscore_model,
        device=args.device,
        out=args.out,
    )
