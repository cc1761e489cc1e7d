"""Which items a human study asks, and the study built from them.

`--sample paper` follows the benchmark's paper (its task's `paper_sample`: LAMBDA 100 items
per relation, E-KAR 100 problems); a benchmark whose paper reports no human study takes
`--sample N`. Each task draws its own way (`StudyTask.draw`), deterministically: items
sorted by id, a `random.Random` seeded by a string naming the benchmark and
`--sample-seed`, then shuffled with the same generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.human.creation import NewItem, StageSpec, create_study
from lexbench.human.store import Study
from lexbench.human.tasks import task_for


def parse_sample(text: str | int) -> str | int:
    """ "paper" or a positive count."""
    if isinstance(text, int) or str(text).isdigit():
        value = int(text)
        if value < 1:
            raise ValueError(f"--sample must be 'paper' or at least 1, got {value}")
        return value
    if text != "paper":
        raise ValueError(f"--sample must be 'paper' or a number, got {text!r}")
    return "paper"


def draw(benchmark: str, items: Sequence[Any], sample: str | int, seed: int = 0) -> list[Any]:
    """The study's sample: the benchmark's own draw of `sample` (a count, or "paper")."""
    task = task_for(benchmark)
    return task.draw(items, task.sample_count(sample), seed)


def load_items(benchmark: str, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Every item a study may draw from, and where they came from (for the run config)."""
    return task_for(benchmark).load_items(options)


# ------------------------------------------------------------------------------ studies


def study_items(benchmark: str, chosen: Sequence[Any], spec: Mapping[str, Any]) -> list[NewItem]:
    """Each chosen item with, per step, the exact prompt the benchmark would send a model."""
    from lexbench.human.backend import prompt_key

    task = task_for(benchmark)
    prompts: dict[str, dict[str, Any]] = {}
    for stage in task.stages:
        bench = task.benchmark(chosen, spec, stage)
        for item in chosen:
            request = bench.requests(item)[0]
            prompts.setdefault(task.item_id(item), {})[stage] = request
    return [
        NewItem(
            item_id=task.item_id(item),
            item=task.to_json(item),
            stages=tuple(
                StageSpec(
                    stage,
                    prompts[task.item_id(item)][stage].prompt,
                    prompt_key(prompts[task.item_id(item)][stage]),
                )
                for stage in task.stages
            ),
        )
        for item in chosen
    ]


def build_study(
    directory: str | Path,
    benchmark: str,
    items: Sequence[Any],
    *,
    sample: str | int = "paper",
    sample_seed: int = 0,
    dataset: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    definitions: bool | None = None,
    order: str = "same",
) -> Study:
    """Draw the sample from `items` and write the study to `directory`."""
    from lexbench import __version__
    from lexbench.human.store import ORDERS

    if order not in ORDERS:
        raise ValueError(f"unknown item order {order!r}; choose from {', '.join(ORDERS)}")
    task = task_for(benchmark)
    chosen = draw(benchmark, items, sample, sample_seed)
    task.check_sample(chosen)
    spec = {
        "benchmark": benchmark,
        "sample": sample,
        "sample_seed": sample_seed,
        "items": len(chosen),
        "dataset": dict(dataset or {}),
        "options": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in (options or {}).items()
            if v is not None
        },
        "definitions": task.definitions if definitions is None else bool(definitions),
        "order": order,
        "lexbench_version": __version__,
    }
    return create_study(directory, spec, study_items(benchmark, chosen, spec))


def open_or_create(
    directory: str | Path,
    benchmark: str,
    *,
    sample: str | int = "paper",
    sample_seed: int = 0,
    options: Mapping[str, Any] | None = None,
    definitions: bool | None = None,
    order: str = "same",
) -> tuple[Study, bool]:
    """(the study, whether it was created now). An existing study is resumed as it is; a
    different benchmark, sample, seed or item order asked of it is an error, never a silent
    switch."""
    directory = Path(directory)
    from lexbench.human.database import DATABASE

    if (directory / DATABASE).is_file():
        study = Study(directory)
        asked = {
            "benchmark": benchmark,
            "sample": sample,
            "sample_seed": sample_seed,
            "order": order,
        }
        # A study made before item orders existed has the same order for everyone.
        kept = {**{"order": "same"}, **study.spec}
        differing = {k: (kept.get(k), v) for k, v in asked.items() if kept.get(k) != v}
        if differing:
            study.close()
            listing = "; ".join(
                f"{k}: study has {old!r}, asked {new!r}" for k, (old, new) in differing.items()
            )
            raise ValueError(
                f"{directory} holds another study ({listing}); resume it with its "
                f"own settings or choose another --study directory"
            )
        return study, False
    items, dataset = load_items(benchmark, options or {})
    return build_study(
        directory,
        benchmark,
        items,
        sample=sample,
        sample_seed=sample_seed,
        dataset=dataset,
        options=options,
        definitions=definitions,
        order=order,
    ), True
