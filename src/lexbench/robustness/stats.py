"""The statistics of robustness: a t interval of a mean across sets, where one value falls
among others (rank, z), the exact permutation p of the published set, and a one-sided
Fisher exact test.

    >>> t_interval([0.5, 0.6, 0.7]).to_dict()["high"] > 0.8
    True
    >>> published_position(0.9, [0.5, 0.6, 0.7])["p_value"]
    0.25
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lexbench.stats import Interval


def t_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """mean ± t(n-1) · SD/√n: the interval of the mean across sets (n ≥ 2; one set has no
    spread, so its interval is undefined)."""
    from scipy.special import stdtrit

    data = [float(v) for v in values if v == v]
    n = len(data)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, "t")
    mean = sum(data) / n
    if n == 1:
        return Interval(mean, math.nan, math.nan, 1, "t")
    half = float(stdtrit(n - 1, 1 - (1 - confidence) / 2)) * sample_sd(data) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n, "t")


def sample_sd(values: Sequence[float]) -> float:
    """The sample standard deviation (n − 1); NaN below two values."""
    data = [float(v) for v in values if v == v]
    if len(data) < 2:
        return math.nan
    mean = sum(data) / len(data)
    return math.sqrt(sum((v - mean) ** 2 for v in data) / (len(data) - 1))


def published_position(published: float, fresh: Sequence[float]) -> dict[str, Any]:
    """Where the published set's accuracy falls among the fresh sets' accuracies.

    `rank`: 1 + the number of fresh sets scoring at least as high (1 = better than every
    fresh set; a tie counts against the published set, as in p, so p = rank / (K + 1));
    `z`: (published − mean of fresh) / SD of fresh; `p_value`: the exact one-sided
    permutation p that the published set is no better than a fresh one, the share of the
    K + 1 sets scoring at least as high as the published one (ties count against it). If
    the published set is exchangeable with the fresh ones (drawn the same way, and the
    model has no reason to know it better), its rank is uniform on 1..K+1, so p can be no
    smaller than 1/(K + 1): K = 19 fresh sets are needed to reach p = 0.05.

    A NaN published value (no items of the cell in the published set) has no place: rank
    None, and NaN gap, z and p.
    """
    values = [float(v) for v in fresh if v == v]
    k = len(values)
    mean = sum(values) / k if k else math.nan
    sd = sample_sd(values)
    known = published == published
    at_least = 1 + sum(1 for v in values if v >= published)
    return {
        "published": published,
        "fresh_mean": mean,
        "gap": published - mean if k and known else math.nan,
        "rank": at_least if known else None,
        "of": k + 1,
        "z": (published - mean) / sd if known and sd and sd == sd and sd > 0 else math.nan,
        "p_value": at_least / (k + 1) if known else math.nan,
        "smallest_possible_p": 1 / (k + 1),
        "method": "exact permutation over sets (rank among K + 1)",
    }


def fisher_exact_greater(a_hits: int, a_total: int, b_hits: int, b_total: int) -> float:
    """One-sided Fisher exact p that group A's hit rate is higher than group B's: the
    hypergeometric probability of A getting `a_hits` or more of all hits, margins fixed.

    >>> round(fisher_exact_greater(8, 10, 1, 10), 4)
    0.0027
    >>> fisher_exact_greater(0, 10, 0, 10)
    1.0
    """
    for hits, total in ((a_hits, a_total), (b_hits, b_total)):
        if not 0 <= hits <= total:
            raise ValueError(f"need 0 <= hits <= total, got {hits} of {total}")
    hits = a_hits + b_hits
    n = a_total + b_total
    denominator = math.comb(n, hits)
    if denominator == 0:
        return 1.0
    upper = min(hits, a_total)
    tail = sum(
        math.comb(a_total, x) * math.comb(b_total, hits - x) for x in range(a_hits, upper + 1)
    )
    return min(1.0, tail / denominator)
