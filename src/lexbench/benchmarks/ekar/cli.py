"""`lexbench run ekar`: E-KAR question answering or explanation generation.

    lexbench run ekar --model smollm2-135m --language en --split validation \\
        --mode hard --method loglikelihood --data tests/fixtures/ekar/english
    lexbench run ekar --model glove --method embedding --data DIR          # the paper's baseline
    lexbench run ekar --model vectors:cc.zh.300.vec --language zh --method embedding --data DIR
    lexbench run ekar --method contextual --encoder PATH --data DIR        # untuned BERT/RoBERTa
    lexbench run ekar --task explain --model smollm2-135m --data DIR       # E_Q / E_A generation

Without --data the split is downloaded once from the Hugging Face Hub (--data-revision v1.1, the
default, is the `main` branch; v1.0 is the paper's; a commit id pins the content) into the
lexbench cache; --endpoint (or $HF_ENDPOINT) points at a mirror.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.commands.arguments import add_limit_argument, positive_int
from lexbench.commands.numbers import LAYER, NEW_TOKENS
from lexbench.commands.requests import RunCommand
from lexbench.plan import Condition
from lexbench.request import RunRequest


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The builder options of `lexbench run ekar` (its slice and data are shared)."""
    common = {
        "task": args.task,
        "language": args.language,
        "split": args.split,
        "mode": args.mode,
        "revision": args.data_revision,
        "endpoint": args.endpoint,
    }
    if (args.method == "contextual") != (args.encoder is not None) and args.method is not None:
        raise ValueError(
            "--method contextual and --encoder PATH go together: the contextual "
            "baseline encodes terms with the transformers encoder at PATH"
        )
    if args.task == "qa":
        method = args.method or ("contextual" if args.encoder else None)
        return {**common, "method": method, "normalisation": args.normalisation}
    if args.encoder is not None or args.method in ("embedding", "contextual"):
        raise ValueError(
            f"explanation generation needs a text-generating model, not a "
            f"{args.method or 'contextual'} baseline"
        )
    return {
        **common,
        "similarity_model": args.similarity_model,
        "use_similarity": not args.no_similarity,
        "bertscore_model": args.bertscore_model,
        "bertscore_layers": args.bertscore_layers,
        "max_new_tokens": args.max_new_tokens,
        "prompt_format": args.eg_prompt,
        "bleurt_checkpoint": args.bleurt_checkpoint,
        "moverscore_model": args.moverscore_model,
    }


def _conditions(args: argparse.Namespace, request: RunRequest) -> list[Condition]:
    """With `--encoder PATH` the model is that encoder (`ekar-encoder:PATH`), in place of
    `--model`."""
    if args.encoder is None:
        return [Condition("", request)]
    from lexbench.commands.arguments import one_model

    one_model(args, "lexbench run ekar --encoder")
    encoder = replace(
        request,
        model=f"ekar-encoder:{args.encoder}",
        model_options={**request.model_options, "layer": args.encoder_layer},
    )
    return [Condition("", encoder, own_model=True)]


def register(cli: Any) -> None:
    run = cli.run_command(
        "ekar",
        "evaluate a model on E-KAR (analogy QA or explanation generation)",
        RunCommand(_run_options, conditions=_conditions),
    )
    data = run.add_argument_group("data")
    data.add_argument(
        "--language",
        choices=["en", "zh"],
        default="en",
        help="en: jiangjiechen/ekar_english; zh: jiangjiechen/ekar_chinese",
    )
    data.add_argument(
        "--split",
        choices=["train", "validation", "test"],
        default="validation",
        help="test may carry no labels (then only predictions are written)",
    )
    data.add_argument(
        "--data",
        type=Path,
        default=None,
        help="a local folder with train.json/validation.json/test.json in the "
        "Hub's layout (default: download from the Hub)",
    )
    data.add_argument(
        "--data-revision",
        default="v1.1",
        help="v1.1 (the Hub's main branch, default), v1.0 (the paper's "
        "branch), or a commit id to pin the files exactly",
    )
    data.add_argument(
        "--endpoint",
        default=None,
        help="Hub base URL (default $HF_ENDPOINT or https://huggingface.co)",
    )
    add_limit_argument(data, "meta-relation of the query (R1-R5, unknown)")
    task = run.add_argument_group("task")
    task.add_argument(
        "--task",
        choices=["qa", "explain"],
        default="qa",
        help="qa: pick the analogous candidate; explain: generate E_Q/E_A",
    )
    task.add_argument(
        "--mode",
        choices=["hard", "easy"],
        default="hard",
        help="hard: query and candidates only; easy: the query's explanation too",
    )
    task.add_argument(
        "--method",
        choices=["loglikelihood", "generate", "embedding", "contextual"],
        default=None,
        help="qa method (default: embedding for vectors:/glove models, contextual "
        "with --encoder, else loglikelihood)",
    )
    task.add_argument(
        "--encoder",
        type=Path,
        default=None,
        help="contextual: a transformers encoder folder (BERT, RoBERTa, ...) whose "
        "untuned term representations answer, as in the paper's Table 2",
    )
    task.add_argument(
        "--encoder-layer",
        type=LAYER,
        default=-1,
        help="contextual: the hidden layer read (default -1, the last)",
    )
    task.add_argument(
        "--normalisation",
        choices=["sum", "per_token", "per_char"],
        default="per_char",
        help="loglikelihood: which score picks the answer (all three are reported)",
    )
    task.add_argument(
        "--similarity-model",
        default=None,
        help="explain: a sentence-transformers folder (default: the packaged "
        "all-MiniLM-L6-v2, English only: Chinese needs a multilingual or "
        "Chinese model here, or --no-similarity)",
    )
    task.add_argument(
        "--no-similarity", action="store_true", help="explain: skip the embedding similarity"
    )
    task.add_argument(
        "--bertscore-model",
        default=None,
        help="explain: also report BERTScore F1 with this model (needs bert-score)",
    )
    task.add_argument(
        "--bertscore-layers",
        type=positive_int,
        default=None,
        help="explain: the layer bert-score reads, for models outside its table",
    )
    task.add_argument(
        "--bleurt-checkpoint",
        default=None,
        help="explain: a BLEURT checkpoint folder (needs bleurt or bleurt-pytorch); "
        "without it BLEURT is skipped and the report says why",
    )
    task.add_argument(
        "--moverscore-model",
        default=None,
        help="explain: a transformers encoder folder for MoverScore (needs "
        "moverscore); without it MoverScore is skipped and the report says why",
    )
    task.add_argument(
        "--eg-prompt",
        choices=["paper", "instruct"],
        default="paper",
        help="explain: paper (default) = Appendix A.1's input, 'query = ... </s> "
        "candidate = ... </s> generate the explanation of Q'; instruct = the "
        "same information as plain instructions with lettered candidates",
    )
    task.add_argument(
        "--max-new-tokens",
        type=NEW_TOKENS,
        default=EXPLANATION_MAX_NEW_TOKENS,
        help="explain: the longest explanation generated, in new tokens (default "
        f"{EXPLANATION_MAX_NEW_TOKENS}, as in the Acc(Δ) pipeline)",
    )
    from lexbench.benchmarks.ekar.finetune_cli import register_finetune

    register_finetune(cli)
