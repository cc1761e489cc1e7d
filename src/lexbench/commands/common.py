"""Arguments shared by the commands: model selection, run-folder and cache options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lexbench.models.registry import DEFAULT_MODEL

# argparse dest -> backend option name. Only options the user set are passed on, so a
# backend sees exactly what was asked of it and rejects what it does not take.
MODEL_OPTIONS = {
    "dtype": "dtype", "device": "device", "batch_size": "batch_size",
    "chat_template": "chat_template", "revision": "revision", "threads": "threads",
    "base_url": "base_url", "api_key_env": "api_key_env", "api": "api",
    "max_concurrency": "max_concurrency", "requests_per_minute": "requests_per_minute",
    "timeout": "timeout", "max_retries": "max_retries",
}


def add_model_arguments(parser: argparse.ArgumentParser, default_model: str = DEFAULT_MODEL) -> None:
    group = parser.add_argument_group("model")
    group.add_argument("--model", default=default_model,
                       help=f"model spec: smollm2-135m, hf:PATH|HUB_ID|FILE.gguf, openai:NAME, "
                            f"vectors:NAME|PATH, mlm:PATH (default: {default_model})")
    group.add_argument("--dtype", default=None, help="hf: float32 (CPU default), bfloat16, float16")
    group.add_argument("--device", default=None, help="hf: auto (default), cpu, cuda, cuda:1, mps")
    group.add_argument("--batch-size", type=int, default=None, help="hf: prompts per forward pass")
    group.add_argument("--threads", type=int, default=None, help="hf: CPU threads for torch")
    group.add_argument("--chat-template", action="store_const", const=True, default=None,
                       help="wrap prompts in the model's chat template (recorded in the run)")
    group.add_argument("--revision", default=None, help="hf: Hub revision to pin")
    group.add_argument("--base-url", default=None, help="openai: server URL, e.g. http://127.0.0.1:8000/v1")
    group.add_argument("--api-key-env", default=None,
                       help="openai: environment variable holding the API key (default OPENAI_API_KEY)")
    group.add_argument("--api", choices=["completions", "chat"], default=None,
                       help="openai: which endpoint to use")
    group.add_argument("--max-concurrency", type=int, default=None, help="openai: requests in flight")
    group.add_argument("--requests-per-minute", type=float, default=None, help="openai: rate limit")
    group.add_argument("--timeout", type=float, default=None, help="openai: seconds per request")
    group.add_argument("--max-retries", type=int, default=None, help="openai: retries per request")


def model_options(args: argparse.Namespace) -> dict[str, Any]:
    return {option: getattr(args, dest) for dest, option in MODEL_OPTIONS.items()
            if getattr(args, dest, None) is not None}


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("run")
    group.add_argument("--out", type=Path, default=Path("runs"),
                       help="root of the run folders (default: ./runs)")
    group.add_argument("--cache", type=Path, default=None,
                       help="response cache file (default: ~/.cache/lexbench/responses/responses.sqlite)")
    group.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    group.add_argument("--no-progress", action="store_true", help="no progress bar")


def open_cache(args: argparse.Namespace) -> Any:
    if args.no_cache:
        return None
    from lexbench.run.cache import ResponseCache

    return ResponseCache(args.cache)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def run_and_report(args: argparse.Namespace, run: Callable[[Any], Any]) -> Any:
    """Open the cache the options ask for, call `run(cache)`, close the cache whatever
    happens, print the report and the run folder; returns the Evaluation."""
    cache = open_cache(args)
    try:
        evaluation = run(cache)
    finally:
        if cache is not None:
            cache.close()
    print(evaluation.report)
    print(f"run folder: {evaluation.folder.path}")
    return evaluation
