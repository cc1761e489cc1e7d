"""The verdict on a read SetLexSem answer against the ground truth, whichever parser read it
(`parse` for `--parser lexbench`, `paper_parse` for the authors' reading): exact-set
accuracy, the overlap metrics and the error class.

Accuracy is exact set equality. Precision = |P ∩ G| / |P|, recall = |P ∩ G| / |G|,
Jaccard = |P ∩ G| / |P ∪ G|; when a side is empty the ratio is 1 if both are empty, else 0.
Made-up members (in neither A nor B) are counted, and at most `MAX_LISTED` of them stored.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from lexbench.benchmarks.setlexsem.members import canonical_set
from lexbench.benchmarks.setlexsem.parse import ParsedAnswer
from lexbench.benchmarks.setlexsem.sets import Member, sort_members

__all__ = ["ERROR_CLASSES", "SetScore", "compare_sets", "score_answer", "unreadable"]

# Stored lists of made-up members are cut to this many (the count is always kept).
MAX_LISTED = 50


def _ratio(numerator: int, denominator: int, both_empty: bool) -> float:
    if denominator == 0:
        return 1.0 if both_empty else 0.0
    return numerator / denominator


@dataclass(frozen=True)
class SetScore:
    correct: bool
    precision: float
    recall: float
    jaccard: float
    error_class: str
    answer: list[Member] | None
    answer_size: int | None
    hallucinated: list[Member] = field(default_factory=list)
    format_error: str | None = None
    hallucinated_count: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "precision": self.precision,
            "recall": self.recall,
            "jaccard": self.jaccard,
            "error_class": self.error_class,
            "parsed_answer": self.answer,
            "answer_size": self.answer_size,
            "hallucinated": self.hallucinated,
            "hallucinated_count": self.hallucinated_count,
            "format_error": self.format_error,
        }


ERROR_CLASSES = (
    "format_failure",
    "empty_but_nonempty",
    "nonempty_but_empty",
    "hallucinated",
    "missing_members",
    "extra_members",
    "wrong_members",
)


def score_answer(
    parsed: ParsedAnswer, truth: Collection[Member], a: Sequence[Member], b: Sequence[Member]
) -> SetScore:
    """Exact-set verdict, overlap metrics and the error class (first match wins):
    format_failure; empty_but_nonempty (answered the empty set, truth is not empty);
    nonempty_but_empty (truth is empty); hallucinated (a member in neither A nor B);
    missing_members (a strict subset); extra_members (a strict superset); wrong_members.
    Gold, A and B are put in the parser's canonical form first, so case never decides."""
    if parsed.members is None:
        return unreadable(parsed.format_error)
    universe = canonical_set(a) | canonical_set(b)  # each set met again by other prompts
    return compare_sets(set(canonical_set(parsed.members)), set(canonical_set(truth)), universe)


def _sorted_members(members: Collection[Member]) -> list[Member]:
    """`sort_members` (numbers, then words), without its key function where the members are
    all of one kind (a plain sort orders those alike); ints beside text cannot be compared
    by a plain sort, which raises, and then the key decides."""
    try:
        return sorted(members)
    except TypeError:
        return sort_members(members)


def unreadable(format_error: str | None) -> SetScore:
    """The verdict on an answer that could not be read (a format failure)."""
    return _set_score(False, 0.0, 0.0, 0.0, "format_failure", None, None, [], format_error, 0)


def _set_score(
    correct: bool,
    precision: float,
    recall: float,
    jaccard: float,
    error_class: str,
    answer: list[Member] | None,
    answer_size: int | None,
    hallucinated: list[Member],
    format_error: str | None,
    hallucinated_count: int,
) -> SetScore:
    """`SetScore(...)` with every field given, set without the frozen dataclass's guarded
    `__setattr__` per field (two or three verdicts are made per answer)."""
    made = object.__new__(SetScore)
    made.__dict__.update(
        correct=correct,
        precision=precision,
        recall=recall,
        jaccard=jaccard,
        error_class=error_class,
        answer=answer,
        answer_size=answer_size,
        hallucinated=hallucinated,
        format_error=format_error,
        hallucinated_count=hallucinated_count,
    )
    return made


def compare_sets(
    predicted: set[Member], gold: set[Member], universe: Collection[Member]
) -> SetScore:
    """The verdict on a read answer, members compared as given (`universe`: A ∪ B)."""
    hit = len(predicted & gold)
    both_empty = not predicted and not gold
    precision = _ratio(hit, len(predicted), both_empty)
    recall = _ratio(hit, len(gold), both_empty)
    jaccard = _ratio(hit, len(predicted | gold), both_empty)
    made_up = _sorted_members(predicted.difference(universe))
    answer = _sorted_members(predicted)
    if predicted == gold:
        error_class = "correct"
    elif not predicted:
        error_class = "empty_but_nonempty"
    elif not gold:
        error_class = "nonempty_but_empty"
    elif made_up:
        error_class = "hallucinated"
    elif predicted < gold:
        error_class = "missing_members"
    elif predicted > gold:
        error_class = "extra_members"
    else:
        error_class = "wrong_members"
    return _set_score(
        predicted == gold,
        precision,
        recall,
        jaccard,
        error_class,
        answer,
        len(predicted),
        made_up[:MAX_LISTED],
        None,
        len(made_up),
    )
