"""A run's results and status as an inspect_ai log states them
(`lexbench.export.inspect_log` writes them).

* The headline first: the log's first score is the benchmark's headline metric, as
  lexbench's leaderboard gives it (`lexbench.report.leaderboard.headline`: MRR@10 for
  SCAN, Google, BATS and pair files; accuracy for LAMBDA, SetLexSem, E-KAR and SAT), with
  its 95% interval; it is also the log's declared headline, which the viewer's SCORE
  column shows. The second score holds the other numbers of results.json's `overall`
  block (acc@1, recall@k, coverage, n, ...), beside it.
* Failed requests: a run whose requests failed so that nothing was scored (every request,
  or every one that mattered) is an `error` log whose message is the count and the
  commonest reason in samples.jsonl, with no score. A run in which some requests failed
  is an `error` log too (lexbench exits 3 on it: the run is not complete), but it keeps
  its scores over the items that were scored, and its message says how many failed and
  why; each failed sample carries its own reason as the sample's error. A run with no
  failed request is a `success`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lexbench.export.log_view import failure
from lexbench.parts import LoadedRun

#: The scorer every score of an exported run names: lexbench's own.
SCORER = "lexbench"
#: The name of the score that holds results.json's other numbers.
OTHER_SCORE = "results"
#: results.json blocks that restate the accuracy as an interval (its headline already has one).
INTERVAL_BLOCKS = ("wald", "wilson")


@dataclass(frozen=True)
class Metric:
    name: str
    value: float


@dataclass(frozen=True)
class Outcome:
    """The log's status, its error message (None for a success), and its scores: the
    headline's metrics, then the others (both empty when nothing was scored)."""

    status: Literal["success", "error"]
    error: str | None
    headline: list[Metric]
    others: list[Metric]
    flag: str


def metric_name(key: str) -> str:
    """results.json's key as lexbench's reports name it: `acc_at_1` -> `acc@1`."""
    return re.sub(r"_at_(\d+)$", r"@\1", key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _overall_numbers(results: Mapping[str, Any]) -> list[Metric]:
    """The plain numbers of results.json's `overall` block, and the estimate of each of its
    intervals (acc@1, recall@k, ...), in the block's order."""
    overall = results.get("overall", {})
    found = []
    for key, value in overall.items() if isinstance(overall, Mapping) else []:
        if isinstance(value, Mapping):
            if key in INTERVAL_BLOCKS:
                continue
            value = value.get("estimate")
        number = _number(value)
        if number is not None:
            found.append(Metric(metric_name(str(key)), number))
    return found


def commonest_failure(samples: list[dict[str, Any]]) -> tuple[str, int] | None:
    """The reason most samples' requests failed for, and how many failed for it."""
    reasons = Counter(reason for reason in map(failure, samples) if reason)
    return reasons.most_common(1)[0] if reasons else None


def outcome(run: LoadedRun) -> Outcome:
    """What the log of `run` says: its status, error and metrics."""
    from lexbench.report.leaderboard import headline
    from lexbench.report.runs import failure_flag

    scored = sum(1 for s in run.samples if s.get("correct") is not None)
    flag = failure_flag(run)
    reason = commonest_failure(run.samples)
    if reason is not None and not flag:  # a run folder that does not count its requests
        failed = sum(1 for s in run.samples if failure(s))
        flag = f"{failed} of {len(run.samples)} requests failed"
    error = None
    if reason is not None:
        nothing = "; nothing was scored" if scored == 0 else ""
        error = f"{flag}{nothing}; commonest reason ({reason[1]}x): {reason[0]}"
    if scored == 0 and reason is not None:
        return Outcome("error", error, [], [], flag)
    row = headline(run)
    estimate = _number(row.estimate)
    first = [Metric(row.metric, math.nan if estimate is None else estimate)]
    for name, bound in (("95% low", row.low), ("95% high", row.high)):
        number = _number(bound)
        if number is not None:
            first.append(Metric(name, number))
    # The headline's own entry in `overall` (mrr, or accuracy) is not repeated beside it.
    taken = "mrr" if row.metric.startswith("MRR") else "accuracy"
    others = [m for m in _overall_numbers(run.results) if m.name != taken]
    for name, text in row.extra.items():
        number = _number(_float(text))
        if number is not None and name not in {m.name for m in others}:
            others.append(Metric(name, number))
    return Outcome("error" if error else "success", error, first, others, flag)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None
