"""`lexbench run ekar`: E-KAR question answering or explanation generation.

    lexbench run ekar --model smollm2-135m --language en --split validation \\
        --mode hard --method loglikelihood --data tests/fixtures/ekar/english
    lexbench run ekar --model glove --method embedding --data DIR          # the paper's baseline
    lexbench run ekar --model vectors:cc.zh.300.vec --language zh --method embedding --data DIR
    lexbench run ekar --task explain --model smollm2-135m --data DIR       # E_Q / E_A generation

Without --data the split is downloaded once from the Hugging Face Hub (--data-revision v1.1, the
default, is the `main` branch; v1.0 is the paper's; a commit id pins the content) into the
lexbench cache; --endpoint (or $HF_ENDPOINT) points at a mirror.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.common import (
    add_model_arguments,
    add_run_arguments,
    model_options,
    positive_int,
    run_and_report,
)


def _default_method(model_spec: str) -> str:
    from lexbench.models.registry import split_spec

    return "embedding" if split_spec(model_spec)[0] == "vectors" else "loglikelihood"


def _run(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.base import evaluate
    from lexbench.benchmarks.ekar_embedding import check_coverage, resolve_model

    method = args.method or _default_method(args.model)
    if args.task == "explain":
        from lexbench.benchmarks.ekar_explain import load_explanation_benchmark

        if method == "embedding":
            raise ValueError("explanation generation needs a text-generating model, not word vectors")
        benchmark: Any = load_explanation_benchmark(
            language=args.language, split=args.split, mode=args.mode, data=args.data,
            revision=args.data_revision, endpoint=args.endpoint, limit=args.limit,
            similarity_model=args.similarity_model, use_similarity=not args.no_similarity,
            bertscore_model=args.bertscore_model, bertscore_layers=args.bertscore_layers,
            max_new_tokens=args.max_new_tokens)
        method = "generate"
    else:
        from lexbench.benchmarks.ekar import load_benchmark

        benchmark = load_benchmark(
            language=args.language, split=args.split, mode=args.mode, method=method,
            normalisation=args.normalisation, data=args.data, revision=args.data_revision,
            endpoint=args.endpoint, limit=args.limit)
    model = resolve_model(args.model, method, model_options(args))
    check_coverage(model, benchmark.items())
    try:
        run_and_report(args, lambda cache: evaluate(benchmark, model, out_root=args.out,
                                                    cache=cache, progress=not args.no_progress))
    finally:
        model.close()
    return 0


def register(cli: Any) -> None:
    run = cli.benchmark_command(
        "run", "ekar", "evaluate a model on E-KAR (analogy QA or explanation generation)", _run)
    data = run.add_argument_group("data")
    data.add_argument("--language", choices=["en", "zh"], default="en",
                      help="en: jiangjiechen/ekar_english; zh: jiangjiechen/ekar_chinese")
    data.add_argument("--split", choices=["train", "validation", "test"], default="validation",
                      help="test may carry no labels (then only predictions are written)")
    data.add_argument("--data", type=Path, default=None,
                      help="a local folder with train.json/validation.json/test.json in the "
                           "Hub's layout (default: download from the Hub)")
    data.add_argument("--data-revision", default="v1.1",
                      help="v1.1 (the Hub's main branch, default), v1.0 (the paper's "
                           "branch), or a commit id to pin the files exactly")
    data.add_argument("--endpoint", default=None,
                      help="Hub base URL (default $HF_ENDPOINT or https://huggingface.co)")
    data.add_argument("--limit", type=positive_int, default=None, help="the first N items only")
    task = run.add_argument_group("task")
    task.add_argument("--task", choices=["qa", "explain"], default="qa",
                      help="qa: pick the analogous candidate; explain: generate E_Q/E_A")
    task.add_argument("--mode", choices=["hard", "easy"], default="hard",
                      help="hard: query and candidates only; easy: the query's explanation too")
    task.add_argument("--method", choices=["loglikelihood", "generate", "embedding"], default=None,
                      help="qa method (default: embedding for vectors:/glove models, else "
                           "loglikelihood)")
    task.add_argument("--normalisation", choices=["sum", "per_token", "per_char"],
                      default="per_char",
                      help="loglikelihood: which score picks the answer (all three are reported)")
    task.add_argument("--similarity-model", default=None,
                      help="explain: a sentence-transformers folder (default: the packaged "
                           "all-MiniLM-L6-v2)")
    task.add_argument("--no-similarity", action="store_true",
                      help="explain: skip the embedding similarity")
    task.add_argument("--bertscore-model", default=None,
                      help="explain: also report BERTScore F1 with this model (needs bert-score)")
    task.add_argument("--bertscore-layers", type=positive_int, default=None,
                      help="explain: the layer bert-score reads, for models outside its table")
    task.add_argument("--max-new-tokens", type=positive_int, default=48,
                      help="explain: the longest explanation generated, in tokens (default 48)")
    add_model_arguments(run)
    add_run_arguments(run)
