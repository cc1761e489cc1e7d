"""The papers' rows beside a user's runs: which are comparable, and how a run differs.

Every registered benchmark may ship its paper's printed numbers (`BenchmarkSpec.published`,
rows of `lexbench.published.PublishedRow`); a row names the run name it compares with, so
the SCAN paper's BATS column sits beside `bats` runs. For one run, `published_for_run`
returns each of its benchmark's rows with

* its comparability (`comparability`): comparable when every setting the row's protocol
  fixes has the paper's value in the run's config.json (an absent or null setting counts as
  its default, as in run labels), with notes (a slice: "n=30 of 3,000"; a setting accepted
  as near, such as another seed), or not comparable with each difference named in words
  ("the completion prompt (...); the paper used the paper's prompt (...)");
* the run's number for the same cell (the row's `run_value` path into results.json) and N;
* for an accuracy with N on both sides, an unpaired comparison (`UnpairedTest`): Wilson
  intervals, Newcombe's interval of the difference and a two-proportion z-test. Published
  rows have no per-item outputs, so they never enter a paired test.

Report, leaderboard and compare show these (`lexbench.report.published_format`); the
Results page can build on `published_for_run` as it is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from lexbench.parts import LoadedRun
from lexbench.published import PublishedRow, value_key
from lexbench.stats import (
    Interval,
    newcombe_interval,
    two_proportion_test,
    wilson_interval,
)

NOT_RUN = "not run by lexbench"


@dataclass(frozen=True)
class Comparability:
    """Whether a run was measured the way a published row was."""

    comparable: bool
    differences: tuple[str, ...] = ()  # why not, in words
    notes: tuple[str, ...] = ()  # comparable, read with these ("n=30 of 3,000")
    unmatched: bool = False  # no lexbench run is measured this way

    @property
    def status(self) -> str:
        if self.unmatched:
            return NOT_RUN
        return "matches" if self.comparable else "differs"


@dataclass(frozen=True)
class UnpairedTest:
    """A run's accuracy against a published one with its N, unpaired (independent samples)."""

    run: Interval  # Wilson
    published: Interval  # Wilson, on the count the printed proportion and N give
    difference: Interval  # run − published, Newcombe's hybrid score interval
    z: float
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run.to_dict(),
            "published": self.published.to_dict(),
            "difference": self.difference.to_dict(),
            "z": self.z,
            "p_value": self.p_value,
            "test": "two-proportion z (pooled), two-sided",
        }


@dataclass(frozen=True)
class Beside:
    """One published row as it stands beside one run."""

    row: PublishedRow
    comparability: Comparability
    run_value: float | None = None
    run_n: int | None = None
    test: UnpairedTest | None = None

    def to_dict(self) -> dict[str, Any]:
        row = self.row
        return {
            "paper": row.paper.title,
            "table": row.table,
            "column": row.column,
            "model": row.model,
            "condition": row.condition,
            "metric": row.metric,
            "value": row.value,
            "estimate": row.estimate,
            "n": row.n,
            "status": self.comparability.status,
            "differences": list(self.comparability.differences),
            "notes": list(self.comparability.notes),
            "run_value": self.run_value,
            "run_n": self.run_n,
            "test": self.test.to_dict() if self.test else None,
            "source": "published, not re-run",
        }


@cache
def _loaded(loader: Any) -> tuple[PublishedRow, ...]:
    return tuple(loader())


def published_rows(benchmark: str) -> list[PublishedRow]:
    """Every registered published row that compares with runs named `benchmark`, in the
    order the specs and their files give them (a bad file raises, naming the file)."""
    from lexbench import plugins

    rows: list[PublishedRow] = []
    for spec in plugins.benchmarks():
        if spec.published is not None:
            rows += [r for r in _loaded(spec.published) if r.benchmark == benchmark]
    return rows


_SEGMENT = re.compile(r"([^.\[\]]+)(?:\[([^\]]*)\])?")


def lookup(data: Any, path: str) -> Any:
    """The value at a dotted `path` ("overall.accuracy"); a segment may select a list item
    by index ("rows[0]") or by fields ("rows[operation=union,m=2]"). None where absent.

    >>> lookup({"a": {"rows": [{"k": "x", "v": 1}, {"k": "y", "v": 2}]}}, "a.rows[k=y].v")
    2
    """
    value = data
    for name, selector in _SEGMENT.findall(path):
        value = value.get(name) if isinstance(value, Mapping) else None
        if selector and isinstance(value, list):
            value = _select(value, selector)
        if value is None:
            return None
    return value


def _select(items: list[Any], selector: str) -> Any:
    if selector.isdigit():
        return items[int(selector)] if int(selector) < len(items) else None
    wanted = dict(part.split("=", 1) for part in selector.split(",") if "=" in part)
    for item in items:
        if isinstance(item, Mapping) and all(str(item.get(k)) == v for k, v in wanted.items()):
            return item
    return None


def _same(value: Any, expected: Any) -> bool:
    if isinstance(value, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(value) == len(expected) and all(map(_same, value, expected))
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    return bool(value == expected)


def comparability(
    row: PublishedRow, config: Mapping[str, Any], run_n: int | None = None
) -> Comparability:
    """How a run (its config.json, and its N for the row's cell) stands to `row`."""
    if row.unmatched:
        return Comparability(False, (row.unmatched,), unmatched=True)
    differences: list[str] = []
    notes: list[str] = []
    for setting in row.settings:
        value = lookup(config, setting.key)
        if value is None and not setting.unset:
            if setting.default is None and not setting.required:
                continue  # the setting does not apply to this run (a vector method on an LM)
            value = setting.default
        if setting.unset and value is None:
            continue
        if not setting.unset and any(_same(value, e) for e in setting.expect):
            continue
        near = setting.near.get(value_key(value), setting.near.get("*"))
        if near is not None:
            notes.append(near.replace("{value}", value_key(value)))
            continue
        expected = None if setting.unset else setting.expect[0]
        differences.append(
            f"{setting.describe(value)}; the paper used {setting.describe(expected)}"
        )
    sliced = [k for k in row.slice_keys if lookup(config, k) is not None]
    if run_n == 0:  # every request failed: the run's size says nothing about its item set
        differences.append("no item of the run was scored")
    elif sliced and run_n is not None and row.items:
        notes.append(f"n={run_n:,} of {row.items:,}")
    elif sliced:
        notes.append("a slice of the item set")
    elif row.size_check and row.items and run_n is not None and run_n != row.items:
        differences.append(f"{run_n:,} items; the paper's set has {row.items:,}")
    if not row.size_check and not row.items and row.n and run_n is not None and run_n != row.n:
        notes.append(f"n={run_n:,}; the paper's N is {row.n:,}")  # SetLexSem's N per model
    return Comparability(not differences, tuple(differences), tuple(notes))


def _number(results: Mapping[str, Any], path: str) -> float | None:
    value = lookup(results, path) if path else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def unpaired_test(
    row: PublishedRow, run_value: float | None, run_n: int | None
) -> UnpairedTest | None:
    """The run's accuracy against the row's, where both are accuracies with an N."""
    if row.metric != "accuracy" or row.count is None or not row.n:
        return None
    if run_value is None or not run_n:
        return None
    k = round(run_value * run_n)
    published = min(max(row.count, 0), row.n)
    test = two_proportion_test(k, run_n, published, row.n)
    return UnpairedTest(
        run=wilson_interval(k, run_n),
        published=wilson_interval(published, row.n),
        difference=newcombe_interval(k, run_n, published, row.n),
        z=test.statistic,
        p_value=test.p_value,
    )


def beside(row: PublishedRow, run: LoadedRun) -> Beside:
    """One row against one run."""
    value = _number(run.results, row.run_value)
    n_value = _number(run.results, row.run_n)
    n = int(n_value) if n_value is not None else None
    found = comparability(row, run.config, n)
    if found.comparable and row.run_value and value is None:
        # Measured the same way, but the run has no such cell (a SetLexSem grid without it).
        found = Comparability(False, ("the run's results hold no number for this cell",))
    test = unpaired_test(row, value, n) if found.comparable else None
    return Beside(row, found, value, n, test)


def published_for_run(run: LoadedRun) -> list[Beside]:
    """Every published row of the run's benchmark, with its comparability, the run's own
    number for the same cell and, for accuracies with N, the unpaired comparison."""
    return [beside(row, run) for row in published_rows(run.benchmark)]


def published_for_runs(runs: Sequence[LoadedRun]) -> dict[str, list[Beside]]:
    """`published_for_run` for each run, by its label."""
    return {run.label: published_for_run(run) for run in runs}
