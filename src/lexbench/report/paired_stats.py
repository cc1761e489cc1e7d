"""The two statistics of paired items that `lexbench.stats` does not hold: the percentile
bootstrap interval of a mean paired difference (items resampled as pairs), and Holm's
step-down adjustment of a family of p-values (the leaderboard's score interval is the
same bootstrap of a plain mean). Plain numbers in, plain numbers out: which
items are paired is `lexbench.report.compare`'s business.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lexbench.stats import Interval


def paired_bootstrap_mean(
    differences: Sequence[float], resamples: int = 10_000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """Percentile bootstrap interval of the mean paired difference (pairs resampled).

    Runs in blocks so that 10^4 resamples of tens of thousands of items stay in memory.
    """
    data = np.asarray(differences, dtype=float)
    if data.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, "paired bootstrap")
    rng = np.random.default_rng(seed)
    block = max(1, min(resamples, 2_000_000 // data.size))
    means = np.empty(resamples)
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        draws = rng.integers(0, data.size, size=(size, data.size))
        means[done : done + size] = data[draws].mean(axis=1)
        done += size
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return Interval(float(data.mean()), float(low), float(high), int(data.size), "paired bootstrap")


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1), in the input order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
