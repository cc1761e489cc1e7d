"""`lexbench run NAME` for every registered benchmark, and `lexbench run all`: each builds
its requests from its arguments once (`lexbench.commands.requests`), writes them as a plan
(`lexbench.plan`), runs it and shows its end (`lexbench.commands.outcome`).

    lexbench run hypernyms --model smollm2-135m --limit 20 --option seed=1
    lexbench run all --model smollm2-135m,gemma3-270m --sets 2 --limit 1

A benchmark with a `run` command of its own declares how its arguments become builder
options (`RunCommand`); one without gets the generic options: `--limit N` (the benchmark's
`limit_option`), `--data PATH` and `--option KEY=VALUE` for any other builder option.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import (
    add_limit_argument,
    add_model_arguments,
    add_run_arguments,
    models_of,
    parse_option,
    positive_int,
)
from lexbench.commands.outcome import check_failures, show_across_models, show_runs
from lexbench.commands.requests import RunCommand, given_settings, request_from_args
from lexbench.plan import Condition, expand, run_plan
from lexbench.terminal import terminal_text


def run_benchmark(args: argparse.Namespace) -> int:
    """The handler of every `lexbench run NAME`."""
    from lexbench import plugins
    from lexbench.commands.builder_options import option_errors

    spec = plugins.benchmark(args.benchmark)
    command: RunCommand = args.run_command
    given = dict(getattr(args, "option", None) or ())
    with option_errors(spec.name, given):  # --option nosuch=1: one line
        base = request_from_args(args, spec.name, command.options(args), spec.data_option)
        settings = given_settings(args, args.run_parser)
        conditions = command.conditions(args, base) if command.conditions else [Condition("", base)]
        plan = expand(
            [replace(c, settings=c.settings or settings) for c in conditions],
            models_of(args),
            sets=args.sets,
            wording=args.prompt_variant,
            model_options=(
                (lambda model: command.model_options(args, model))  # type: ignore[misc]
                if command.model_options is not None
                else None
            ),
        )
        outcome = run_plan(plan)
    if command.finish is not None:
        command.finish(args, outcome)
    else:
        show_runs(outcome)
    show_across_models(outcome, Path(args.out))
    check_failures(args, outcome.evaluations())
    return 0


def _generic_options(args: argparse.Namespace) -> dict[str, Any]:
    """A plugin's builder options: its `--option KEY=VALUE`s (limit and data are shared)."""
    return dict(args.option or [])


def register_generic_run(cli: Any, spec: Any) -> None:
    """`lexbench run NAME` for the benchmark `spec`, which brings no run command."""
    parser = cli.run_command(
        spec.name, f"evaluate a model on {spec.description}", RunCommand(_generic_options)
    )
    add_benchmark_arguments(parser, spec)


def add_benchmark_arguments(parser: argparse.ArgumentParser, spec: Any) -> None:
    """`--limit`, `--data` and `--option KEY=VALUE`: any benchmark's builder options."""
    group = parser.add_argument_group("benchmark")
    if spec.limit_option is not None:
        add_limit_argument(group, "stratum the benchmark defines")
    else:
        parser.set_defaults(limit=None)
    group.add_argument("--data", type=Path, default=None, help="a data file or folder")
    group.add_argument(
        "--option",
        type=parse_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other option of the benchmark's builder (VALUE as JSON when "
        "it parses); repeatable",
    )


# ------------------------------------------------------------------------------ run all


def data_override(text: str) -> tuple[str, Path]:
    """`--data NAME=PATH` of `run all` -> (NAME, PATH)."""
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(
            f"expected NAME=PATH (e.g. bats=BATS_3.0.zip), got {text!r}"
        )
    return name.strip(), Path(path.strip()).expanduser()


def _skip_reason(error: BaseException) -> str | None:
    """Errors that mean "this benchmark cannot run here" (no data offline, a model that
    cannot answer its requests, an option it cannot honour), reported as a skip with the
    reason; anything else stops the suite."""
    from lexbench.datasets.fetch import DownloadError
    from lexbench.models.base import UnsupportedRequest

    if isinstance(error, (FileNotFoundError, DownloadError, UnsupportedRequest, ValueError)):
        return str(error).splitlines()[0][:300]
    return None


def suite_conditions(args: argparse.Namespace) -> list[Condition]:
    """One condition per benchmark of the suite: its suite options, and with `--limit` its
    quick budgets and the limit; its data path."""
    from lexbench import api

    suite = [spec for spec in api.benchmarks() if spec.suite is not None]
    unknown = sorted(set(args.only or ()) - {spec.name for spec in suite})
    if unknown:
        raise ValueError(
            f"--only {' '.join(unknown)}: not in the suite; it holds "
            f"{', '.join(spec.name for spec in suite)}"
        )
    data = dict(args.data)
    readers = [spec.name for spec in suite if spec.data_option]
    unknown = sorted(set(data) - set(readers))
    if unknown:
        raise ValueError(
            f"--data {unknown[0]}=...: {unknown[0]} is not a suite benchmark that reads "
            f"files; those are {', '.join(readers)}"
        )
    conditions = []
    for spec in suite:
        if args.only and spec.name not in args.only:
            continue
        entry = spec.suite
        assert entry is not None
        options = {**entry.options, **(entry.quick_options if args.limit is not None else {})}
        base = request_from_args(args, spec.name, options, None)
        request = replace(
            base,
            limit=args.limit if spec.limit_option else None,
            data=str(data[spec.name]) if spec.name in data else None,
        )
        conditions.append(Condition(spec.name, request))
    return conditions


def run_all(args: argparse.Namespace) -> int:
    """Every suite benchmark on every model named, one plan: one report, one leaderboard,
    the comparisons between the models."""
    from lexbench.report.build import build_report
    from lexbench.run.store import slug

    models = models_of(args)
    plan = expand(
        suite_conditions(args),
        models,
        sets=args.sets,
        wording=args.prompt_variant,
        skip_unrunnable=True,
    )
    for note in plan.notes:
        print(f"lexbench: {terminal_text(note)}", file=sys.stderr)
    outcome = run_plan(plan, skippable=_skip_reason)
    if not outcome.ran:
        reasons = [f"{c.request.benchmark}: {why}" for c, why in outcome.skipped]
        raise ValueError("no benchmark could run: " + "; ".join(reasons + list(plan.notes)))
    folders = [done.evaluation.folder.path for done in outcome.ran]
    name = Path(folders[0]).parent.name if len(models) == 1 else "--".join(map(slug, models))
    report_dir = args.report or (args.out / "suite" / name)
    files = build_report(folders, report_dir, title=f"lexbench suite: {', '.join(models)}")
    from lexbench.commands.outcome import leaderboard_text

    print(terminal_text(leaderboard_text(folders)))
    for cell, reason in outcome.skipped:
        shown = cell.request.benchmark + (f" ({cell.model})" if len(models) > 1 else "")
        print(f"skipped {terminal_text(shown)}: {terminal_text(reason)}")
    for note in plan.notes:
        print(f"note: {terminal_text(note)}")
    print(f"report: {files.html} and {files.markdown}")
    show_across_models(outcome, Path(args.out), leaderboard=False)
    check_failures(args, outcome.evaluations())
    return 0


def register(cli: Any) -> None:
    run = cli.benchmark_command(
        "run",
        "all",
        "run every benchmark whose data is available on one model or several "
        "(--model A,B) and write one report (benchmarks that cannot run are skipped, "
        "with the reason)",
        run_all,
    )
    run.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        metavar="N",
        help="a small slice of each benchmark: the first N items of each stratum it "
        "names in its own help (LAMBDA, Google, BATS: relation; SCAN: concept "
        "mapping; E-KAR: meta-relation; SetLexSem: configuration); default: all",
    )
    run.add_argument(
        "--data",
        type=data_override,
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a benchmark's local data, as its own --data takes it (e.g. "
        "bats=BATS_3.0.zip ekar=ekar_english/); repeatable",
    )
    run.add_argument(
        "--only",
        nargs="+",
        default=None,
        metavar="BENCHMARK",
        help="run only these benchmarks of the suite",
    )
    run.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="DIR",
        help="where the combined report goes (default: OUT/suite/MODEL)",
    )
    add_model_arguments(run)
    add_run_arguments(run)
