"""`lexbench run all`, `lexbench leaderboard` and `lexbench rescore`: every benchmark at once,
one table per benchmark across models, and re-scoring any run folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lexbench.commands.common import (
    add_model_arguments,
    add_run_arguments,
    add_runs_argument,
    check_failures,
    model_options,
    open_cache,
    positive_int,
    runs_or_default,
    terminal_text,
)
from lexbench.commands.published_option import add_published_argument


def data_override(text: str) -> tuple[str, Path]:
    """`--data NAME=PATH` of `run all` -> (NAME, PATH)."""
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(
            f"expected NAME=PATH (e.g. bats=BATS_3.0.zip), got {text!r}"
        )
    return name.strip(), Path(path.strip()).expanduser()


# Errors that mean "this benchmark cannot run here" (no data offline, a model that cannot
# answer its requests), reported as a skip with the reason; anything else stops the suite.
def _skip_reason(error: BaseException) -> str | None:
    from lexbench.datasets.fetch import DownloadError
    from lexbench.models.base import UnsupportedRequest

    if isinstance(error, (FileNotFoundError, DownloadError, UnsupportedRequest, ValueError)):
        return str(error).splitlines()[0][:300]
    return None


def suite_options(spec: Any, entry: Any, limit: int | None, data: Path | None) -> dict[str, Any]:
    """The builder options of one benchmark in `run all`: its suite options; with a limit,
    its quick budgets and the limit; its data path."""
    options = dict(entry.options)
    if limit is not None:
        options.update(entry.quick_options)
        if spec.limit_option:
            options[spec.limit_option] = limit
    if data is not None and spec.data_option:
        options[spec.data_option] = data
    return options


def run_suite(
    model: str,
    *,
    model_opts: dict[str, Any],
    limit: int | None,
    out: Path,
    cache: Any,
    progress: bool,
    chat: bool | None,
    only: list[str] | None = None,
    data: dict[str, Path] | None = None,
) -> tuple[list[Any], list[tuple[str, str]]]:
    """Run every suite benchmark on one model (opened once); returns (evaluations, skips).
    `data` gives a benchmark's files by name (its `data_option`)."""
    from lexbench import api
    from lexbench.models.registry import open_model

    suite = [(spec, spec.suite) for spec in api.benchmarks() if spec.suite is not None]
    unknown = sorted(set(only or ()) - {spec.name for spec, _ in suite})
    if unknown:
        raise ValueError(
            f"--only {' '.join(unknown)}: not in the suite; it holds "
            f"{', '.join(spec.name for spec, _ in suite)}"
        )
    readers = {spec.name: spec.data_option for spec, _ in suite if spec.data_option}
    unknown = sorted(set(data or {}) - set(readers))
    if unknown:
        raise ValueError(
            f"--data {unknown[0]}=...: {unknown[0]} is not a suite benchmark that reads "
            f"files; those are {', '.join(readers)}"
        )
    done: list[Any] = []
    skipped: list[tuple[str, str]] = []
    with open_model(model, model_opts) as backend:
        for chosen, entry in suite:
            name = chosen.name
            if only and name not in only:
                continue
            options = suite_options(chosen, entry, limit, (data or {}).get(name))
            print(f"lexbench: {name} ...", file=sys.stderr)
            try:
                done.append(
                    api.run(
                        name,
                        backend,
                        out=out,
                        cache=cache,
                        use_cache=cache is not None,
                        progress=progress,
                        chat=chat,
                        **options,
                    )
                )
            except Exception as error:
                reason = _skip_reason(error)
                if reason is None:
                    raise
                skipped.append((name, reason))
                print(f"lexbench: {name} skipped: {terminal_text(reason)}", file=sys.stderr)
    return done, skipped


def _run_all(args: argparse.Namespace) -> int:
    from lexbench.report.build import build_report

    if args.sets or (args.prompt_variant or "paper") != "paper":
        raise ValueError(
            "run all takes neither --sets nor --prompt-variant (each benchmark has its own "
            "wordings and not all generate items): give them to `lexbench run NAME`"
        )

    from lexbench.commands.across_models import compare_models, models_of
    from lexbench.run.store import slug

    models = models_of(args)
    if len(set(models)) < len(models):
        raise ValueError("--model names a model twice; name each model once")
    done: list[Any] = []
    skipped: list[tuple[str, str]] = []
    groups: dict[tuple[str, str], list[Path]] = {}
    cache = open_cache(args)
    try:
        for position, model in enumerate(models, 1):
            if len(models) > 1:
                print(f"lexbench: model {position}/{len(models)}: {model}", file=sys.stderr)
            ran, missed = run_suite(  # the model is loaded once for all its benchmarks
                model,
                model_opts=model_options(args),
                limit=args.limit,
                out=args.out,
                cache=cache,
                progress=not args.no_progress,
                chat=args.chat,
                only=args.only,
                data=dict(args.data),
            )
            done.extend(ran)
            skipped.extend(
                (f"{name} ({model})" if len(models) > 1 else name, why) for name, why in missed
            )
            for evaluation in ran:
                benchmark = str(evaluation.results.get("benchmark", ""))
                groups.setdefault((benchmark, "paper"), []).append(evaluation.folder.path)
    finally:
        if cache is not None:
            cache.close()
    if not done:
        raise ValueError("no benchmark could run: " + "; ".join(f"{n}: {r}" for n, r in skipped))
    folder = (
        Path(done[0].folder.path).parent.name if len(models) == 1 else "--".join(map(slug, models))
    )
    report_dir = args.report or (args.out / "suite" / folder)
    files = build_report(
        [e.folder.path for e in done], report_dir, title=f"lexbench suite: {', '.join(models)}"
    )
    from lexbench.report.leaderboard import leaderboards, to_markdown
    from lexbench.report.runs import load_runs

    print(terminal_text(to_markdown(leaderboards(load_runs([e.folder.path for e in done])))))
    for name, reason in skipped:
        print(f"skipped {name}: {terminal_text(reason)}")
    print(f"report: {files.html} and {files.markdown}")
    if len(models) > 1:  # the paired comparisons between the models, per benchmark
        for path, _ in compare_models(groups, Path(args.out), models):
            print(f"comparison: {terminal_text(str(path))}")
    for evaluation in done:
        check_failures(args, evaluation)
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from lexbench.report.leaderboard import to_csv, to_markdown
    from lexbench.report.published_board import leaderboard_tables

    tables, notes = leaderboard_tables(runs_or_default(args.runs), args.published)
    text = to_csv(tables) if args.format == "csv" else to_markdown(tables, notes)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        print(terminal_text(text))
    return 0


def _rescore(args: argparse.Namespace) -> int:
    from lexbench.run.rescore import rescore_run

    rescored = rescore_run(args.run, write=args.write)
    print(terminal_text(rescored.report))
    print(
        f"{rescored.changed} of {rescored.items} items changed verdict or value"
        + ("; run folder updated" if args.write else " (use --write to update the run folder)")
    )
    return 0


def register(cli: Any) -> None:
    run = cli.benchmark_command(
        "run",
        "all",
        "run every benchmark whose data is available on one model or several "
        "(--model A,B) and write one report (benchmarks that cannot run are skipped, "
        "with the reason)",
        _run_all,
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

    board = cli.command(
        "leaderboard",
        "one table per benchmark across run folders: the headline metric with its 95%% interval",
        _leaderboard,
    )
    add_runs_argument(board, "runs/lambda")
    board.add_argument("--format", choices=["md", "csv"], default="md")
    board.add_argument("-o", "--output", type=Path, default=None, help="write to this file")
    add_published_argument(board)

    rescore = cli.command(
        "rescore",
        "score a run folder's recorded raw outputs again (any benchmark), without asking the model",
        _rescore,
    )
    rescore.add_argument("run", type=Path, help="a run folder")
    rescore.add_argument(
        "--write",
        action="store_true",
        help="replace the folder's samples, results, report and figures",
    )
