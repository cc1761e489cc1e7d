"""The leaderboard of `lexbench compare` (and of each benchmark's summary in `lexbench
report`): every run ranked by its own scorable items, accuracy with a Wilson interval, and
the mean score with a bootstrap interval when the score is graded (some `value` is not
simply 1 or 0, e.g. SCAN's reciprocal rank).

A sample is scorable when its `correct` is not null (and, for the score, its `value`);
samples are keyed by item content (`lexbench.report.runs.item_key`), which is also how
`lexbench.report.compare` pairs two runs' items.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lexbench.report.paired_stats import paired_bootstrap_mean
from lexbench.report.runs import LoadedRun, item_key
from lexbench.stats import Interval, wilson_interval


def is_graded(runs: Sequence[LoadedRun]) -> bool:
    """True when some scorable sample's `value` is not simply 1.0/0.0 for right/wrong."""
    return any(
        row["correct"] is not None
        and row["value"] is not None
        and float(row["value"]) != float(bool(row["correct"]))
        for run in runs
        for row in run.samples
    )


def scorable(run: LoadedRun, metric: str = "accuracy") -> dict[str, Mapping[str, Any]]:
    """Scorable samples by item key (id + question hash): `correct` not null (and, for the
    score, `value` not null)."""
    return {
        item_key(run.benchmark, row): row
        for row in run.samples
        if row["correct"] is not None and (metric == "accuracy" or row["value"] is not None)
    }


@dataclass(frozen=True)
class Standing:
    """One leaderboard row."""

    rank: int
    label: str
    path: str
    items: int
    scored: int
    accuracy: Interval
    score: Interval | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "label": self.label,
            "path": self.path,
            "items": self.items,
            "scored": self.scored,
            "accuracy": self.accuracy.to_dict(),
            "score": self.score.to_dict() if self.score else None,
        }


def leaderboard(
    runs: Sequence[LoadedRun], graded: bool, resamples: int = 10_000, seed: int = 0
) -> list[Standing]:
    """One row per run, best first: by the mean score when graded, else by accuracy (a run
    with nothing scored last), ties by label."""
    rows = []
    for run in runs:
        scored = list(scorable(run).values())
        right = sum(1 for r in scored if r["correct"])
        accuracy = wilson_interval(right, len(scored))
        score = None
        if graded:
            score = paired_bootstrap_mean(
                [float(r["value"]) for r in scorable(run, "score").values()], resamples, seed
            )
            score = replace(score, method="bootstrap")
        rows.append((run, len(scored), accuracy, score))

    def key(row: tuple[LoadedRun, int, Interval, Interval | None]) -> tuple[float, str]:
        main = row[3] if row[3] is not None else row[2]
        estimate = main.estimate if main.estimate == main.estimate else -math.inf
        return (-estimate, row[0].label)

    rows.sort(key=key)
    return [
        Standing(rank, run.label, str(run.path), len(run.samples), n, acc, score)
        for rank, (run, n, acc, score) in enumerate(rows, 1)
    ]
