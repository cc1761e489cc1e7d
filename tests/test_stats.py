"""Intervals and tests against hand-computed values and scipy."""

import math
import random

import numpy as np
import pytest
from scipy import stats as scipy_stats

from lexbench import stats


def test_wald_matches_hand_computation():
    # p = 0.5, n = 100: half-width 1.959964 * sqrt(0.25 / 100) = 0.0979982
    ci = stats.wald_interval(50, 100)
    assert ci.estimate == 0.5
    assert ci.low == pytest.approx(0.5 - 0.0979982, abs=1e-6)
    assert ci.high == pytest.approx(0.5 + 0.0979982, abs=1e-6)
    # p = 0.9, n = 30: half-width 1.959964 * sqrt(0.09 / 30) = 0.1073516; clipped at 1
    ci = stats.wald_interval(27, 30)
    assert ci.low == pytest.approx(0.9 - 0.1073516, abs=1e-6)
    assert ci.high == 1.0


def test_wald_degenerates_at_zero_but_wilson_does_not():
    assert (stats.wald_interval(0, 10).low, stats.wald_interval(0, 10).high) == (0.0, 0.0)
    # Wilson 0/10: centre = (z^2/20)/(1+z^2/10) = 0.138767; half-width the same
    ci = stats.wilson_interval(0, 10)
    assert ci.low == pytest.approx(0.0, abs=1e-9)
    assert ci.high == pytest.approx(0.277535, abs=1e-5)


def test_wilson_matches_hand_computation():
    # 8/10: centre (0.8 + 0.192073)/1.384146 = 0.716743;
    # half 1.959964*sqrt(0.016 + 0.009604)/1.384146 = 0.226643
    ci = stats.wilson_interval(8, 10)
    assert ci.low == pytest.approx(0.490100, abs=1e-4)
    assert ci.high == pytest.approx(0.943317, abs=1e-4)


def test_interval_rejects_impossible_counts():
    with pytest.raises(ValueError, match="successes"):
        stats.wald_interval(11, 10)
    with pytest.raises(ValueError, match="successes"):
        stats.wilson_interval(-1, 10)
    assert math.isnan(stats.wald_interval(0, 0).estimate)


def test_mcnemar_matches_scipy_binomtest():
    rng = np.random.default_rng(1)
    a = rng.random(200) < 0.6
    b = rng.random(200) < 0.5
    result = stats.mcnemar_exact(a.tolist(), b.tolist())
    only_a = int(np.sum(a & ~b))
    only_b = int(np.sum(b & ~a))
    expected = scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
    assert result.p_value == pytest.approx(expected, rel=1e-9)
    assert result.statistic == only_a - only_b


def test_mcnemar_no_discordant_pairs_is_one():
    assert stats.mcnemar_exact([True, False], [True, False]).p_value == 1.0
    with pytest.raises(ValueError, match="paired"):
        stats.mcnemar_exact([True], [True, False])


def test_paired_permutation_agrees_with_scipy():
    rng = np.random.default_rng(3)
    a = rng.random(40)
    b = a - 0.08 + rng.normal(0, 0.2, 40)
    ours = stats.paired_permutation_test(a, b, resamples=20_000, seed=1)
    theirs = scipy_stats.permutation_test(
        (a, b),
        lambda x, y: np.mean(x - y),
        permutation_type="samples",
        n_resamples=20_000,
        alternative="two-sided",
        random_state=2,
    )
    # Two Monte-Carlo estimates of the same p-value: within a few standard errors.
    se = math.sqrt(theirs.pvalue * (1 - theirs.pvalue) / 20_000)
    assert abs(ours.p_value - theirs.pvalue) < 5 * se + 1e-3


def test_paired_permutation_identical_scores_is_one():
    result = stats.paired_permutation_test([0.5, 1.0, 0.0], [0.5, 1.0, 0.0], resamples=1000)
    assert result.p_value == 1.0


def test_unpaired_permutation_detects_a_clear_difference():
    result = stats.permutation_test([1.0] * 30, [0.0] * 30, resamples=5000)
    assert result.p_value < 0.001
    assert result.statistic == 1.0


def test_spearman_matches_scipy_and_handles_constants():
    x = [4, 5, 6, 7, 8, 9]
    y = [0.5, 0.4, 0.45, 0.3, 0.2, 0.1]
    ours = stats.spearman(x, y)
    assert ours.rho == pytest.approx(scipy_stats.spearmanr(x, y).statistic)
    assert math.isnan(stats.spearman([1, 2, 3], [0.0, 0.0, 0.0]).rho)


def test_spearman_is_scipys_with_ties_and_perfect_orders():
    """lexbench's Spearman (no scipy.stats import) gives scipy's rho and p to the last bits:
    accuracy by query length (many ties, 0/1 outcomes), continuous data, perfect orders."""
    rng = random.Random(11)
    cases = [
        (
            [rng.randint(4, 15) for _ in range(3000)],
            [float(rng.random() < 0.1) for _ in range(3000)],
        ),
        ([rng.random() for _ in range(50)], [rng.random() for _ in range(50)]),
        ([rng.randint(1, 3) for _ in range(8)], [rng.randint(1, 4) for _ in range(8)]),
        (list(range(10)), [v * v for v in range(10)]),
        (list(range(10)), [-v for v in range(10)]),
        ([1, 2, 3], [1.0, 1.0, 2.0]),
    ]
    for x, y in cases:
        ours, theirs = stats.spearman(x, y), scipy_stats.spearmanr(x, y)
        assert ours.rho == pytest.approx(float(theirs.statistic), rel=1e-12, abs=1e-15)
        assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-9, abs=1e-300)
    assert stats.average_ranks([3, 1, 3, 3, 2]).tolist() == list(
        scipy_stats.rankdata([3, 1, 3, 3, 2])
    )


def test_clustered_standard_error():
    # Singleton clusters: sqrt(n/(n-1) * sum(r^2)) / n == sample SD / sqrt(n)
    values = [1.0, 0.0, 1.0, 1.0, 0.0]
    se = stats.clustered_standard_error(values, list(range(5)))
    assert se == pytest.approx(np.std(values, ddof=1) / math.sqrt(5))
    # Perfectly correlated clusters inflate the error against the naive one.
    clustered = stats.clustered_standard_error([1, 1, 1, 0, 0, 0], ["a", "a", "a", "b", "b", "b"])
    assert clustered > np.std([1, 1, 1, 0, 0, 0], ddof=1) / math.sqrt(6)


def test_bootstrap_interval_contains_the_mean():
    ci = stats.bootstrap_interval([0.0, 1.0] * 50, resamples=2000, seed=0)
    assert ci.low < 0.5 < ci.high
    assert ci.estimate == 0.5


def test_describe():
    d = stats.describe([4, 5, 6, 7, 100])
    assert (d["mean"], d["median"], d["min"], d["max"]) == (24.4, 6.0, 4.0, 100.0)
