"""The planner: benchmarks x models x wordings x item sets, expanded into cells, each cell a
complete `RunRequest`, run through `api.run` with each model loaded once.

`lexbench run NAME`, `run all`, `--model A,B`, `--sets K`, `--prompt-variant NAME|all` and
`lexbench contamination` are ways of writing a plan: a command gives its conditions (one
request per benchmark, or per condition of one benchmark, such as SCAN's shot counts), the
models and the spread it asks for; `expand` makes the cells and checks them before any model
is loaded; `run_plan` runs them model by model and writes each spread record
(`lexbench.robustness.spread`) beside its published run. What a plan's end shows (reports,
one leaderboard, the paired comparisons) is the command's (`lexbench.commands.outcome`).

Fresh item sets are drawn with seeds 1, 2, 3, ... (the published seed skipped), so a second
call with a larger K finds the first K sets' folders and answers in the cache and sends only
the new sets' requests.

    >>> base = RunRequest("lambda", limit=5)
    >>> planned = expand([Condition("", base)], ["a", "b"])
    >>> [f"{c.request.model}/{c.step}" for c in planned.cells]
    ['a/paper', 'b/paper']
    >>> fresh_seeds(2, 3)
    [1, 3, 4]
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lexbench import plugins
from lexbench.heartbeat import duration
from lexbench.request import RunRequest
from lexbench.terminal import terminal_text
from lexbench.wordings import ALL, PAPER, chosen_variants

#: The kinds of spread a plan can ask for: none, across fresh item sets, across wordings.
ONE, SETS, PROMPTS = "one", "sets", "prompts"
#: The most fresh item sets one plan draws (each costs a whole run of the benchmark).
MAX_SETS = 1000


@dataclass(frozen=True)
class Condition:
    """One request of a command before the plan multiplies it: its label ("" for a
    command's one condition; "1-shot", a benchmark's name in `run all`) and the request.
    It runs on each of the plan's models, unless `own_model` (SCAN's `--baseline`): then
    on the model its request names, after the others."""

    label: str
    request: RunRequest
    #: The options the command was given beside their defaults, as the user wrote them
    #: ("--prompt-style completion --limit 10"), for the plan's lines.
    settings: str = ""
    own_model: bool = False


@dataclass(frozen=True)
class Cell:
    """One run of a plan: its complete request, the condition it belongs to, its step of
    the spread ("paper", "published seed", "fresh set 2", a wording's name), whether it
    is the published run of that spread, and its place in the plan."""

    request: RunRequest
    condition: str
    step: str
    published: bool
    position: int = 0
    of: int = 0
    settings: str = ""

    @property
    def model(self) -> str:
        return str(self.request.model)

    def label(self) -> str:
        """How the cell is named while it runs: benchmark, model, its condition and the
        settings the command changed, then its item set and its wording, each named as
        what it is ("wording: paper" is the published prompt text, not a prompt style)."""
        parts = [self.request.benchmark, self.model]
        if self.condition and self.condition != self.request.benchmark:
            parts.append(self.condition)
        if self.settings:
            parts.append(self.settings)
        if self.request.item_seed is not None or self.step == "published seed":
            parts.append(f"item set: {self.step}")
        parts.append(f"wording: {self.request.wording}")
        return " · ".join(parts)


@dataclass(frozen=True)
class Plan:
    """Cells in the order they run (model by model), the spread asked for, the models in
    the order given, and what the expansion left out, with why (`run all`: a benchmark
    without the wording asked for; `skip_unrunnable`: a cell that cannot run here is
    skipped with its reason instead of stopping the plan)."""

    cells: tuple[Cell, ...]
    spread: str = ONE
    models: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    skip_unrunnable: bool = False


@dataclass
class CellRun:
    """A cell that ran, with its `Evaluation`."""

    cell: Cell
    evaluation: Any


@dataclass
class Spread:
    """One spread record written by the plan: its cells' condition, model, record, path."""

    condition: str
    benchmark: str
    model: str
    record: dict[str, Any]
    path: Path


@dataclass
class Outcome:
    """What a plan did: the cells that ran (in plan order), those skipped with the reason,
    and the spread records written."""

    plan: Plan
    ran: list[CellRun] = field(default_factory=list)
    skipped: list[tuple[Cell, str]] = field(default_factory=list)
    spreads: list[Spread] = field(default_factory=list)

    def evaluations(self) -> list[Any]:
        return [done.evaluation for done in self.ran]

    def published(self) -> list[CellRun]:
        return [done for done in self.ran if done.cell.published]


def fresh_seeds(published: int, k: int) -> list[int]:
    """The seeds of K fresh sets: 1, 2, ... skipping the published seed."""
    if k < 1:
        raise ValueError(f"--sets needs at least one fresh set, got {k}")
    out: list[int] = []
    seed = 1
    while len(out) < k:
        if seed != published:
            out.append(seed)
        seed += 1
    return out


def _steps(
    request: RunRequest, spread: str, sets: int | None
) -> list[tuple[str, bool, RunRequest]]:
    """(step label, published?, request) of one condition for the spread asked."""
    spec = plugins.benchmark(request.benchmark)
    if spread == SETS:
        if spec.regenerate is None:
            raise ValueError(
                f"--sets draws fresh item sets, and {spec.name} reads fixed data; use "
                f"--prompt-variant all for its spread across wordings"
            )
        from lexbench.api import builder_options

        published = spec.regenerate.published_seed(builder_options(spec, request))
        seeds = fresh_seeds(published, int(sets or 0))
        return [("published seed", True, request)] + [
            (f"fresh set {i + 1}", False, replace(request, item_seed=seed))
            for i, seed in enumerate(seeds)
        ]
    if spread == PROMPTS:
        return [
            (v.name, v.name == PAPER, replace(request, wording=v.name))
            for v in chosen_variants(spec, ALL)
        ]
    chosen_variants(spec, request.wording)  # a wording it does not have: refused now
    return [(request.wording, True, request)]


def spread_of(sets: int | None, wording: str) -> str:
    """The spread `--sets` and `--prompt-variant` ask for."""
    if sets is not None and not 1 <= sets <= MAX_SETS:
        raise ValueError(f"--sets takes 1 to {MAX_SETS} fresh item sets, got {sets}")
    if sets and wording == ALL:
        raise ValueError(
            "--sets with --prompt-variant all would run every wording on every set; "
            "run them one at a time (the cache shares what they have in common)"
        )
    return SETS if sets else PROMPTS if wording == ALL else ONE


def expand(
    conditions: Sequence[Condition],
    models: Sequence[str],
    *,
    sets: int | None = None,
    wording: str | None = None,
    skip_unrunnable: bool = False,
    model_options: Callable[[str], Mapping[str, Any]] | None = None,
) -> Plan:
    """The plan the options ask for, checked before any model is loaded. `wording`: a
    wording's name (every condition's request takes it), `all` (one cell per wording), or
    None (each request keeps its own).
    `model_options(spec)`: backend options that depend on the model (added to each cell's
    request for that model)."""
    names = list(models)
    repeated = sorted({m for m in names if names.count(m) > 1})
    if repeated:
        raise ValueError(f"--model names {', '.join(repeated)} twice; name each model once")
    if not names:
        raise ValueError("--model names no model")
    spread = spread_of(sets, wording or PAPER)
    notes: list[str] = []
    per_condition: list[tuple[Condition, list[tuple[str, bool, RunRequest]]]] = []
    for condition in conditions:
        request = condition.request
        if wording is not None and wording != ALL:
            request = replace(request, wording=wording)
        try:
            steps = _steps(request, spread, sets)
        except ValueError as error:
            if not skip_unrunnable:
                raise
            if spread != SETS or "reads fixed data" not in str(error):
                notes.append(f"{request.benchmark}: {error}")
                continue
            # `run all --sets K`: a benchmark of fixed data runs once, said so.
            notes.append(f"{request.benchmark} reads fixed data: its one item set, no fresh sets")
            steps = [(request.wording, True, request)]
        per_condition.append((condition, steps))
    cells: list[Cell] = []
    for model in names:
        extra = dict(model_options(model)) if model_options is not None else {}
        for condition, steps in per_condition:
            if not condition.own_model:
                cells += [
                    Cell(
                        r.with_model(model, **extra),
                        condition.label,
                        step,
                        published,
                        settings=condition.settings,
                    )
                    for step, published, r in steps
                ]
    for condition, steps in per_condition:  # conditions with a model of their own last
        if condition.own_model:
            cells += [
                Cell(r, condition.label, step, pub, settings=condition.settings)
                for step, pub, r in steps
            ]
    numbered = tuple(replace(cell, position=i + 1, of=len(cells)) for i, cell in enumerate(cells))
    return Plan(numbered, spread, tuple(names), tuple(notes), skip_unrunnable)


def _model_key(request: RunRequest) -> str:
    return json.dumps([request.model, dict(request.model_options)], sort_keys=True, default=str)


@contextlib.contextmanager
def _cache(plan: Plan, cache: Any) -> Iterator[Any]:
    """The plan's one response cache: the one given, or the first request's, opened once."""
    from lexbench.run.cache import response_cache

    first = plan.cells[0].request if plan.cells else RunRequest("none", use_cache=False)
    with response_cache(cache if cache is not None else first.cache, first.use_cache) as opened:
        yield opened


def run_plan(
    plan: Plan,
    *,
    cache: Any = None,
    skippable: Callable[[BaseException], str | None] | None = None,
    opened: Mapping[str, Any] | None = None,
) -> Outcome:
    """Run every cell, model by model: each model (spec and options) is opened once for
    all its cells and closed before the next is opened; the response cache is opened once
    (or `cache`, an open one, is used). `opened`: models the caller opened, by the name the
    cells' requests give them (the Python API's `Model` objects), used and left open.
    A spread plan writes each spread record once its cells have run. A cell that raises
    stops the plan, unless the plan skips what cannot run and `skippable(error)` gives a
    reason (then the cell is recorded as skipped)."""
    from lexbench import api

    outcome = Outcome(plan)
    started = time.monotonic()
    with _cache(plan, cache) as store:
        position = 0
        while position < len(plan.cells):
            key = _model_key(plan.cells[position].request)
            group = []
            while position < len(plan.cells) and _model_key(plan.cells[position].request) == key:
                group.append(plan.cells[position])
                position += 1
            with _open(group[0].request, opened or {}) as model:
                for cell in group:
                    _announce(cell, started, outcome)
                    try:
                        pace = _pace(cell, started, outcome)
                        evaluation = api.run(cell.request, model, cache=store, pace=pace)
                    except Exception as error:
                        reason = skippable(error) if plan.skip_unrunnable and skippable else None
                        if reason is None:
                            raise
                        outcome.skipped.append((cell, reason))
                        print(
                            f"lexbench: {cell.request.benchmark} skipped: {terminal_text(reason)}",
                            file=sys.stderr,
                        )
                        continue
                    outcome.ran.append(CellRun(cell, evaluation))
    if plan.spread != ONE:
        outcome.spreads = _write_spreads(plan, outcome)
    return outcome


@contextlib.contextmanager
def _open(request: RunRequest, opened: Mapping[str, Any]) -> Iterator[Any]:
    """The model of a group of cells: the caller's, or opened from its spec and closed."""
    from lexbench.models.registry import open_model

    if request.model in opened:
        yield opened[str(request.model)]
        return
    with open_model(str(request.model), request.model_options) as model:
        yield model


def _announce(cell: Cell, started: float, outcome: Outcome) -> None:
    """The plan's line before each cell: which cell of how many, its benchmark, model and
    step, and the time the plan has left at the pace of the cells done so far."""
    if cell.of <= 1:
        return
    done = len(outcome.ran) + len(outcome.skipped)
    elapsed = time.monotonic() - started
    pace = ""
    if done:
        left = elapsed / done * (cell.of - done)
        pace = f" (plan: {duration(elapsed)} so far, about {duration(left)} left)"
    print(
        f"lexbench: [{cell.position}/{cell.of}] {terminal_text(cell.label())}{pace}",
        file=sys.stderr,
    )


def _pace(cell: Cell, started: float, outcome: Outcome) -> Callable[[], str] | None:
    """What the cell's progress line shows last, read at each redraw: the plan's position
    (`plan 2/6`) and, once a cell is done, the time the plan has left (`plan 3/6, about 4
    min 10 s left`): at the pace per cell so far, counting down while this cell runs, never
    below what the cells after it need. None for a plan of one cell (its bar is the plan)."""
    if cell.of <= 1:
        return None
    done = len(outcome.ran) + len(outcome.skipped)
    cell_started = time.monotonic()
    per_cell = (cell_started - started) / done if done else None
    position = f"plan {cell.position}/{cell.of}"

    def pace() -> str:
        if per_cell is None:
            return position
        running = time.monotonic() - cell_started
        left = max(per_cell * (cell.of - done - 1), per_cell * (cell.of - done) - running)
        return f"{position}, about {duration(left)} left"

    return pace


def _write_spreads(plan: Plan, outcome: Outcome) -> list[Spread]:
    """The spread record of each (condition, model) whose cells all ran."""
    from lexbench.robustness.spread import spread_record

    groups: dict[tuple[str, str, str], list[CellRun]] = {}
    for done in outcome.ran:
        key = (done.cell.condition, done.cell.request.benchmark, done.cell.model)
        groups.setdefault(key, []).append(done)
    spreads = []
    for (condition, benchmark, model), runs in groups.items():
        if len(runs) < 2 or not any(r.cell.published for r in runs):
            continue  # a benchmark of fixed data in `run all --sets K`: nothing spread
        spec = plugins.benchmark(benchmark)
        record, path = spread_record(
            spec, plan.spread, [(r.cell.step, r.cell.published, r.evaluation) for r in runs]
        )
        spreads.append(Spread(condition, benchmark, model, record, path))
    return spreads
