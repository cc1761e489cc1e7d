"""`lexbench run google|bats|pairs|sat`: the classic analogy sets in the same harness."""

from __future__ import annotations

import argparse
from typing import Any

from lexbench.commands.arguments import add_limit_argument, positive_int
from lexbench.commands.numbers import SEED, count
from lexbench.commands.requests import RunCommand

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


def _set_options(args: argparse.Namespace) -> dict[str, Any]:
    """The builder options of `lexbench run google|bats|pairs` (slice and data are shared)."""
    return {"shots": args.shots, "seed": args.seed, "method": args.method}


def _sat_options(args: argparse.Namespace) -> dict[str, Any]:
    """The builder options of `lexbench run sat` (slice and data are shared)."""
    return {"method": args.method}


def vector_model_options(args: argparse.Namespace, model: str) -> dict[str, Any]:
    """`--restrict-vocab N` as the word-vector backend's option, for word-vector models."""
    from lexbench.models.registry import split_spec

    if split_spec(model)[0] == "vectors":
        return vector_options(args)
    if args.restrict_vocab:
        raise ValueError("--restrict-vocab applies to word-vector models")
    return {}


def register_sat(cli: Any) -> None:
    """`lexbench run sat`."""
    sat = cli.run_command(
        "sat",
        "evaluate a model on SAT-style multiple-choice analogies from a file",
        RunCommand(_sat_options, model_options=vector_model_options),
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


def register_set(cli: Any, name: str) -> None:
    """`lexbench run google|bats|pairs`."""
    description, data_help = SETS[name]
    parser = cli.run_command(
        name,
        f"evaluate a model on {description}",
        RunCommand(_set_options, model_options=vector_model_options),
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
