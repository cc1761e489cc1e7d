"""Time of the SCAN paper's unpaired permutation test (10^6 resamples) on two 449-item runs.

lexbench draws, per resample, how many copies of each distinct reciprocal rank land in the
first group (multivariate hypergeometric: exact in distribution, at most 11 values for
MRR@10); the reference re-splits all 898 values per resample (argpartition of random keys,
what lexbench did before), and scipy.stats.permutation_test permutes them too. The two
shuffling methods are timed on fewer resamples and scaled up (their cost is linear in R);
all three p-values are printed so their agreement can be seen.

    .venv/bin/python measurements/performance/permutation_speed.py [--resamples 1000000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

RANKS = [1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6, 1 / 7, 1 / 8, 1 / 9, 1 / 10, 0.0]


def two_runs(seed: int, items: int = 449) -> tuple[np.ndarray, np.ndarray]:
    """Reciprocal ranks like two small LMs' on SCAN (MRR about 0.08 and 0.05)."""
    rng = np.random.default_rng(seed)
    weights_a = np.array([0.05, 0.02, 0.015, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.845])
    weights_b = np.array([0.03, 0.015, 0.01, 0.01, 0.01, 0.005, 0.005, 0.005, 0.005, 0.005, 0.9])
    a = rng.choice(RANKS, items, p=weights_a / weights_a.sum())
    b = rng.choice(RANKS, items, p=weights_b / weights_b.sum())
    return a, b


def shuffled_p(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> float:
    """The earlier way: random keys, argpartition, sums; scipy's doubled two-sided p."""
    pooled = np.concatenate([a, b])
    observed = a.mean() - b.mean()
    rng = np.random.default_rng(seed)
    total = pooled.sum()
    less = greater = 0
    block = max(1, 2_000_000 // pooled.size)
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        keys = rng.random((size, pooled.size))
        first = np.argpartition(keys, a.size - 1, axis=1)[:, : a.size]
        sums = pooled[first].sum(axis=1)
        diffs = sums / a.size - (total - sums) / b.size
        less += int(np.count_nonzero(diffs <= observed + 1e-12))
        greater += int(np.count_nonzero(diffs >= observed - 1e-12))
        done += size
    return min(1.0, 2 * (min(less, greater) + 1) / (resamples + 1))


def main() -> None:
    from scipy import stats as scipy_stats

    from lexbench.stats import permutation_test

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    a, b = two_runs(args.seed)
    print(f"two runs of {a.size} items: MRR {a.mean():.4f} vs {b.mean():.4f}")

    start = time.perf_counter()
    ours = permutation_test(a, b, resamples=args.resamples, seed=args.seed)
    took = time.perf_counter() - start
    print(
        f"lexbench (hypergeometric counts), {args.resamples:,} resamples: {took:.2f} s, "
        f"p = {ours.p_value:.5f}"
    )

    few = max(1, args.resamples // 20)
    start = time.perf_counter()
    reference = shuffled_p(a, b, few, args.seed)
    took = time.perf_counter() - start
    print(
        f"re-splitting all values, {few:,} resamples: {took:.2f} s "
        f"(~{took * args.resamples / few:.0f} s for {args.resamples:,}), p = {reference:.5f}"
    )

    fewer = max(1, args.resamples // 100)
    start = time.perf_counter()
    result = scipy_stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=fewer,
        alternative="two-sided",
        random_state=args.seed,
    )
    took = time.perf_counter() - start
    print(
        f"scipy.stats.permutation_test, {fewer:,} resamples: {took:.2f} s "
        f"(~{took * args.resamples / fewer:.0f} s for {args.resamples:,}), p = {result.pvalue:.5f}"
    )


if __name__ == "__main__":
    main()
