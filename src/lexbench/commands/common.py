"""Arguments shared by the commands: model selection, run-folder and cache options; what a
finished run prints and how it exits; the one way model or server text reaches a terminal."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lexbench.commands.across_models import ModelList, models_of, one_model, plan_of  # noqa: F401
from lexbench.commands.numbers import (
    POSITIVE,
    RATE,
    TIMEOUT,
    WAIT_SECONDS,
    count,
)
from lexbench.models.registry import DEFAULT_MODEL

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

# Exit statuses of a run that finished but is incomplete (see the README, "What lexbench guarantees").
EXIT_SOME_FAILED = 3
EXIT_ALL_FAILED = 4


# ------------------------------------------------------------------------------ terminal text

# C0 controls but newline and tab, DEL, C1 controls, lone surrogates, and the bidirectional
# overrides that make text display in another order than it reads.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """`text` safe to print: escape sequences (clear screen, window title), other control
    characters, lone surrogates and bidi overrides become visible escapes (`\\x1b`);
    newlines and tabs stay. Every place that prints model or server text uses this."""
    return _UNSAFE.sub(_escape, str(text))


# ------------------------------------------------------------------------------ arguments


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
        or _UNSAFE.search(text)
        or any(c.isspace() for c in text.strip())
    ):
        raise argparse.ArgumentTypeError(
            f"{shown!r} is not a server URL: give http(s)://HOST:PORT/v1"
        )
    return text.strip()


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


def model_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        option: getattr(args, dest)
        for dest, option in MODEL_OPTIONS.items()
        if getattr(args, dest, None) is not None
    }


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
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
        type=positive_int,
        default=None,
        metavar="K",
        help="also run K fresh item sets of the same design (benchmarks that generate "
        "their items) and report the spread across sets",
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


#: Where `lexbench run` writes run folders, and where `leaderboard` and `report` look by default.
DEFAULT_RUNS = Path("runs")


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
    if args.no_cache:
        return None
    from lexbench.run.cache import ResponseCache

    return ResponseCache(args.cache)


#: A count of 1 or more (kept under this name: every command module uses it).
positive_int = POSITIVE


# ------------------------------------------------------------------------------ finishing a run


class IncompleteRun(Exception):
    """A run that finished and wrote its folder, but some requests failed: `main` prints
    the message (one line) and exits with `exit_code`."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


_CREDENTIALS = re.compile(r"(?i)\b(https?://)[^/\s@]+@")


def strip_url_credentials(text: str) -> str:
    """`http://user:pw@host/v1` -> `http://host/v1`, anywhere in `text`."""
    return _CREDENTIALS.sub(r"\1", text)


def rerun_command(argv: Sequence[str]) -> str:
    """The command line to run again, with URL credentials removed."""
    return shlex.join(["lexbench", *(strip_url_credentials(a) for a in argv)])


def _failure_reasons(evaluation: Any) -> str:
    """The commonest reason among the failed samples, read back from the run folder."""
    from lexbench.run.store import read_jsonl

    try:
        rows = read_jsonl(evaluation.folder.samples_path)
    except (OSError, ValueError):
        return ""
    reasons = Counter(str(r.get("error")) for r in rows if isinstance(r, dict) and r.get("error"))
    if not reasons:
        return ""
    reason, count = reasons.most_common(1)[0]
    reason = reason if len(reason) <= 160 else reason[:157] + "..."
    return f"; commonest reason ({count}x): {reason}"


def check_failures(args: argparse.Namespace, evaluation: Any) -> None:
    """Raise IncompleteRun when requests failed, unless --allow-failures."""
    stats = evaluation.stats
    if not stats.failed or getattr(args, "allow_failures", False):
        return
    argv = getattr(args, "argv", None)
    if argv is None:
        argv = sys.argv[1:]
    every = stats.failed >= stats.requests
    what = (
        f"all {stats.requests} requests failed"
        if every
        else f"{stats.failed} of {stats.requests} requests failed"
    )
    message = (
        f"{what}{_failure_reasons(evaluation)}. The run folder records them; answers "
        f"received are cached, so running the same command again sends only the failed "
        f"requests: {rerun_command(argv)}  (--allow-failures exits 0)"
    )
    raise IncompleteRun(message, EXIT_ALL_FAILED if every else EXIT_SOME_FAILED)


def run_and_report(args: argparse.Namespace, run: Callable[[Any], Any]) -> Any:
    """Open the cache the options ask for, call `run(cache)`, close the cache whatever
    happens, print the report and the run folder; returns the Evaluation. A run in which
    requests failed raises IncompleteRun afterwards (exit 3, or 4 when all failed).

    `--model A,B`, `--sets K` and `--prompt-variant NAME|all` make it a plan
    (`lexbench.robustness.plan`): the same `run(cache)` once per cell, with `args.model`
    set to the cell's model (the command's call reads it when made); the first model's
    published run's Evaluation is returned."""
    planned = plan_of(args)
    if planned is None:
        cache = open_cache(args)
        try:
            evaluation = run(cache)
        finally:
            if cache is not None:
                cache.close()
        print(terminal_text(evaluation.report))
        print(f"run folder: {terminal_text(str(evaluation.folder.path))}")
        check_failures(args, evaluation)
        return evaluation
    return _run_plan(args, run, *planned)


def _run_plan(args: argparse.Namespace, run: Callable[[Any], Any], spec: Any, planned: Any) -> Any:
    from lexbench.robustness.plan import run_plan
    from lexbench.robustness.spread import spread_table

    chosen = args.model

    def run_cell(cell: Any) -> Any:
        args.model = cell.model  # the command's call reads args.model when it is made
        return run(cache)

    cache = open_cache(args)
    try:
        done = run_plan(spec, planned, run_cell)
    finally:
        args.model = chosen
        if cache is not None:
            cache.close()
    for each in done:
        if len(done) > 1:
            print(f"\n## {terminal_text(each.model)}\n")
        print(terminal_text(each.published.report))
        print(f"run folder: {terminal_text(str(each.published.folder.path))}")
        if each.record is not None:
            what = "fresh item sets" if planned.kind == "sets" else "prompt wordings"
            print(f"\nSpread across {what} ({spec.name}, accuracy):\n")
            print(terminal_text(spread_table(each.record)))
            print(f"spread: {terminal_text(str(each.record_path))}")
    if len(done) > 1:
        _across_models(args, planned, done)
    for each in done:
        for evaluation in each.evaluations:
            check_failures(args, evaluation)
    return done[0].published


def _across_models(args: argparse.Namespace, planned: Any, done: Sequence[Any]) -> None:
    """One leaderboard over the plan's runs, and the paired comparisons between models."""
    from lexbench.commands.across_models import compare_models, leaderboard_text

    folders = [e.folder.path for each in done for e in each.evaluations]
    print("\n## Leaderboard\n")
    print(terminal_text(leaderboard_text(folders)))
    groups: dict[tuple[str, str], list[Path]] = {}
    for each in done:
        for step, evaluation in zip(planned.steps, each.evaluations):
            groups.setdefault((planned.benchmark, step.label), []).append(evaluation.folder.path)
    for path, text in compare_models(groups, Path(args.out), planned.models):
        print(terminal_text(text))
        print(f"comparison: {terminal_text(str(path))}")


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options every `lexbench run` passes to `api.run` (cache, output, chat)."""
    return {"out": args.out, "progress": not args.no_progress, "chat": args.chat}
