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
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.commands.common import (
    add_limit_argument,
    add_model_arguments,
    add_run_arguments,
    model_options,
    positive_int,
    run_and_report,
)
from lexbench.commands.numbers import LAYER


def _default_method(model_spec: str) -> str:
    from lexbench.models.registry import split_spec

    return "embedding" if split_spec(model_spec)[0] == "vectors" else "loglikelihood"


def _run(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.ekar.embedding import check_coverage, resolve_model
    from lexbench.commands.common import one_model
    from lexbench.run.evaluate import evaluate

    one_model(args, "lexbench run ekar")  # it resolves its model (or encoder) itself
    method = args.method or ("contextual" if args.encoder else _default_method(args.model))
    if (method == "contextual") != (args.encoder is not None):
        raise ValueError(
            "--method contextual and --encoder PATH go together: the contextual "
            "baseline encodes terms with the transformers encoder at PATH"
        )
    if args.task == "explain":
        from lexbench.benchmarks.ekar.explain import load_explanation_benchmark

        if method in ("embedding", "contextual"):
            raise ValueError(
                f"explanation generation needs a text-generating model, not a {method} baseline"
            )
        benchmark: Any = load_explanation_benchmark(
            language=args.language,
            split=args.split,
            mode=args.mode,
            data=args.data,
            revision=args.data_revision,
            endpoint=args.endpoint,
            limit=args.limit,
            similarity_model=args.similarity_model,
            use_similarity=not args.no_similarity,
            bertscore_model=args.bertscore_model,
            bertscore_layers=args.bertscore_layers,
            max_new_tokens=args.max_new_tokens,
            prompt_format=args.eg_prompt,
            bleurt_checkpoint=args.bleurt_checkpoint,
            moverscore_model=args.moverscore_model,
        )
        method = "generate"
    else:
        from lexbench.benchmarks.ekar.benchmark import load_benchmark

        benchmark = load_benchmark(
            language=args.language,
            split=args.split,
            mode=args.mode,
            method=method,
            normalisation=args.normalisation,
            data=args.data,
            revision=args.data_revision,
            endpoint=args.endpoint,
            limit=args.limit,
        )
    if method == "contextual":
        from lexbench.benchmarks.ekar.contextual import ContextualTupleModel

        options = model_options(args)
        unused = sorted(set(options) - {"device", "dtype", "batch_size", "threads"})
        if unused:
            raise ValueError(f"option(s) {', '.join(unused)} do not apply to --encoder")
        from lexbench.benchmarks.ekar.contextual import check_encoder_language

        model: Any = ContextualTupleModel(
            args.encoder, layer=args.encoder_layer, **{"device": "cpu", **options}
        )
        check_encoder_language(model, args.language)
    else:
        model = resolve_model(args.model, method, model_options(args))
    check_coverage(model, benchmark.items())
    from lexbench import plugins
    from lexbench.robustness.variants import with_active_variant

    spec = plugins.benchmark("ekar")
    try:
        run_and_report(
            args,
            lambda cache: evaluate(
                with_active_variant(spec, benchmark),  # --prompt-variant NAME|all
                model,
                out_root=args.out,
                cache=cache,
                progress=not args.no_progress,
            ),
        )
    finally:
        model.close()
    return 0


def register(cli: Any) -> None:
    run = cli.benchmark_command(
        "run", "ekar", "evaluate a model on E-KAR (analogy QA or explanation generation)", _run
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
        type=positive_int,
        default=EXPLANATION_MAX_NEW_TOKENS,
        help="explain: the longest explanation generated, in new tokens (default "
        f"{EXPLANATION_MAX_NEW_TOKENS}, as in the Acc(Δ) pipeline)",
    )
    add_model_arguments(run)
    add_run_arguments(run)
    from lexbench.benchmarks.ekar.finetune_cli import register_finetune

    register_finetune(cli)
