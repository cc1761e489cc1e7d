"""Which runs of one benchmark `lexbench report` compares: the largest sets of runs that
share scored items, and the runs it leaves out, each with the reason.

Paired tests need items both runs scored (matched by id and question, as `compare` pairs
them). Among a report's runs some may share none: another `--seed` drew other items, or
every request of a run failed. Those are named and left out; the others are still
compared. Two runs share items when at least one item is scorable in both; a comparison
group is a set of runs of which every two share items (a maximal clique of that relation,
largest first), so `compare_runs` can test every pair in it.

    >>> from types import SimpleNamespace as Run
    >>> runs = [Run(label=x) for x in "abc"]
    >>> share = {("a", "b")}
    >>> [[r.label for r in g] for g in cliques(runs, lambda x, y: (x.label, y.label) in share)]
    [['a', 'b']]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from lexbench.report.runs import LoadedRun, failure_flag, item_key

Run = TypeVar("Run")


@dataclass(frozen=True)
class LeftOut:
    """A run left out of a report's paired comparisons, and why (one clause)."""

    run: LoadedRun
    reason: str

    def sentence(self) -> str:
        return f"Run {self.run.label} is left out of the paired comparisons: {self.reason}."


@dataclass(frozen=True)
class Grouping:
    """The comparison groups (each two or more runs, every two sharing scored items, in
    the order the runs were given) and the runs left out."""

    groups: tuple[tuple[LoadedRun, ...], ...]
    left_out: tuple[LeftOut, ...]


def scored_keys(run: LoadedRun) -> frozenset[str]:
    """The items a run scored, by id and question hash (`compare`'s pairing key)."""
    return frozenset(item_key(run.benchmark, r) for r in run.samples if r["correct"] is not None)


def cliques(runs: Sequence[Run], share: Callable[[Run, Run], bool]) -> list[list[Run]]:
    """Every maximal set of two or more `runs` of which each two `share`, largest first
    (ties: the set whose runs come first), each in the order given (Bron-Kerbosch; a
    report holds a handful of runs per benchmark)."""
    n = len(runs)
    linked = [{j for j in range(n) if j != i and share(runs[i], runs[j])} for i in range(n)]
    found: list[tuple[int, ...]] = []

    def extend(chosen: set[int], candidates: set[int], excluded: set[int]) -> None:
        if not candidates and not excluded:
            if len(chosen) > 1:
                found.append(tuple(sorted(chosen)))
            return
        for index in sorted(candidates):
            extend(chosen | {index}, candidates & linked[index], excluded & linked[index])
            candidates = candidates - {index}
            excluded = excluded | {index}

    extend(set(), set(range(n)), set())
    found.sort(key=lambda group: (-len(group), group))
    return [[runs[i] for i in group] for group in found]


def _no_shared_reason(run: LoadedRun, others: Sequence[LoadedRun]) -> str:
    ids = {str(r["id"]) for r in run.samples}
    if any(ids & {str(r["id"]) for r in other.samples} for other in others):
        return (
            "its items share ids with another run's but not the questions (generated "
            "differently: another --seed, profile or data file), so no item can be paired"
        )
    if not any(r["correct"] is not None for r in run.samples):
        return "it scored no item"
    return "it shares no scored item with any other run"


def sharing_groups(runs: Sequence[LoadedRun]) -> Grouping:
    """The runs of one benchmark grouped for paired comparison: a run whose every request
    failed is left out (its scores are the failures', not the model's), then the largest
    sets of runs that share scored items are compared, each run in at least one group
    where it shares items with another; a run that shares none is left out."""
    left_out: list[LeftOut] = []
    usable: list[LoadedRun] = []
    for run in runs:
        flag = failure_flag(run)
        if flag.startswith("every"):
            left_out.append(LeftOut(run, f"{flag}, so nothing of the model's can be compared"))
        else:
            usable.append(run)
    keys = {id(run): scored_keys(run) for run in usable}
    groups: list[tuple[LoadedRun, ...]] = []
    compared: set[int] = set()
    for group in cliques(usable, lambda a, b: bool(keys[id(a)] & keys[id(b)])):
        if any(id(run) not in compared for run in group):  # brings in a run not yet compared
            groups.append(tuple(group))
            compared |= {id(run) for run in group}
    for run in usable:
        if id(run) not in compared:
            others = [other for other in usable if other is not run]
            left_out.append(LeftOut(run, _no_shared_reason(run, others)))
    order = {id(run): index for index, run in enumerate(runs)}
    left_out.sort(key=lambda out: order[id(out.run)])
    return Grouping(tuple(groups), tuple(left_out))


def describe(group: Sequence[Any]) -> str:
    """ "model-a and model-b", "a, b and c": a group's runs by label."""
    labels = [run.label for run in group]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
