"""`lexbench compare`'s p-values and intervals against scipy on the same data.

* exact McNemar == scipy.stats.binomtest(only_a, only_a + only_b, 0.5), two-sided;
* paired permutation == scipy.stats.permutation_test(permutation_type="samples") with the
  same number of resamples, within Monte-Carlo error (both p-values are estimates);
* the paired bootstrap interval covers the observed difference and is seeded.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from lexbench.report.compare import compare_pair, compare_runs
from lexbench.report.paired_stats import holm, paired_bootstrap_mean
from lexbench.report.runs import LoadedRun


def run_of(label: str, correct, values=None, ids=None, benchmark: str = "lambda") -> LoadedRun:
    values = (
        values
        if values is not None
        else [float(bool(c)) if c is not None else 0.0 for c in correct]
    )
    ids = ids if ids is not None else [f"i{k:04d}" for k in range(len(correct))]
    samples = [
        {"id": i, "correct": c, "value": None if v is None else float(v)}
        for i, c, v in zip(ids, correct, values)
    ]
    return LoadedRun(
        path=Path(f"/runs/{label}"),
        config={"model": {"name": label}},
        samples=samples,
        results={"benchmark": benchmark},
        report_markdown="",
        label=label,
    )


def scipy_paired_permutation_p(a, b, resamples: int, seed: int) -> float:
    result = scipy_stats.permutation_test(
        (np.asarray(a, float), np.asarray(b, float)),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        random_state=seed,
    )
    return float(result.pvalue)


def monte_carlo_sd(p: float, resamples: int) -> float:
    """SD of the difference of the two Monte-Carlo p-value estimates.

    Ours counts |T| >= |t| directly: variance p(1-p)/R. scipy doubles one tail's estimate
    (2·min(P(T <= t), P(T >= t))): with q = p/2, variance 4q(1-q)/R. The two are independent.
    """
    q = p / 2
    return math.sqrt((p * (1 - p) + 4 * q * (1 - q)) / resamples)


@pytest.mark.parametrize("seed", range(12))
def test_mcnemar_matches_scipy_binomtest(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    a = rng.random(n) < rng.uniform(0.2, 0.9)
    b = np.where(rng.random(n) < rng.uniform(0.3, 0.95), a, ~a)  # mostly agree
    result = compare_pair(run_of("a", a.tolist()), run_of("b", b.tolist()), "accuracy")
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(b & ~a))
    assert (result.only_a, result.only_b) == (only_a, only_b)
    assert result.used == n and result.statistic == only_a - only_b
    if only_a + only_b == 0:
        assert result.p_value == 1.0
    else:
        expected = scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
        assert result.p_value == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(
    "only_a,only_b", [(0, 0), (0, 1), (1, 0), (3, 3), (0, 25), (12, 2), (40, 41), (100, 60)]
)
def test_mcnemar_edge_tables_match_scipy(only_a, only_b):
    # Both right on 5 items and both wrong on 4, around the discordant ones.
    a = [True] * only_a + [False] * only_b + [True] * 5 + [False] * 4
    b = [False] * only_a + [True] * only_b + [True] * 5 + [False] * 4
    result = compare_pair(run_of("a", a), run_of("b", b), "accuracy")
    expected = (
        1.0 if only_a + only_b == 0 else scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
    )
    assert result.p_value == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("seed,shift", [(0, 0.0), (1, 0.03), (2, 0.06), (3, 0.1), (4, 0.2)])
def test_paired_permutation_matches_scipy_within_monte_carlo_error(seed, shift):
    rng = np.random.default_rng(100 + seed)
    n, resamples = 60, 20_000
    # Reciprocal ranks, as SCAN's MRR: 1/rank with ranks 1..20; b a little worse than a.
    ranks_a = rng.integers(1, 8, n)
    a = 1.0 / ranks_a
    b = np.clip(a - shift + rng.normal(0, 0.15, n), 0.0, 1.0)
    result = compare_pair(
        run_of("a", [x == 1.0 for x in a], a.tolist()),
        run_of("b", [x == 1.0 for x in b], b.tolist()),
        "score",
        resamples=resamples,
        seed=seed,
    )
    expected = scipy_paired_permutation_p(a, b, resamples, seed)
    p = (result.p_value + expected) / 2
    tolerance = 5 * monte_carlo_sd(p, resamples) + 2 / resamples
    assert abs(result.p_value - expected) <= tolerance, (result.p_value, expected, tolerance)
    assert result.statistic == pytest.approx(float(np.mean(a - b)))


def test_paired_permutation_matches_scipy_exact_null_for_small_n():
    # 2^10 sign patterns < n_resamples: scipy enumerates them all (an exact p); ours is a
    # Monte-Carlo estimate of the same quantity.
    a = np.array([1.0, 0.5, 1.0, 0.33, 1.0, 0.25, 1.0, 0.5, 1.0, 0.2])
    b = np.array([0.5, 0.5, 0.33, 0.33, 1.0, 0.2, 0.5, 0.25, 0.5, 0.2])
    resamples = 20_000
    result = compare_pair(
        run_of("a", [x == 1 for x in a], a.tolist()),
        run_of("b", [x == 1 for x in b], b.tolist()),
        "score",
        resamples=resamples,
        seed=3,
    )
    exact = scipy_paired_permutation_p(a, b, resamples, 3)
    # scipy's p is exact here, so only our estimate varies: SD sqrt(p(1-p)/R).
    assert (
        abs(result.p_value - exact)
        <= 5 * math.sqrt(exact * (1 - exact) / resamples) + 2 / resamples
    )
    assert 0.001 < exact < 0.2  # a p-value where agreement means something


def test_only_shared_scorable_items_are_paired():
    a = run_of("a", [True, False, True, None, True], ids=["x1", "x2", "x3", "x4", "x5"])
    b = run_of(
        "b", [False, False, True, True, None, True], ids=["x1", "x2", "x3", "x4", "x5", "x6"]
    )
    result = compare_pair(a, b, "accuracy")
    assert result.shared == 5 and result.used == 3  # x4 and x5 are null on one side
    assert (result.only_a, result.only_b) == (1, 0)
    assert result.mean_a == pytest.approx(2 / 3) and result.mean_b == pytest.approx(1 / 3)


def test_errors_name_the_problem():
    lam = run_of("a", [True, False])
    scan = run_of("s", [True, False], benchmark="scan")
    with pytest.raises(ValueError, match=r"different benchmarks .*lambda, scan"):
        compare_runs([lam, scan])
    with pytest.raises(ValueError, match="share no sample ids"):
        compare_runs([lam, run_of("b", [True], ids=["other"])])
    with pytest.raises(ValueError, match="at least two runs"):
        compare_runs([lam])
    with pytest.raises(ValueError, match="baseline 'nope'"):
        compare_runs([lam, run_of("b", [True, True])], baseline="nope")


def test_graded_runs_get_both_tests_and_holm_per_metric():
    rng = np.random.default_rng(5)
    values = [np.round(1.0 / rng.integers(1, 6, 80), 4) for _ in range(3)]
    runs = [
        run_of(name, [v == 1.0 for v in vals], vals.tolist()) for name, vals in zip("abc", values)
    ]
    comparison = compare_runs(runs, resamples=2000, seed=1)
    assert comparison.metrics == ("accuracy", "score")
    assert len(comparison.pairs) == 6
    for metric in comparison.metrics:
        family = [c for c in comparison.pairs if c.metric == metric]
        assert [c.p_holm for c in family] == pytest.approx(holm([c.p_value for c in family]))
    assert {c.test for c in comparison.pairs} == {"exact McNemar", "paired permutation"}
    ranked = [s.score.estimate for s in comparison.leaderboard]
    assert ranked == sorted(ranked, reverse=True)
    baseline = compare_runs(runs, resamples=500, baseline="b")
    assert {(c.a, c.b) for c in baseline.pairs} == {("b", "a"), ("b", "c")}


def test_holm_adjustment():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([0.2, 0.01]) == pytest.approx([0.2, 0.02])
    assert holm([]) == []


def test_paired_bootstrap_interval_is_seeded_and_sensible():
    rng = np.random.default_rng(0)
    differences = rng.normal(0.1, 0.5, 400)
    first = paired_bootstrap_mean(differences, 4000, seed=7)
    assert first == paired_bootstrap_mean(differences, 4000, seed=7)
    assert first.low < first.estimate < first.high
    # The normal-theory interval: mean ± 1.96 SD/sqrt(n); the bootstrap should be close.
    half = 1.96 * differences.std(ddof=1) / math.sqrt(differences.size)
    assert first.low == pytest.approx(differences.mean() - half, abs=0.01)
    assert first.high == pytest.approx(differences.mean() + half, abs=0.01)
    assert math.isnan(paired_bootstrap_mean([], 10).estimate)


def test_null_values_count_for_accuracy_but_not_for_the_score():
    # E-KAR writes value null where its score is undefined; the item still has a verdict.
    a = run_of("a", [True, False, True, True], [1.0, 0.5, None, 1.0])
    b = run_of("b", [False, False, True, True], [0.25, 0.5, 1.0, None])
    comparison = compare_runs([a, b], resamples=200)
    assert comparison.metrics == ("accuracy", "score")
    accuracy, score = comparison.pairs
    assert accuracy.used == 4 and score.used == 2
    assert score.mean_a == pytest.approx(0.75) and score.mean_b == pytest.approx(0.375)
