"""Statistics the papers use, and better ones.

* Proportions: Wald (what LAMBDA prints) and Wilson (better near 0 and 1) 95% intervals.
* Bootstrap percentile intervals for any statistic, seeded.
* Permutation tests, two-sided: paired (sign flips of per-item differences) and unpaired
  (random re-splits, scipy's p-value: twice the smaller one-sided p, exact when the splits
  are few), with the +1 correction so a Monte-Carlo p-value is never exactly 0.
* Exact McNemar for paired accuracies; Spearman's rho; standard errors clustered by group
  (SCAN's analogies within one concept mapping are not independent).

Every random procedure takes a seed and uses its own `numpy.random.Generator`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from lexbench.parts import with_interval

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided interval."""

    estimate: float
    low: float
    high: float
    n: int
    method: str

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)

    def __str__(self) -> str:
        """`0.083 [0.041, 0.125]`; "n/a" where there is no estimate (no item)."""
        return with_interval(self.estimate, self.low, self.high)


def _check_counts(successes: int, n: int) -> None:
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")


def wald_interval(successes: int, n: int, z: float = Z95) -> Interval:
    """p ± z·sqrt(p(1−p)/n), clipped to [0, 1]; the interval LAMBDA reports.

    >>> str(wald_interval(50, 100))
    '0.500 [0.402, 0.598]'
    """
    _check_counts(successes, n)
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, "wald")
    p = successes / n
    half = z * math.sqrt(p * (1 - p) / n)
    return Interval(p, max(0.0, p - half), min(1.0, p + half), n, "wald")


def wilson_interval(successes: int, n: int, z: float = Z95) -> Interval:
    """Wilson score interval: keeps its coverage when p is near 0 or 1 or n is small.

    >>> str(wilson_interval(0, 10))
    '0.000 [0.000, 0.278]'
    """
    _check_counts(successes, n)
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, "wilson")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n, "wilson")


def bootstrap_interval(
    values: Sequence[float],
    statistic: Callable[[np.ndarray], float] = np.mean,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval of `statistic` over `values`."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, "bootstrap")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, data.size, size=(resamples, data.size))
    stats = np.array([statistic(data[row]) for row in draws])
    alpha = (1 - confidence) / 2
    low, high = np.quantile(stats, [alpha, 1 - alpha])
    return Interval(float(statistic(data)), float(low), float(high), int(data.size), "bootstrap")


@dataclass(frozen=True)
class TestResult:
    statistic: float
    p_value: float
    n: int
    method: str

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def paired_permutation_test(
    a: Sequence[float], b: Sequence[float], resamples: int = 100_000, seed: int = 0
) -> TestResult:
    """Two-sided test of mean(a − b) = 0 for paired scores, by random sign flips.

    The statistic is the mean difference; p = (1 + #{|perm| >= |observed|}) / (1 + resamples).
    Resampling runs in blocks so 10^5 resamples of thousands of items stay in memory.
    """
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired test needs equal lengths, got {x.size} and {y.size}")
    if x.size == 0:
        raise ValueError("paired test needs at least one pair")
    differences = x - y
    observed = float(differences.mean())
    rng = np.random.default_rng(seed)
    tolerance = 1e-12 * max(1.0, abs(observed))
    extreme = 0
    block = max(1, min(resamples, 2_000_000 // max(1, differences.size)))
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        signs = rng.integers(0, 2, size=(size, differences.size), dtype=np.int8) * 2 - 1
        means = (signs * differences).mean(axis=1)
        extreme += int(np.count_nonzero(np.abs(means) >= abs(observed) - tolerance))
        done += size
    return TestResult(observed, (extreme + 1) / (resamples + 1), int(x.size), "paired permutation")


#: How a two-sided permutation p-value is formed from the null distribution.
#: "doubled": scipy.stats.permutation_test's (which the SCAN authors called): twice the
#: smaller one-sided p, capped at 1. "absolute": lexbench's earlier, #{|null| >= |obs|}.
TWO_SIDED = ("doubled", "absolute")


def permutation_test(
    a: Sequence[float],
    b: Sequence[float],
    resamples: int = 100_000,
    seed: int = 0,
    two_sided: str = "doubled",
) -> TestResult:
    """Two-sided test of mean(a) = mean(b) for independent samples, by re-splitting the
    pooled values at random: scipy.stats.permutation_test(permutation_type="independent").

    p-value, as scipy forms it (`two_sided="doubled"`): each one-sided p is
    (1 + #{null <= obs}) / (1 + R) and (1 + #{null >= obs}) / (1 + R); the two-sided p is
    twice the smaller, capped at 1. When the number of distinct splits C(n_a + n_b, n_a)
    is at most `resamples`, every split is counted once and the p is exact (no +1), as
    scipy enumerates them. `two_sided="absolute"`: (1 + #{|null| >= |obs|}) / (1 + R).

    Fast and exact in distribution: a split changes the statistic only through how many
    copies of each distinct value land in `a`, and under a uniformly random split those
    counts are multivariate hypergeometric, so they are drawn directly (numpy) instead of
    shuffling all values: 10^6 resamples of SCAN's reciprocal ranks (at most 11 distinct
    values) take 2-3 s on two CPU cores (measurements/performance/permutation_speed.py).
    """
    if two_sided not in TWO_SIDED:
        raise ValueError(f"two_sided must be one of {', '.join(TWO_SIDED)}, got {two_sided!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.size == 0 or y.size == 0:
        raise ValueError("permutation test needs two non-empty samples")
    pooled = np.concatenate([x, y])
    if not np.all(np.isfinite(pooled)):
        raise ValueError("permutation test needs finite values (no NaN or infinity)")
    values, counts = np.unique(pooled, return_counts=True)
    in_a = np.bincount(np.searchsorted(values, x), minlength=values.size)
    observed_sum = _split_sums(in_a[None, :], values)[0]
    # Splits whose sums are mathematically equal may differ by rounding; a bound on it.
    tolerance = 64 * np.finfo(float).eps * values.size * max(1.0, float(np.abs(pooled).sum()))
    method = "unpaired permutation"
    splits = math.comb(pooled.size, x.size)
    # Enumerate as scipy does when the splits are few, unless the distinct values are so
    # many that building them would cost more than the draws (then: Monte Carlo).
    if splits <= resamples and splits * values.size <= 50_000_000:
        sums, weights = _all_split_sums(values, counts, x.size)
        total, adjustment = float(weights.sum()), 0
        less = float(weights[sums <= observed_sum + tolerance].sum())
        greater = float(weights[sums >= observed_sum - tolerance].sum())
        centre = _centre_sum(pooled, x.size)
        extreme = float(
            weights[np.abs(sums - centre) >= abs(observed_sum - centre) - tolerance].sum()
        )
        method += ", exact (every split)"
    else:
        rng = np.random.default_rng(seed)
        total, adjustment = float(resamples), 1
        less = greater = extreme = 0.0
        centre = _centre_sum(pooled, x.size)
        block = max(1, min(resamples, 4_000_000 // values.size))
        done = 0
        while done < resamples:
            size = min(block, resamples - done)
            drawn = rng.multivariate_hypergeometric(counts, x.size, size=size)
            sums = _split_sums(drawn, values)
            less += int(np.count_nonzero(sums <= observed_sum + tolerance))
            greater += int(np.count_nonzero(sums >= observed_sum - tolerance))
            far = np.abs(sums - centre) >= abs(observed_sum - centre) - tolerance
            extreme += int(np.count_nonzero(far))
            done += size
    if two_sided == "doubled":
        one_sided = min(less + adjustment, greater + adjustment) / (total + adjustment)
        p_value = min(1.0, 2.0 * one_sided)
    else:
        p_value = min(1.0, (extreme + adjustment) / (total + adjustment))
    statistic = float(x.mean() - y.mean())
    return TestResult(statistic, p_value, int(pooled.size), f"{method}, two-sided {two_sided}")


def _split_sums(in_a: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum of group a's values per split (rows: copies of each distinct value in a), added
    value by value in one fixed order, so the same split always gives the same float."""
    sums = np.zeros(in_a.shape[0])
    for column, value in enumerate(values):
        sums += in_a[:, column] * value
    return sums


def _centre_sum(pooled: np.ndarray, size_a: int) -> float:
    """Group a's sum at which mean(a) - mean(b) is 0: |statistic| is |sum - centre| scaled."""
    return float(pooled.sum()) * size_a / pooled.size


def _all_split_sums(
    values: np.ndarray, counts: np.ndarray, size_a: int
) -> tuple[np.ndarray, np.ndarray]:
    """Every way to take `size_a` of the pooled values, as (group a's sum, how many splits
    give it), built value by value in `_split_sums`'s order (so the observed split's sum is
    the same float); only called when the splits are few."""
    taken = np.zeros(1, dtype=np.int64)
    sums = np.zeros(1)
    weights = np.ones(1)
    left = int(counts.sum())
    for value, count in zip(values, counts):
        left -= int(count)
        parts = []
        for m in range(int(count) + 1):
            now = taken + m
            keep = (now <= size_a) & (now + left >= size_a)
            parts.append(
                (now[keep], sums[keep] + m * value, weights[keep] * math.comb(int(count), m))
            )
        taken = np.concatenate([part[0] for part in parts])
        sums = np.concatenate([part[1] for part in parts])
        weights = np.concatenate([part[2] for part in parts])
    return sums, weights


def mcnemar_exact(a_correct: Sequence[bool], b_correct: Sequence[bool]) -> TestResult:
    """Exact (binomial) McNemar test for paired right/wrong outcomes.

    The statistic is the number of items only `a` got right minus those only `b` got right;
    p = min(1, 2·P(X <= min(b01, b10))) with X ~ Binomial(b01 + b10, 1/2).
    """
    from scipy.stats import binom

    if len(a_correct) != len(b_correct):
        raise ValueError(
            f"McNemar needs paired outcomes, got {len(a_correct)} and {len(b_correct)}"
        )
    only_a = sum(1 for x, y in zip(a_correct, b_correct) if x and not y)
    only_b = sum(1 for x, y in zip(a_correct, b_correct) if y and not x)
    discordant = only_a + only_b
    if discordant == 0:
        p_value = 1.0
    else:
        p_value = min(1.0, 2.0 * float(binom.cdf(min(only_a, only_b), discordant, 0.5)))
    return TestResult(float(only_a - only_b), p_value, len(a_correct), "exact McNemar")


@dataclass(frozen=True)
class Correlation:
    rho: float
    p_value: float
    n: int
    method: str = "spearman"

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, ties given the mean of the ranks they span (scipy's `rankdata`).

    >>> average_ranks([10, 20, 20, 5]).tolist()
    [2.0, 3.5, 3.5, 1.0]
    """
    data = np.asarray(values, dtype=float)
    order = np.argsort(data, kind="mergesort")
    ordered = data[order]
    # Each run of equal values shares the mean of its first and last ordinal rank.
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], ordered.size]
    ranks = np.empty(ordered.size)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Spearman's rank correlation (ties averaged) and its two-sided p-value from Student's
    t with n - 2 degrees of freedom, as `scipy.stats.spearmanr` computes them (checked
    against it in tests/test_stats.py), without importing scipy.stats (1.5 s of a LAMBDA
    run's start-up); NaN when undefined (n < 3 or a constant variable)."""
    from scipy.special import stdtr

    if len(x) != len(y):
        raise ValueError(f"spearman needs equal lengths, got {len(x)} and {len(y)}")
    n = len(x)
    if n < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return Correlation(float("nan"), float("nan"), n)
    rho = np.corrcoef(average_ranks(x), average_ranks(y))[0, 1]
    freedom = n - 2
    with np.errstate(divide="ignore"):  # rho = ±1: t is infinite and p is 0, as scipy's
        t = rho * np.sqrt(np.clip(freedom / ((rho + 1.0) * (1.0 - rho)), 0, None))
    return Correlation(float(rho), float(2 * stdtr(freedom, -abs(t))), n)


def clustered_standard_error(values: Sequence[float], clusters: Sequence[Hashable]) -> float:
    """Standard error of the mean allowing correlation within clusters (CR1 sandwich).

    With G clusters and residual sums S_g = Σ_{i in g} (v_i − mean):
    SE² = G/(G−1) · Σ_g S_g² / n². Equals the ordinary SE (with n−1 → n) when every
    cluster has one member.
    """
    data = np.asarray(values, dtype=float)
    if data.size != len(clusters):
        raise ValueError("values and clusters must have the same length")
    groups: dict[Hashable, float] = {}
    residuals = data - data.mean()
    for residual, cluster in zip(residuals, clusters):
        groups[cluster] = groups.get(cluster, 0.0) + float(residual)
    g = len(groups)
    if g < 2:
        return float("nan")
    total = sum(s * s for s in groups.values())
    return math.sqrt(g / (g - 1) * total) / data.size


def clustered_mean_interval(
    values: Sequence[float], clusters: Sequence[Hashable], label: str
) -> dict[str, Any]:
    """Mean ± 1.96 cluster-robust SE (clipped to [0, 1]), with the SE itself."""
    n = len(values)
    if n == 0:
        return {
            **Interval(math.nan, math.nan, math.nan, 0, f"clustered by {label}").to_dict(),
            "se": math.nan,
            "clusters": 0,
        }
    mean = sum(values) / n
    se = clustered_standard_error(values, clusters)
    low = max(0.0, mean - Z95 * se) if not math.isnan(se) else math.nan
    high = min(1.0, mean + Z95 * se) if not math.isnan(se) else math.nan
    return {
        **Interval(mean, low, high, n, f"clustered by {label}").to_dict(),
        "se": se,
        "clusters": len(set(clusters)),
    }


def describe(values: Sequence[float]) -> dict[str, float]:
    """Mean, SD (sample), min, max, median and 90th percentile."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return {"n": 0}
    return {
        "n": int(data.size),
        "mean": float(data.mean()),
        "sd": float(data.std(ddof=1)) if data.size > 1 else 0.0,
        "min": float(data.min()),
        "max": float(data.max()),
        "median": float(np.median(data)),
        "p90": float(np.percentile(data, 90)),
    }


def two_proportion_test(k1: int, n1: int, k2: int, n2: int) -> TestResult:
    """Two-sided z-test of p1 = p2 for two independent proportions (k right of n each),
    pooled: z = (p1 − p2) / sqrt(p(1 − p)(1/n1 + 1/n2)), p = (k1 + k2)/(n1 + n2). For a run
    against a published accuracy with its N, where no per-item pairing exists.

    >>> t = two_proportion_test(10, 100, 20, 100)
    >>> round(t.statistic, 4), round(t.p_value, 4)
    (-1.9803, 0.0477)
    """
    _check_counts(k1, n1)
    _check_counts(k2, n2)
    if not n1 or not n2:
        raise ValueError("a two-proportion test needs at least one item on each side")
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    z = (k1 / n1 - k2 / n2) / se if se else 0.0
    return TestResult(z, math.erfc(abs(z) / math.sqrt(2)), n1 + n2, "two-proportion z (pooled)")


def newcombe_interval(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> Interval:
    """The difference p1 − p2 of two independent proportions with Newcombe's hybrid score
    interval (his method 10), built from each side's Wilson interval.

    >>> str(newcombe_interval(10, 100, 20, 100))
    '-0.100 [-0.199, -0.000]'
    """
    a, b = wilson_interval(k1, n1, z), wilson_interval(k2, n2, z)
    d = a.estimate - b.estimate
    low = d - math.hypot(a.estimate - a.low, b.high - b.estimate)
    high = d + math.hypot(a.high - a.estimate, b.estimate - b.low)
    return Interval(d, low, high, n1 + n2, "newcombe")
