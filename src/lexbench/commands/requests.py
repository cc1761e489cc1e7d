"""From a command's arguments to its requests, once, in one place: `request_from_args`
reads the shared options (model, run, plan) into a `RunRequest`; a benchmark's `RunCommand`
says only how its own arguments become builder options (and, where it has them, its
conditions, model options that depend on the model, and what it adds to the plan's end).

    lexbench run lambda --model A,B --prompt-style completion --limit 10
      -> RunRequest("lambda", options={"prompt_style": "completion", ...}, limit=10, ...)
      -> lexbench.plan.expand([...], ["A", "B"]) -> two cells -> api.run each
"""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import MODEL_OPTIONS, model_options
from lexbench.plan import Condition, Outcome
from lexbench.request import RunRequest
from lexbench.terminal import strip_url_credentials, terminal_text


@dataclass(frozen=True)
class RunCommand:
    """How a benchmark's `lexbench run NAME` reads its own arguments.

    * `options(args)`: the builder options (not the shared ones: model, limit, data, ...);
    * `model_options(args, spec)`: backend options that depend on which model runs (word
      vectors' `--restrict-vocab`), added per model of the plan;
    * `conditions(args, request)`: several requests from one command (SCAN's `--shots 0 1`
      and `--baseline`), each a condition of the plan (default: the one request);
    * `finish(args, outcome)`: what the command adds once the plan has run (SCAN's
      combined report).
    """

    options: Callable[[argparse.Namespace], Mapping[str, Any]]
    model_options: Callable[[argparse.Namespace, str], Mapping[str, Any]] | None = None
    conditions: Callable[[argparse.Namespace, RunRequest], list[Condition]] | None = None
    finish: Callable[[argparse.Namespace, Outcome], None] | None = None


#: RunRequest fields the arguments give under other names or shapes; every other field is
#: read from the argument of the same name, so a new shared option is one field in
#: `RunRequest` and one argument in `lexbench.commands.arguments`.
_READ_APART = {"benchmark", "options", "model", "model_options", "wording", "data"}
_READ_AS = {"use_cache": ("no_cache", True), "progress": ("no_progress", True)}


def request_from_args(
    args: argparse.Namespace, benchmark: str, options: Mapping[str, Any], data_option: str | None
) -> RunRequest:
    """The request the shared arguments and the benchmark's builder `options` describe, on
    the first model named (the plan puts each model in its cells). `data_option`: the
    argument that holds the benchmark's data when it has no `--data` of that name."""
    data = getattr(args, "data", None)
    if data is None and data_option:
        data = getattr(args, data_option, None)
    given: dict[str, Any] = {}
    for field in fields(RunRequest):
        if field.name in _READ_APART:
            continue
        if field.name in _READ_AS:
            dest, negated = _READ_AS[field.name]
            if hasattr(args, dest):
                given[field.name] = not getattr(args, dest) if negated else getattr(args, dest)
        elif getattr(args, field.name, None) is not None:
            given[field.name] = getattr(args, field.name)
    return RunRequest(
        benchmark,
        options=dict(options),
        model=args.model,
        model_options=model_options(args),
        wording=getattr(args, "prompt_variant", None) or "paper",
        data=str(data) if isinstance(data, Path) else data,
        **given,
    )


#: Options every run command has whose values name the plan, not a setting of a run.
_NOT_SETTINGS = {
    "model",
    "models",
    "out",
    "cache",
    "no_cache",
    "no_progress",
    "prompt_variant",
    "sets",
    "allow_failures",
}


def _as_written(value: Any) -> str:
    """One value of an option as the user wrote it: a parsed `KEY=VALUE` pair back as
    `KEY=VALUE` (not Python's tuple), anything else as its text."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        key, item = value
        return f"{key}={item if isinstance(item, str) else json.dumps(item)}"
    return str(value)


def given_settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """The options given away from their defaults, as the user wrote them
    (`--prompt-style completion --limit 10`): how a plan's lines name its runs."""
    given = []
    for action in parser._actions:  # argparse keeps no public list of a parser's options
        if not action.option_strings or action.dest in _NOT_SETTINGS:
            continue
        if action.dest in MODEL_OPTIONS:  # how the model is reached, not what is asked
            continue
        value = getattr(args, action.dest, None)
        if value is None or value == action.default or action.dest == "help":
            continue
        flag = max(action.option_strings, key=len)
        if action.nargs == 0:  # a flag: --no-similarity, --chat-template, --no-chat-template
            if value == action.const:
                given.append(flag)
        elif isinstance(action, argparse._AppendAction):  # --option a=1 --option b=2
            given += [f"{flag} {shlex.quote(_as_written(v))}" for v in value]
        elif isinstance(value, (list, tuple)):
            given.append(" ".join([flag, *(shlex.quote(_as_written(v)) for v in value)]))
        else:
            shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
            given.append(f"{flag} {shlex.quote(shown)}")
    return terminal_text(strip_url_credentials(" ".join(given)))
