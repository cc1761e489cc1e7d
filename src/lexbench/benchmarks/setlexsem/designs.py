"""Which configurations each of the SetLexSem paper's tables is computed on (its designs), and
the paper's order of levels in a table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.benchmarks.setlexsem.prompts import PAPER_METHODS, PAPER_PHRASINGS

Config = Mapping[str, Any]


PAPER_SIZES = (2, 4, 8, 16)


PAPER_K = (0, 1, 3, 5)


PAPER_LENGTHS = (1, 2, 3, 4)


ALLOW_EMPTY = ("baseline_allow_empty", "cot_self_reflection_allow_empty")


PAPER_DECILES = tuple(range(1, 10))


# The authors' binning of the whole vocabulary (their `make_percentiles`): on Google Books'
# scale (the paper grid's scope, see setlexsem.deciles) or scale-free (the rarest ranked
# word counting 1). Table 7 and Figure 6b take the first of these a run has, never both.
AUTHORS_DECILE_SCOPES = ("global_books_scale", "global")


def authors_decile_scope(configs: Sequence[Config]) -> str:
    """The scope Table 7 and Figure 6b are computed in, for a run's configurations."""
    present = {c["decile_scope"] for c in configs if c["token_type"] == "deciles"}
    return next((s for s in AUTHORS_DECILE_SCOPES if s in present), AUTHORS_DECILE_SCOPES[0])


def in_main_design(c: Config) -> bool:
    return (
        c["token_type"] in ("numbers", "words")
        and c["token_length"] in PAPER_LENGTHS
        and c["overlap"] is None
        and c["m"] in PAPER_SIZES
        and c["k"] in PAPER_K
        and c["method"] in PAPER_METHODS
        and c["phrasing"] in PAPER_PHRASINGS
    )


def in_deceptive_design(c: Config) -> bool:
    return (
        c["token_type"] == "deceptive"
        and c["method"] in ALLOW_EMPTY
        and c["phrasing"] == "formal"
        and c["k"] in PAPER_K
        and c["m"] in PAPER_SIZES
    )


def in_decile_design(c: Config, scope: str = AUTHORS_DECILE_SCOPES[0]) -> bool:
    return (
        c["token_type"] == "deciles"
        and c["decile_scope"] == scope
        and c["decile"] in PAPER_DECILES
        and c["token_length"] in (3, 5)
        and c["method"] in ALLOW_EMPTY
        and c["phrasing"] == "formal"
        and c["k"] in PAPER_K
        and c["m"] in PAPER_SIZES
    )


def pooled_main(configs: Sequence[Config]) -> list[dict[str, Any]]:
    """The configurations of the paper's Tables 4, 5, 6 and 10: the main design plus the
    deceptive random baseline relabelled as words of undefined length."""
    out = [dict(c) for c in configs if in_main_design(c)]
    out += [
        {**c, "token_type": "words", "token_length": None}
        for c in configs
        if in_deceptive_design(c) and c["deceptive_condition"] == "random_baseline"
    ]
    return out


def paper_order(value: Any) -> tuple[Any, ...]:
    known = {
        "union": 0,
        "intersection": 1,
        "difference": 2,
        "symmetric_difference": 3,
        "numbers": 0,
        "words": 1,
        "not_swapped": 0,
        "swapped": 1,
        "random_baseline": 2,
        "formal": 0,
        "plain": 1,
    }
    known.update({m: i for i, m in enumerate(PAPER_METHODS)})
    if value is None:
        return (0, 0, "")
    if isinstance(value, str):
        return (2, known.get(value, 99), value)
    return (1, value, "")
