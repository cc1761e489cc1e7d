"""`lexbench run scan`: one condition, or several conditions and a baseline in one report."""

from __future__ import annotations

import argparse
from typing import Any

from lexbench.commands.common import (
    add_model_arguments,
    add_run_arguments,
    model_options,
    open_cache,
    positive_int,
    run_and_report,
    terminal_text,
)


def add_ranking_arguments(parser: argparse.ArgumentParser, *, shots_nargs: str | None) -> None:
    """Options every ranking-analogy run shares (SCAN, Google, BATS, pair files)."""
    group = parser.add_argument_group("analogies")
    if shots_nargs:
        group.add_argument("--shots", type=int, nargs=shots_nargs, default=[0], metavar="K",
                           help="complete analogies prepended to the query (0 or 1; several "
                                "values run each and write one combined report)")
    else:
        group.add_argument("--shots", type=int, default=0, metavar="K",
                           help="complete analogies prepended to the query (default 0)")
    group.add_argument("--seed", type=int, default=0, help="seed of the shot choice (default 0)")
    group.add_argument("--method", default=None,
                       choices=["3cosadd", "3cosmul", "pairdiff", "scan-paper"],
                       help="word-vector models only: how to solve a : b :: c : ? "
                            "(default: scan-paper on SCAN and BATS, as the SCAN paper; 3cosadd "
                            "on Google and pair files)")
    group.add_argument("--restrict-vocab", type=positive_int, default=None, metavar="N",
                       help="word-vector models only: keep the N most frequent words "
                            "(as gensim's restrict_vocab)")


def vector_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"restrict": args.restrict_vocab} if args.restrict_vocab else {}


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options every `lexbench run` passes to `api.run` (cache, output, chat)."""
    return {"out": args.out, "progress": not args.no_progress, "chat": args.chat}


def _run(args: argparse.Namespace) -> int:
    from lexbench import api
    from lexbench.benchmarks.scan import compare_scan
    from lexbench.models.registry import split_spec

    for k in args.shots:
        if k < 0:
            raise ValueError(f"--shots takes counts of 0 or more, got {k}")
    options = model_options(args)
    if split_spec(args.model)[0] == "vectors":
        options.update(vector_options(args))
    if len(args.shots) == 1 and args.baseline is None:
        run_and_report(args, lambda cache: api.run(
            "scan", args.model, model_options=options, cache=cache,
            use_cache=cache is not None, data=args.data, shots=args.shots[0], seed=args.seed,
            limit=args.limit, types=args.types, method=args.method, **run_options(args)))
        return 0
    if args.method is not None and split_spec(args.model)[0] != "vectors":
        raise ValueError("--method applies to word-vector models; use --baseline-method "
                         "for the baseline")
    baseline_options = vector_options(args) if args.baseline and \
        split_spec(args.baseline)[0] == "vectors" else {}
    cache = open_cache(args)
    try:
        combined = compare_scan(args.model, shots=args.shots, baseline=args.baseline,
                                baseline_method=args.baseline_method, data=args.data,
                                seed=args.seed, limit=args.limit, types=args.types,
                                model_options=options, baseline_options=baseline_options,
                                resamples=args.resamples,
                                unpaired_resamples=args.unpaired_resamples, out=args.out,
                                cache=cache, use_cache=cache is not None,
                                progress=not args.no_progress)
    finally:
        if cache is not None:
            cache.close()
    print(terminal_text(combined["report"]))
    print(f"combined report: {combined['folder']}/report.md")
    return 0


def register(cli: Any) -> None:
    run = cli.benchmark_command(
        "run", "scan", "evaluate a model on SCAN (science and metaphor analogies, MRR@10)", _run)
    data = run.add_argument_group("dataset")
    data.add_argument("--data", default=None,
                      help="a SCAN_dataset.csv (default: the copy shipped with lexbench)")
    data.add_argument("--limit", type=positive_int, default=None,
                      help="evaluate the first N analogies")
    data.add_argument("--types", nargs="+", choices=["science", "metaphor"], default=None,
                      help="only these analogy types")
    add_ranking_arguments(run, shots_nargs="+")
    compare = run.add_argument_group("comparison")
    compare.add_argument("--baseline", default=None, metavar="SPEC",
                         help="also run this model (e.g. glove) and put it beside the others "
                              "in one combined report")
    compare.add_argument("--baseline-method", default=None,
                         choices=["3cosadd", "3cosmul", "pairdiff", "scan-paper"],
                         help="the baseline's vector method (default scan-paper, the paper's)")
    compare.add_argument("--resamples", type=positive_int, default=100_000,
                         help="paired permutation resamples (default 100000)")
    compare.add_argument("--unpaired-resamples", type=positive_int, default=1_000_000,
                         help="resamples of the paper's unpaired permutation test "
                              "(default 1000000, the paper's)")
    add_model_arguments(run)
    add_run_arguments(run)
