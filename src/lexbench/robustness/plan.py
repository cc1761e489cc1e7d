"""The run plan: models x wordings x item sets of one benchmark, expanded into cells, each
cell one `api.run` with its own run folder; then, per model, the spread across sets or
wordings, and across models one leaderboard and the paired comparisons.

`--model A,B`, `--sets K` and `--prompt-variant NAME|all` are ways of writing a plan. The
plan runs a command's own `api.run` call once per cell with the cell in force
(`lexbench.run.cells`, below `api`), model by model: each model is loaded once, for all its
cells, and closed before the next is loaded.

    >>> from lexbench.robustness.runs import Step
    >>> same = Step("paper", True, lambda spec, options: dict(options))
    >>> [f"{c.model}/{c.step.label}" for c in Plan("lambda", "one", ("a", "b"), (same,)).cells]
    ['a/paper', 'b/paper']
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.robustness.runs import Step, plan, spread_record
from lexbench.run.cells import in_cell, sharing_models
from lexbench.wordings import PAPER


@dataclass(frozen=True)
class Cell:
    """One run of a plan: a model and a step (a set or a wording), and its place."""

    model: str
    step: Step
    position: int
    of: int


@dataclass(frozen=True)
class Plan:
    """`kind`: "one" (one wording, one set), "sets" or "prompts" (a spread per model)."""

    benchmark: str
    kind: str
    models: tuple[str, ...]
    steps: tuple[Step, ...]

    @property
    def cells(self) -> list[Cell]:
        """Model-major: every cell of the first model, then the next model's."""
        size = len(self.models) * len(self.steps)
        return [
            Cell(model, step, m * len(self.steps) + s + 1, size)
            for m, model in enumerate(self.models)
            for s, step in enumerate(self.steps)
        ]


@dataclass(frozen=True)
class ModelRuns:
    """What a plan ran on one model: its evaluations in step order, and its spread record
    (with the record's path) when the plan is a spread."""

    model: str
    evaluations: list[Any]
    published: Any
    record: dict[str, Any] | None = None
    record_path: Path | None = None


def expand(spec: Any, models: Sequence[str], sets: int | None, variant: str) -> Plan:
    """The plan the options ask for; checked before any model is loaded."""
    names = list(models)
    repeated = sorted({m for m in names if names.count(m) > 1})
    if repeated:
        raise ValueError(f"--model names {', '.join(repeated)} twice; name each model once")
    if not names:
        raise ValueError("--model names no model")
    planned = plan(spec, sets, variant)
    if planned is not None:
        return Plan(spec.name, planned[0], tuple(names), tuple(planned[1]))
    if variant == PAPER:
        step = Step(PAPER, True, lambda spec, options: dict(options))
    else:  # one other wording: the one run, reworded

        def change(spec: Any, options: Any) -> dict[str, Any]:
            return {**options, "prompt_variant": variant}

        step = Step(variant, True, change)
    return Plan(spec.name, "one", tuple(names), (step,))


def run_plan(spec: Any, planned: Plan, run_cell: Callable[[Cell], Any]) -> list[ModelRuns]:
    """Run every cell (`run_cell(cell)`: the command's own `api.run` call for that cell's
    model), model by model; write each model's spread record when the plan is a spread."""
    out: list[ModelRuns] = []
    cells = planned.cells
    for model in planned.models:
        mine = [c for c in cells if c.model == model]
        with sharing_models():  # one load of this model for all its cells
            evaluations = [_run(spec, cell, run_cell) for cell in mine]
        published = next(e for e, c in zip(evaluations, mine) if c.step.published)
        if planned.kind == "one":
            out.append(ModelRuns(model, evaluations, published))
            continue
        record, path = spread_record(spec, planned.kind, list(planned.steps), evaluations)
        out.append(ModelRuns(model, evaluations, published, record, path))
    return out


def _run(spec: Any, cell: Cell, run_cell: Callable[[Cell], Any]) -> Any:
    if cell.of > 1:
        print(
            f"lexbench: [{cell.position}/{cell.of}] {spec.name} · {cell.model} · {cell.step.label}",
            file=sys.stderr,
        )
    with in_cell(cell.step.change):
        return run_cell(cell)
