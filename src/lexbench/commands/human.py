"""`lexbench human ...`: human baselines in the browser, for every benchmark with a study task.

    lexbench human serve lambda --sample paper --study studies/lambda [--port 8765]
    lexbench human serve ekar --data DIR --language en --study studies/ekar-en
    lexbench human results studies/lambda [--out runs]

A benchmark offers a study through its `BenchmarkSpec.human_task`; its task adds the options
that say which items a study draws from (`lexbench human serve NAME --help`). Commands only
one benchmark has (LAMBDA's CSV sheets) are registered by that benchmark.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.common import terminal_text
from lexbench.commands.numbers import PORT, SEED


def _serve(args: argparse.Namespace) -> int:
    from lexbench.human.app import serve
    from lexbench.human.sampling import open_or_create, parse_sample
    from lexbench.human.store import check_annotator
    from lexbench.human.tasks import task_for

    task = task_for(args.benchmark)
    sample = parse_sample(args.sample)
    for name in args.annotators or ():
        check_annotator(name)
    study_dir = args.study or Path("studies") / args.benchmark
    study, created = open_or_create(
        study_dir,
        args.benchmark,
        sample=sample,
        sample_seed=args.sample_seed,
        options=task.options(args),
        definitions=args.definitions,
        order=args.order,
    )
    done = {name: study.progress(name) for name in study.annotators()}
    state = "created" if created else "resumed"
    total = len(study.items())
    print(f"study {study_dir} {state}: {args.benchmark}, {total} items")
    for name, progress in done.items():
        print(f"  {name}: {progress.done} of {progress.total} answered")
    print(
        f"open http://127.0.0.1:{args.port}/ (each annotator enters a name; Ctrl-C stops "
        f"the server, every answer is already saved)"
    )
    try:
        serve(study, port=args.port, wordnet=args.wordnet, annotators=args.annotators)
    finally:
        study.close()
    return 0


def _results(args: argparse.Namespace) -> int:
    from lexbench.human.results import study_results

    results = study_results(args.study, out=args.out, wordnet=args.wordnet, crowd=not args.no_crowd)
    print(terminal_text(results.report))
    print(f"summary: {Path(args.study) / 'results.md'} and results.json")
    return 0


def _add_serve_arguments(parser: argparse.ArgumentParser, task: Any) -> None:
    paper = (
        f"the paper's sample ({task.paper_sample} {task.sample_unit})"
        if task.paper_sample is not None
        else "none: the paper reports no human study"
    )
    parser.add_argument(
        "--sample", default="paper", help=f"paper ({paper}) or N ({task.sample_unit})"
    )
    parser.add_argument("--sample-seed", type=SEED, default=0)
    parser.add_argument(
        "--order",
        choices=["same", "per-annotator"],
        default="same",
        help="the order items come in: the study's own for every annotator "
        "(default), or each annotator's own random order, the same again "
        "after a reload (set when the study is created)",
    )
    parser.add_argument(
        "--study",
        type=Path,
        default=None,
        help="the study directory (default studies/BENCHMARK); an existing study is resumed",
    )
    parser.add_argument("--port", type=PORT, default=8765)
    parser.add_argument(
        "--annotators",
        nargs="+",
        default=None,
        metavar="NAME",
        help="only these names may annotate (default: any name)",
    )
    parser.add_argument(
        "--definitions",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer the WordNet definitions panel (default: "
        f"{'yes' if task.definitions else 'no'} for this benchmark)",
    )
    parser.add_argument(
        "--wordnet",
        default=None,
        help="a WordNet 3.0 database directory (default: found automatically)",
    )
    task.add_arguments(parser)


def register(cli: Any) -> None:
    from lexbench import plugins

    serve = cli.benchmark_command(
        "human",
        "serve",
        "run a human study in the browser (127.0.0.1), answers saved at once",
        None,
    )
    studies = serve.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for spec in plugins.benchmarks():
        if spec.human_task is None:
            continue
        task = spec.human_task()
        parser = studies.add_parser(
            spec.name,
            help=f"a human study of {spec.description}",
            description=f"A human study of {spec.description}.",
        )
        parser.set_defaults(handler=_serve)
        _add_serve_arguments(parser, task)

    results = cli.benchmark_command(
        "human",
        "results",
        "score a study: a run folder per annotator (model human:NAME), agreement, crowd vote",
        _results,
    )
    results.add_argument("study", type=Path, help="a study directory")
    results.add_argument(
        "--out", type=Path, default=Path("runs"), help="root of the run folders (default ./runs)"
    )
    results.add_argument("--wordnet", default=None)
    results.add_argument("--no-crowd", action="store_true", help="no majority-vote run")
