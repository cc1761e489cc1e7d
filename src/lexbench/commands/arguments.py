"""The arguments every run command shares: the model (`--model A,B` and the backend's
options), the run (`--out`, `--cache`, progress, failures) and the plan (`--prompt-variant`,
`--sets`); `--limit`'s one meaning; the RUN... folders of the commands that read runs.

Each is declared once here; `lexbench.commands.requests` turns them into a `RunRequest`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lexbench.commands.numbers import POSITIVE, RATE, TIMEOUT, WAIT_SECONDS, count
from lexbench.models.registry import DEFAULT_MODEL
from lexbench.plan import MAX_SETS
from lexbench.request import DEFAULT_RUNS
from lexbench.terminal import UNSAFE, strip_url_credentials, terminal_text

# argparse dest -> backend option name. Only options the user set are passed on, so a
# backend sees exactly what was asked of it and rejects what it does not take.
MODEL_OPTIONS = {
    "dtype": "dtype",
    "device": "device",
    "batch_size": "batch_size",
    "revision": "revision",
    "threads": "threads",
    "base_url": "base_url",
    "api_key_env": "api_key_env",
    "api": "api",
    "max_concurrency": "max_concurrency",
    "requests_per_minute": "requests_per_minute",
    "timeout": "timeout",
    "max_retries": "max_retries",
    "max_retry_wait": "max_retry_wait",
    "prompts_per_request": "prompts_per_request",
}

#: A count of 1 or more (kept under this name: every command module uses it).
positive_int = POSITIVE
#: `--sets K`: fresh item sets of one plan.
SETS = count(1, MAX_SETS)


class ModelList(argparse.Action):
    """`--model A,B` and `--model A --model B`: `args.models` lists them in order and
    `args.model` is the first (what a one-model command reads)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = [part.strip() for part in str(values).split(",")]
        if not all(given):
            raise argparse.ArgumentError(self, f"an empty model name in {values!r}")
        models = [*(getattr(namespace, "models", None) or []), *given]
        namespace.models = models
        namespace.model = models[0]


def models_of(args: argparse.Namespace) -> list[str]:
    """The models `--model` named (`A,B`, or repeated), in order; one when not plural."""
    models = getattr(args, "models", None)
    return list(models) if models else [args.model]


def one_model(args: argparse.Namespace, command: str) -> None:
    """Refuse, in one line, several models for a command that runs one."""
    models = models_of(args)
    if len(models) > 1:
        raise ValueError(
            f"{command} takes one model; --model named {', '.join(models)}: run them one at a time"
        )


def server_url(text: str) -> str:
    """argparse type of --base-url: http(s)://HOST[:PORT][/PATH], printable, no spaces."""
    from urllib.parse import urlsplit

    shown = terminal_text(strip_url_credentials(text))
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or UNSAFE.search(text)
        or any(c.isspace() for c in text.strip())
    ):
        raise argparse.ArgumentTypeError(
            f"{shown!r} is not a server URL: give http(s)://HOST:PORT/v1"
        )
    return text.strip()


def system_prompt(text: str) -> str:
    """argparse type of --system-prompt: printable text (newlines and tabs allowed)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty system prompt: give its text")
    if UNSAFE.search(text):
        raise argparse.ArgumentTypeError(
            f"{terminal_text(text)[:60]!r} holds control characters; give plain text"
        )
    return text


def add_model_arguments(
    parser: argparse.ArgumentParser, default_model: str = DEFAULT_MODEL
) -> None:
    group = parser.add_argument_group("model")
    group.add_argument(
        "--model",
        default=default_model,
        action=ModelList,
        help=f"model spec: smollm2-135m, gemma3-270m, hf:PATH|HUB_ID|FILE.gguf, "
        f"openai:NAME (or another provider prefix, docs/models.md), vectors:NAME|PATH, "
        f"mlm:PATH; several: A,B or --model repeated, one plan with a comparison "
        f"(default: {default_model})",
    )
    parser.set_defaults(models=None)
    group.add_argument("--dtype", default=None, help="hf: float32 (CPU default), bfloat16, float16")
    group.add_argument("--device", default=None, help="hf: auto (default), cpu, cuda, cuda:1, mps")
    group.add_argument(
        "--batch-size", type=POSITIVE, default=None, help="hf: prompts per forward pass"
    )
    group.add_argument(
        "--threads", type=count(1, 4096), default=None, help="hf: CPU threads for torch"
    )
    chat = group.add_mutually_exclusive_group()
    chat.add_argument(
        "--chat-template",
        dest="chat",
        action="store_const",
        const=True,
        default=None,
        help="wrap generation prompts in the model's chat format "
        "(default: the benchmark's measured default for chat models; recorded "
        "in the run and its cache keys)",
    )
    chat.add_argument(
        "--no-chat-template",
        dest="chat",
        action="store_const",
        const=False,
        help="send generation prompts as plain text, even to a chat model",
    )
    group.add_argument(
        "--system-prompt",
        type=system_prompt,
        default=None,
        metavar="TEXT",
        help="a system turn before every chat prompt (needs chat prompts; recorded in the "
        "run, its folder hash and its cache keys; default: none, as the papers)",
    )
    group.add_argument("--revision", default=None, help="hf: Hub revision to pin")
    group.add_argument(
        "--base-url",
        type=server_url,
        default=None,
        help="openai: server URL, e.g. http://127.0.0.1:8000/v1 (user:password@ "
        "in it is used to connect and never written anywhere)",
    )
    group.add_argument(
        "--api-key-env",
        default=None,
        help="openai: environment variable holding the API key (default OPENAI_API_KEY)",
    )
    group.add_argument(
        "--api", choices=["completions", "chat"], default=None, help="openai: which endpoint to use"
    )
    group.add_argument(
        "--max-concurrency", type=count(1, 100_000), default=None, help="openai: requests in flight"
    )
    group.add_argument("--requests-per-minute", type=RATE, default=None, help="openai: rate limit")
    group.add_argument("--timeout", type=TIMEOUT, default=None, help="openai: seconds per request")
    group.add_argument(
        "--max-retries", type=count(0, 1_000), default=None, help="openai: retries per request"
    )
    group.add_argument(
        "--prompts-per-request",
        type=count(1, 1024),
        default=None,
        metavar="N",
        help="openai: completions prompts sent in one request where the server "
        "takes a list (default: max-concurrency / 8, 1 to 16; 1 turns it off)",
    )
    group.add_argument(
        "--max-retry-wait",
        type=WAIT_SECONDS,
        default=None,
        metavar="SECONDS",
        help="openai: the longest Retry-After the run waits for (default 120); a "
        "server asking for a longer wait fails those requests at once",
    )


def model_options(args: argparse.Namespace) -> dict[str, Any]:
    """The backend options the user set (only those: a backend refuses what it lacks)."""
    return {
        option: getattr(args, dest)
        for dest, option in MODEL_OPTIONS.items()
        if getattr(args, dest, None) is not None
    }


def add_limit_argument(parser: Any, stratum: str, order: str = "") -> None:
    """`--limit N`, one meaning everywhere: the first N items of each stratum (`stratum`
    names it for this benchmark; `order` says what "first" means when it is not the
    file's order)."""
    parser.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"a slice: the first N items of each {stratum}{order} (every "
        "`lexbench run` reads --limit this way; default: all)",
    )


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a run writes and reads (--out, --cache), what it shows, what failures mean,
    and the plan's spread (--prompt-variant, --sets)."""
    from lexbench.commands.outcome import EXIT_ALL_FAILED, EXIT_SOME_FAILED

    group = parser.add_argument_group("run")
    group.add_argument(
        "--out", type=Path, default=DEFAULT_RUNS, help="root of the run folders (default: ./runs)"
    )
    group.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="response cache file (default: ~/.cache/lexbench/responses/responses.sqlite)",
    )
    group.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    group.add_argument("--no-progress", action="store_true", help="no progress bar")
    robust = parser.add_argument_group("robustness (docs/robustness.md)")
    robust.add_argument(
        "--prompt-variant",
        type=variant_name,
        default="paper",
        metavar="NAME|all",
        help="ask in another of the benchmark's wordings (default: paper, the published "
        "prompt); all: one run per wording and their spread",
    )
    robust.add_argument(
        "--sets",
        type=SETS,
        default=None,
        metavar="K",
        help="also run K fresh item sets of the same design (benchmarks that generate "
        f"their items; 1 to {MAX_SETS}) and report the spread across sets",
    )
    group.add_argument(
        "--allow-failures",
        action="store_true",
        help=f"exit 0 even when some requests failed (default: exit "
        f"{EXIT_SOME_FAILED}, or {EXIT_ALL_FAILED} when all failed)",
    )


def variant_name(text: str) -> str:
    """argparse type of --prompt-variant: a name (which names exist, the benchmark says)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name: give paper, all or a wording's name")
    return text.strip()


def add_runs_argument(parser: argparse.ArgumentParser, example: str) -> None:
    """The RUN... positional of `leaderboard` and `report`: run folders or folders holding
    them, ./runs when none is named."""
    parser.add_argument(
        "runs",
        nargs="*",
        type=Path,
        metavar="RUN",
        help=f"run folders, or directories that hold them (e.g. {example}; default: ./runs, "
        "where `lexbench run` writes)",
    )


def runs_or_default(paths: Sequence[Path]) -> list[Path]:
    """The run paths given, or ./runs; a missing ./runs is one clear line."""
    if paths:
        return list(paths)
    if not DEFAULT_RUNS.is_dir():
        raise FileNotFoundError(
            f"no run folders named and no ./runs here ({Path.cwd()}): run a benchmark first "
            "(lexbench run lambda --limit 5), or name run folders: lexbench leaderboard PATH..."
        )
    return [DEFAULT_RUNS]


def open_cache(args: argparse.Namespace) -> Any:
    """The response cache the run arguments ask for (None: --no-cache)."""
    if args.no_cache:
        return None
    from lexbench.run.cache import ResponseCache

    return ResponseCache(args.cache)


def parse_option(text: str) -> tuple[str, Any]:
    """`key=value` -> ("key", value), the value read as JSON when it parses (`k=3`,
    `k=true`, `k=["a","b"]`), else kept as a string (`k=hyponym`)."""
    import json

    key, sep, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a name, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def add_published_argument(parser: argparse.ArgumentParser) -> None:
    """`--no-published`, shared by `report`, `leaderboard` and `compare`: leave out the
    papers' rows (docs/published-results.md) they show beside comparable runs by default."""
    parser.add_argument(
        "--no-published",
        dest="published",
        action="store_false",
        help="leave out the papers' published rows (shown by default beside runs whose "
        "configuration matches the paper's protocol, marked 'published, not re-run')",
    )
