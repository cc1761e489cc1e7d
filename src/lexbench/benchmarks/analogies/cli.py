"""`lexbench run google|bats|pairs|sat`: the classic analogy sets in the same harness."""

from __future__ import annotations

import argparse
from typing import Any

from lexbench.commands.common import (
    add_limit_argument,
    add_model_arguments,
    add_run_arguments,
    model_options,
    positive_int,
    run_and_report,
    run_options,
)
from lexbench.commands.numbers import SEED, count

#: Complete analogies prepended to a query: a handful at most fits a small model's context.
SHOTS = count(0, 100)

SETS = {
    "google": (
        "the Google analogy set (questions-words.txt)",
        "questions-words.txt (default: gensim's copy, else a checked download)",
    ),
    "bats": (
        "BATS 3.0 (40 relations, every ordered pair of lines)",
        "BATS_3.0.zip or its folder (default: download once, checked by SHA-1 per file)",
    ),
    "pairs": (
        "a word-pair analogy file: word2vec-format questions or BATS-style pair lists",
        "the file, folder or zip (required)",
    ),
}


def _handler(name: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        from lexbench import api
        from lexbench.models.registry import split_spec

        options = model_options(args)
        if split_spec(args.model)[0] == "vectors":
            options.update(vector_options(args))
        elif args.restrict_vocab:
            raise ValueError("--restrict-vocab applies to word-vector models")
        run_and_report(
            args,
            lambda cache: api.run(
                name,
                args.model,
                model_options=options,
                cache=cache,
                use_cache=cache is not None,
                data=args.data,
                limit_per_relation=args.limit,
                shots=args.shots,
                seed=args.seed,
                method=args.method,
                **run_options(args),
            ),
        )
        return 0

    return run


def _run_sat(args: argparse.Namespace) -> int:
    from lexbench import api
    from lexbench.models.registry import split_spec

    options = model_options(args)
    if split_spec(args.model)[0] == "vectors":
        options.update(vector_options(args))
    run_and_report(
        args,
        lambda cache: api.run(
            "sat",
            args.model,
            model_options=options,
            cache=cache,
            use_cache=cache is not None,
            data=args.data,
            method=args.method,
            limit=args.limit,
            **run_options(args),
        ),
    )
    return 0


def register_sat(cli: Any) -> None:
    """`lexbench run sat`."""
    sat = cli.benchmark_command(
        "run",
        "sat",
        "evaluate a model on SAT-style multiple-choice analogies from a file",
        _run_sat,
    )
    group = sat.add_argument_group("dataset")
    group.add_argument(
        "--data",
        required=True,
        help="JSON lines {stem, choice, answer} or Turney's SAT text format",
    )
    add_limit_argument(group, "file (SAT has no relations: the first N questions)")
    group.add_argument(
        "--method",
        default=None,
        choices=["3cosadd", "3cosmul", "pairdiff", "scan-paper"],
        help="word-vector models only (default pairdiff)",
    )
    group.add_argument(
        "--restrict-vocab",
        type=positive_int,
        default=None,
        metavar="N",
        help="word-vector models only: keep the N most frequent words",
    )
    add_model_arguments(sat)
    add_run_arguments(sat)


def register_set(cli: Any, name: str) -> None:
    """`lexbench run google|bats|pairs`."""
    description, data_help = SETS[name]
    parser = cli.benchmark_command(
        "run", name, f"evaluate a model on {description}", _handler(name)
    )
    group = parser.add_argument_group("dataset")
    group.add_argument("--data", default=None, required=name == "pairs", help=data_help)
    group.add_argument(
        "--limit",
        "--limit-per-relation",  # the earlier spelling, kept working
        dest="limit",
        type=positive_int,
        default=None,
        metavar="N",
        help="a slice: the first N questions of each section/relation, in a seeded "
        "shuffle of it (the file lists each word pair's questions together); every "
        "`lexbench run` reads --limit this way (default: all)",
    )
    add_ranking_arguments(parser, shots_nargs=None)
    add_model_arguments(parser)
    add_run_arguments(parser)


def add_ranking_arguments(parser: argparse.ArgumentParser, *, shots_nargs: str | None) -> None:
    """Options every ranking-analogy run shares (SCAN, Google, BATS, pair files)."""
    group = parser.add_argument_group("analogies")
    if shots_nargs:
        group.add_argument(
            "--shots",
            type=SHOTS,
            nargs=shots_nargs,
            default=[0],
            metavar="K",
            help="complete analogies prepended to the query (0 or 1; several "
            "values run each and write one combined report)",
        )
    else:
        group.add_argument(
            "--shots",
            type=SHOTS,
            default=0,
            metavar="K",
            help="complete analogies prepended to the query (default 0)",
        )
    group.add_argument("--seed", type=SEED, default=0, help="seed of the shot choice (default 0)")
    group.add_argument(
        "--method",
        default=None,
        choices=["3cosadd", "3cosmul", "pairdiff", "scan-paper"],
        help="word-vector models only: how to solve a : b :: c : ? "
        "(default: scan-paper on SCAN and BATS, as the SCAN paper; 3cosadd "
        "on Google and pair files)",
    )
    group.add_argument(
        "--restrict-vocab",
        type=positive_int,
        default=None,
        metavar="N",
        help="word-vector models only: keep the N most frequent words (as gensim's restrict_vocab)",
    )


def vector_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"restrict": args.restrict_vocab} if args.restrict_vocab else {}
