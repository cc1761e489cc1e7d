"""The steps of a plan: one benchmark command run once per fresh item set (`--sets K`) or
once per wording (`--prompt-variant all`), each run its own folder through the response
cache, then the spread written beside them (`lexbench.robustness.plan` adds the models).

Fresh sets are drawn with seeds 1, 2, 3, ... (the published seed skipped), so a second call
with a larger K finds the first K sets' folders and answers in the cache and sends only the
new sets' requests.

    >>> fresh_seeds(2, 3)
    [1, 3, 4]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.robustness.files import spread_path, write_record
from lexbench.robustness.spread import member_from_samples, summarise
from lexbench.run.cells import in_cell, sharing_models
from lexbench.wordings import ALL, PAPER, chosen_variants


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


@dataclass(frozen=True)
class Step:
    """One run of a loop: its label, whether it is the published run, and the change to the
    builder options that makes it."""

    label: str
    published: bool
    change: Callable[[Any, Mapping[str, Any]], dict[str, Any]]


def _with(key: str, value: Any) -> Callable[[Any, Mapping[str, Any]], dict[str, Any]]:
    return lambda spec, options: {**options, key: value}


def set_steps(spec: Any, sets: int, variant: str = PAPER) -> list[Step]:
    """The published set and K fresh sets of `spec` (which must regenerate)."""
    regenerate = spec.regenerate
    if regenerate is None:
        raise ValueError(
            f"--sets draws fresh item sets, and {spec.name} reads fixed data; use "
            f"--prompt-variant all for its spread across wordings"
        )

    def seeded(offset: int | None) -> Callable[[Any, Mapping[str, Any]], dict[str, Any]]:
        def change(spec: Any, options: Mapping[str, Any]) -> dict[str, Any]:
            published = regenerate.published_seed(options)
            base = {**options, "prompt_variant": variant}
            if offset is None:
                return dict(base)
            return regenerate.with_seed(base, fresh_seeds(published, sets)[offset])

        return change

    return [Step("published seed", True, seeded(None))] + [
        Step(f"fresh set {i + 1}", False, seeded(i)) for i in range(sets)
    ]


def variant_steps(spec: Any, requested: str) -> list[Step]:
    return [
        Step(v.name, v.name == PAPER, _with("prompt_variant", v.name))
        for v in chosen_variants(spec, requested)
    ]


def run_steps(
    spec: Any, kind: str, steps: Sequence[Step], run_one: Callable[[], Any]
) -> tuple[list[Any], dict[str, Any], Path]:
    """Run `run_one` (a closed-over `api.run` call) once per step, then write the spread
    record; returns (evaluations, record, its path). A plan of one model (`--model A,B`
    plans go through `lexbench.robustness.plan`)."""
    with sharing_models():  # the model is loaded once for every set or wording
        evaluations = []
        for step in steps:
            with in_cell(step.change):
                evaluations.append(run_one())
    record, path = spread_record(spec, kind, steps, evaluations)
    return evaluations, record, path


def spread_record(
    spec: Any, kind: str, steps: Sequence[Step], evaluations: Sequence[Any]
) -> tuple[dict[str, Any], Path]:
    """The spread of one model's runs across the steps, written beside its published run."""
    from lexbench.run.store import read_jsonl

    members = []
    for step, evaluation in zip(steps, evaluations):
        config = evaluation.folder.config_path
        label = step.label
        if kind == "sets":
            dataset = json.loads(config.read_text(encoding="utf-8"))["benchmark"]
            seed = _seed_in(dataset)
            label = f"seed {seed}" if seed is not None else step.label
        members.append(
            member_from_samples(
                label,
                evaluation.folder.path,
                step.published,
                read_jsonl(evaluation.folder.samples_path),
                spec.spread_fields,
            )
        )
    folders = [str(e.folder.path) for e in evaluations]
    if len(set(folders)) < len(folders):
        raise ValueError(
            f"the {spec.name} command ran the same configuration for two "
            f"{'sets' if kind == 'sets' else 'wordings'} ({folders[0]}): it does not pass "
            f"the options of `lexbench.robustness` on to its runs"
        )
    record = summarise(kind, members, bootstrap=kind == "prompts")
    published = next(e for e, s in zip(evaluations, steps) if s.published)
    record = {
        "benchmark": spec.name,
        "model": published.results.get("model") or published.folder.path.parent.name,
        "cost": [
            {
                "label": m.label,
                **{k: e.stats.to_dict()[k] for k in ("requests", "cached", "sent", "seconds")},
            }
            for m, e in zip(members, evaluations)
        ],
        **record,
    }
    return record, write_record(spread_path(published.folder.path, kind), record)


def _seed_in(config: Any) -> int | None:
    """The item seed a benchmark config records (its `seed` at any depth, first found)."""
    if isinstance(config, Mapping):
        if isinstance(config.get("seed"), int):
            return int(config["seed"])
        for value in config.values():
            found = _seed_in(value)
            if found is not None:
                return found
    return None


def plan(spec: Any, sets: int | None, variant: str) -> tuple[str, list[Step]] | None:
    """The loop the options ask for, or None for one plain run."""
    if sets:
        if variant == ALL:
            raise ValueError(
                "--sets with --prompt-variant all would run every wording on every set; "
                "run them one at a time (the cache shares what they have in common)"
            )
        return "sets", set_steps(spec, sets, variant)
    if variant == ALL:
        return "prompts", variant_steps(spec, ALL)
    return None
