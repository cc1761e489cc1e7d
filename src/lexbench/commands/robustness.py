"""`lexbench contamination NAME`: is the benchmark's public data in the model?

A benchmark that generates its items (it declares `regenerate`): the published set against
K fresh sets (`--sets K`, default 5), with the gap, an exact permutation test over sets, an
item-level test and what they can and cannot mean. A benchmark with a public file (it
declares `public_file`): the completion probe of that file's rows against shuffled
controls. The record goes to `<out>/<benchmark>/<model>/robustness/` (shown by
`lexbench report` beside the runs), the reading to the terminal.

    lexbench contamination lambda --sets 5 --limit 20
    lexbench contamination scan --model openai:NAME --base-url http://127.0.0.1:8000/v1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import (
    add_model_arguments,
    add_run_arguments,
    model_options,
    open_cache,
    parse_option,
    positive_int,
)
from lexbench.commands.builder_options import ReadOptions, option_errors
from lexbench.commands.numbers import SEED
from lexbench.terminal import terminal_text

DEFAULT_SETS = 5


def _options(args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    options: dict[str, Any] = dict(args.option or ())
    if args.limit is not None:
        if spec.limit_option is None:
            raise ValueError(f"{spec.name} takes no --limit")
        options[spec.limit_option] = args.limit
    if args.data is not None:
        options["data"] = str(args.data)
    if args.prompt_variant and args.prompt_variant != "paper":
        options["prompt_variant"] = args.prompt_variant
    return options


def _generated(args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    """The published set against K fresh sets: a plan of K + 1 runs, then the probe."""
    from lexbench.commands.requests import request_from_args
    from lexbench.plan import Condition, expand, run_plan
    from lexbench.robustness.completion import failure_note
    from lexbench.robustness.contamination import contamination_from_spread
    from lexbench.robustness.files import robustness_folder, write_record

    given = dict(args.option or ())
    with option_errors(spec.name, given):
        request = request_from_args(args, spec.name, given, None)
        plan = expand([Condition("", request)], [args.model], sets=args.sets or DEFAULT_SETS)
        outcome = run_plan(plan)
    (spread,) = outcome.spreads
    evaluations = outcome.evaluations()
    record = contamination_from_spread(spread.record)
    record["requests"] = sum(e.stats.requests for e in evaluations)
    record["failed_requests"] = sum(e.stats.failed for e in evaluations)
    record["reading"] += failure_note(record["failed_requests"], record["requests"])
    published = Path(record["published_folder"])
    write_record(robustness_folder(published) / f"contamination-{published.name}.json", record)
    return record


def _completion(args: argparse.Namespace, spec: Any, options: dict[str, Any]) -> dict[str, Any]:
    from lexbench.models.registry import open_model
    from lexbench.robustness.completion import probe_requests, probes, summarise_completion
    from lexbench.robustness.files import FOLDER, write_record
    from lexbench.run.runner import execute
    from lexbench.run.store import slug

    read = ReadOptions(options)
    with option_errors(spec.name, dict(args.option or ())):
        file = spec.public_file(read)
    if read.unread():  # an option the probe never looks at would be ignored in silence
        raise ValueError(
            f"{_shown(read.unread()[0])}: {spec.name}'s completion probe takes no such "
            f"option; it reads {', '.join(sorted(read.read)) or 'none'}"
        )
    found = probes(file, seed=args.seed)
    cache = open_cache(args)
    try:
        with open_model(args.model, model_options(args)) as model:
            if not model.supports("generate"):
                raise ValueError(
                    f"the completion probe asks the model to continue text; {model.name} "
                    f"does not generate"
                )
            responses, _ = execute(
                model,
                probe_requests(found),
                cache=cache,
                progress=not args.no_progress,
                description=f"{spec.name} completion probe",
            )
            name = model.name
    finally:
        if cache is not None:
            cache.close()
    outputs = [None if r.error is not None else r.text for r in responses]
    record = {
        "benchmark": spec.name,
        "model": name,
        **summarise_completion(file, found, outputs, args.seed),
    }
    folder = Path(args.out) / slug(spec.name) / slug(name) / FOLDER
    write_record(folder / f"completion-{slug(file.name)}.json", record)
    return record


def _shown(key: str) -> str:
    """How the user gave option `key`: --limit, --prompt-variant, or --option KEY."""
    return {"limit": "--limit", "prompt_variant": "--prompt-variant"}.get(key, f"--option {key}")


def _contamination(args: argparse.Namespace) -> int:
    from lexbench import plugins
    from lexbench.commands.arguments import one_model
    from lexbench.robustness.report import probe_markdown

    one_model(args, "lexbench contamination")
    spec = plugins.benchmark(args.name)
    if spec.regenerate is not None:
        record = _generated(args, spec)
    elif spec.public_file is not None:
        record = _completion(args, spec, _options(args, spec))
    else:
        raise ValueError(
            f"{spec.name} neither generates its items nor declares a public file: "
            f"there is nothing to probe"
        )
    print(terminal_text(probe_markdown(record)))
    _check_failures(args, record)
    return 0


def _check_failures(args: argparse.Namespace, record: dict[str, Any]) -> None:
    """Exit 3 when some probe requests failed, 4 when all did (docs/guarantees.md), unless
    --allow-failures."""
    from lexbench.commands.outcome import (
        EXIT_ALL_FAILED,
        EXIT_SOME_FAILED,
        IncompleteRun,
        rerun_command,
    )

    failed, requests = record.get("failed_requests") or 0, record.get("requests") or 0
    if not failed or getattr(args, "allow_failures", False):
        return
    every = failed >= requests
    what = (
        f"all {requests} probe requests failed"
        if every
        else (f"{failed} of {requests} probe requests failed")
    )
    argv = getattr(args, "argv", None)
    argv = sys.argv[1:] if argv is None else argv
    raise IncompleteRun(
        f"{what}; answers received are cached, so running the same command again sends "
        f"only the failed requests: {rerun_command(argv)}  (--allow-failures exits 0)",
        EXIT_ALL_FAILED if every else EXIT_SOME_FAILED,
    )


def register(cli: Any) -> None:
    parser = cli.command(
        "contamination",
        "probe whether a benchmark's published data is in a model (docs/robustness.md)",
        _contamination,
    )
    parser.add_argument("name", metavar="BENCHMARK", help="a registered benchmark")
    parser.add_argument(
        "--limit", type=positive_int, default=None, help="the benchmark's --limit, for each set"
    )
    parser.add_argument("--data", type=Path, default=None, help="the benchmark's data file")
    parser.add_argument(
        "--option",
        type=parse_option,
        action="append",
        metavar="KEY=VALUE",
        help="any other builder option (VALUE read as JSON when it parses)",
    )
    parser.add_argument(
        "--seed", type=SEED, default=0, help="completion probe: seed of the control shuffle"
    )
    add_model_arguments(parser)
    add_run_arguments(parser)
