"""Agreement between annotators: Cohen's kappa for two, Fleiss' kappa for more.

Both compare the agreement observed with the agreement expected by chance from how often
each label is used: kappa = (observed - expected) / (1 - expected). Labels are any hashable
values (a LAMBDA answer word, an E-KAR letter, True/False for right/wrong).

When every rating uses one and the same label, chance agreement is 1 and kappa is 0/0: it
is returned as NaN (undefined), as scikit-learn does, never as a made-up 0 or 1.

    >>> round(cohen_kappa(["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15,
    ...                   ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15).kappa, 3)
    0.4
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Agreement:
    """A kappa with the two agreements it is made of."""

    method: str  # "cohen" or "fleiss"
    kappa: float  # NaN when chance agreement is 1 (a single label throughout)
    observed: float  # share of agreeing ratings (Cohen) or mean pairwise agreement (Fleiss)
    expected: float  # agreement expected by chance
    items: int
    raters: int

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["kappa"] = None if math.isnan(self.kappa) else self.kappa
        return out


def _kappa(observed: float, expected: float) -> float:
    if math.isclose(expected, 1.0):
        return math.nan
    return (observed - expected) / (1.0 - expected)


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> Agreement:
    """Cohen's kappa between two raters who labelled the same items (in the same order)."""
    if len(first) != len(second):
        raise ValueError(
            f"Cohen's kappa needs one label per item from each rater; got "
            f"{len(first)} and {len(second)} labels"
        )
    n = len(first)
    if n == 0:
        raise ValueError("Cohen's kappa needs at least one item rated by both raters")
    observed = sum(1 for a, b in zip(first, second) if a == b) / n
    count_a, count_b = Counter(first), Counter(second)
    expected = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    return Agreement("cohen", _kappa(observed, expected), observed, expected, n, 2)


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> Agreement:
    """Fleiss' kappa: `ratings[i]` holds the labels every rater gave item i (the same number
    of raters for every item, at least two; who gave which label does not matter)."""
    if not ratings:
        raise ValueError("Fleiss' kappa needs at least one item")
    raters = len(ratings[0])
    if raters < 2:
        raise ValueError(f"Fleiss' kappa needs at least two ratings per item, got {raters}")
    uneven = [i for i, row in enumerate(ratings) if len(row) != raters]
    if uneven:
        raise ValueError(
            f"Fleiss' kappa needs {raters} ratings for every item; item(s) "
            f"{uneven[:5]} have another number"
        )
    totals: Counter[Hashable] = Counter()
    agreement_per_item = []
    for row in ratings:
        counts = Counter(row)
        totals.update(counts)
        # Share of the rater pairs (ordered, without self-pairs) that agree on this item.
        agreement_per_item.append(
            sum(c * (c - 1) for c in counts.values()) / (raters * (raters - 1))
        )
    n = len(ratings)
    observed = sum(agreement_per_item) / n
    expected = sum((count / (n * raters)) ** 2 for count in totals.values())
    return Agreement("fleiss", _kappa(observed, expected), observed, expected, n, raters)


def kappa(labels_by_rater: Sequence[Sequence[Hashable]]) -> Agreement:
    """Cohen's kappa for two raters, Fleiss' for more: `labels_by_rater[r][i]` is rater r's
    label for item i (every rater labelled every item, in the same order)."""
    if len(labels_by_rater) < 2:
        raise ValueError(f"agreement needs at least two raters, got {len(labels_by_rater)}")
    if len(labels_by_rater) == 2:
        return cohen_kappa(labels_by_rater[0], labels_by_rater[1])
    lengths = {len(labels) for labels in labels_by_rater}
    if len(lengths) != 1:
        raise ValueError(f"every rater must label the same items; got {sorted(lengths)} labels")
    return fleiss_kappa([list(item) for item in zip(*labels_by_rater)])
