"""Which items a human study asks, and the study built from them.

`--sample paper` follows each paper's human study:

* LAMBDA: 100 random items per relation (300 for the paper's three), in one mixed order so
  that runs of one relation cannot give the relation away;
* E-KAR: 100 random problems of one language, each answered HARD then EASY.

SCAN and SetLexSem report no human study, so they take `--sample N` (N random items).
`--sample N` for LAMBDA means N per relation, as the paper counts.

Sampling is deterministic: items are sorted by id, drawn with `random.Random` seeded by a
string naming the benchmark and `--sample-seed`, then shuffled with the same generator.
The LAMBDA draw is the one the CSV sheet (`lexbench human lambda-export`) always made, so a
sheet and a web study with the same seed ask the same items.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.human.store import NewItem, StageSpec, Study, create_study
from lexbench.human.tasks import task_for

PAPER_SAMPLES = {"lambda": 100, "ekar": 100}


def parse_sample(text: str | int) -> str | int:
    """"paper" or a positive count."""
    if isinstance(text, int) or str(text).isdigit():
        value = int(text)
        if value < 1:
            raise ValueError(f"--sample must be 'paper' or at least 1, got {value}")
        return value
    if text != "paper":
        raise ValueError(f"--sample must be 'paper' or a number, got {text!r}")
    return "paper"


def sample_count(benchmark: str, sample: str | int) -> int:
    if sample != "paper":
        return int(sample)
    if benchmark not in PAPER_SAMPLES:
        raise ValueError(f"the {benchmark} paper reports no human study, so there is no paper "
                         f"sample; give --sample N (N random items)")
    return PAPER_SAMPLES[benchmark]


def sample_lambda(items: Sequence[Any], per_relation: int, seed: int = 0) -> list[Any]:
    """`per_relation` random items of each relation, shuffled together."""
    rng = random.Random(f"lambda-human:{seed}")
    chosen: list[Any] = []
    for relation in dict.fromkeys(i.relation for i in items):
        pool = [i for i in items if i.relation == relation]
        chosen.extend(rng.sample(pool, min(per_relation, len(pool))))
    rng.shuffle(chosen)
    return chosen


def sample_random(benchmark: str, items: Sequence[Any], count: int, seed: int = 0) -> list[Any]:
    """`count` random items (all of them, shuffled, when there are fewer)."""
    pool = sorted(items, key=lambda i: i.id)
    rng = random.Random(f"{benchmark}-human:{seed}")
    chosen = rng.sample(pool, min(count, len(pool)))
    rng.shuffle(chosen)
    return chosen


def draw(benchmark: str, items: Sequence[Any], sample: str | int, seed: int = 0) -> list[Any]:
    count = sample_count(benchmark, sample)
    if benchmark == "lambda":
        return sample_lambda(items, count, seed)
    return sample_random(benchmark, items, count, seed)


# ------------------------------------------------------------------------------ datasets


def load_items(benchmark: str, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Every item a study may draw from, and where they came from (for the run config)."""
    if benchmark == "lambda":
        return _lambda_items(options)
    if benchmark == "ekar":
        from lexbench.benchmarks.ekar_data import load_split

        loaded = load_split(options.get("language", "en"), options.get("split", "validation"),
                            data=options.get("data"), revision=options.get("revision", "v1.1"))
        return loaded.items, {"source": loaded.source, "file": loaded.path.name,
                              "sha256": loaded.sha256}
    if benchmark == "scan":
        from lexbench.benchmarks.scan import file_sha256, load_scan, locate_scan

        located = locate_scan(options.get("data"))
        return load_scan(located), {"source": str(located), "file_sha256": file_sha256(located)}
    if benchmark == "setlexsem":
        from lexbench.benchmarks.setlexsem import generate_items, read_items

        if options.get("items"):
            return read_items(options["items"]), {"file": str(options["items"])}
        from lexbench.benchmarks.setlexsem_grid import resolve_grid

        grid = resolve_grid(options.get("grid", "small"))
        return generate_items(grid, options.get("wordnet")), {"grid": grid.to_dict()}
    raise ValueError(f"no human study for benchmark {benchmark!r}")


def _lambda_items(options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    from lexbench.benchmarks.lambda_ import (
        LambdaConfig, dumps_items, generate_items, manifest, read_items,
    )

    if options.get("items"):
        from lexbench.run.store import read_manifest

        meta = read_manifest(options["items"], "lexbench generate lambda")
        return read_items(options["items"]), {"file": str(options["items"]),
                                              "content_sha256": meta.get("content_sha256"),
                                              "config": meta.get("config")}
    from lexbench.lexicon.wordnet import PAPER_RELATIONS, load_index

    config = LambdaConfig(profile=options.get("profile", "strict"), seed=options.get("seed", 42),
                          per_relation=options.get("per_relation", 1000),
                          relations=tuple(options.get("relations") or PAPER_RELATIONS))
    index = load_index(options.get("wordnet"), progress=False)
    items = generate_items(index, config)
    meta = manifest(items, config, index, dumps_items(items))
    return items, {"config": meta["config"], "content_sha256": meta["content_sha256"],
                   "wordnet_fingerprint": meta["wordnet_fingerprint"]}


# ------------------------------------------------------------------------------ studies


def study_items(benchmark: str, chosen: Sequence[Any], spec: Mapping[str, Any]) -> list[NewItem]:
    """Each chosen item with, per step, the exact prompt the benchmark would send a model."""
    from lexbench.models.human import prompt_key

    task = task_for(benchmark)
    prompts: dict[str, dict[str, Any]] = {}
    for stage in task.stages:
        bench = task.benchmark(chosen, spec, stage)
        for item in chosen:
            request = bench.requests(item)[0]
            prompts.setdefault(task.item_id(item), {})[stage] = request
    return [NewItem(item_id=task.item_id(item), item=task.to_json(item),
                    stages=tuple(StageSpec(stage, prompts[task.item_id(item)][stage].prompt,
                                           prompt_key(prompts[task.item_id(item)][stage]))
                                 for stage in task.stages))
            for item in chosen]


def build_study(directory: str | Path, benchmark: str, items: Sequence[Any], *,
                sample: str | int = "paper", sample_seed: int = 0,
                dataset: Mapping[str, Any] | None = None,
                options: Mapping[str, Any] | None = None,
                definitions: bool | None = None, order: str = "same") -> Study:
    """Draw the sample from `items` and write the study to `directory`."""
    from lexbench import __version__
    from lexbench.human.store import ORDERS

    if order not in ORDERS:
        raise ValueError(f"unknown item order {order!r}; choose from {', '.join(ORDERS)}")
    task = task_for(benchmark)
    chosen = draw(benchmark, items, sample, sample_seed)
    if benchmark == "ekar":
        missing = [i.id for i in chosen if i.query_explanation is None]
        if missing:
            raise ValueError(f"E-KAR's human study shows each problem again in EASY mode with "
                             f"the query's explanation; {len(missing)} sampled problem(s) have "
                             f"none (e.g. {missing[:3]}): use a labelled split with explanations "
                             f"(train or validation)")
    spec = {"benchmark": benchmark, "sample": sample, "sample_seed": sample_seed,
            "items": len(chosen), "dataset": dict(dataset or {}),
            "options": {k: (str(v) if isinstance(v, Path) else v)
                        for k, v in (options or {}).items() if v is not None},
            "definitions": task.definitions if definitions is None else bool(definitions),
            "order": order, "lexbench_version": __version__}
    return create_study(directory, spec, study_items(benchmark, chosen, spec))


def open_or_create(directory: str | Path, benchmark: str, *, sample: str | int = "paper",
                   sample_seed: int = 0, options: Mapping[str, Any] | None = None,
                   definitions: bool | None = None, order: str = "same") -> tuple[Study, bool]:
    """(the study, whether it was created now). An existing study is resumed as it is; a
    different benchmark, sample, seed or item order asked of it is an error, never a silent
    switch."""
    directory = Path(directory)
    from lexbench.human.store import DATABASE

    if (directory / DATABASE).is_file():
        study = Study(directory)
        asked = {"benchmark": benchmark, "sample": sample, "sample_seed": sample_seed,
                 "order": order}
        # A study made before item orders existed has the same order for everyone.
        kept = {**{"order": "same"}, **study.spec}
        differing = {k: (kept.get(k), v) for k, v in asked.items() if kept.get(k) != v}
        if differing:
            study.close()
            listing = "; ".join(f"{k}: study has {old!r}, asked {new!r}"
                                for k, (old, new) in differing.items())
            raise ValueError(f"{directory} holds another study ({listing}); resume it with its "
                             f"own settings or choose another --study directory")
        return study, False
    items, dataset = load_items(benchmark, options or {})
    return build_study(directory, benchmark, items, sample=sample, sample_seed=sample_seed,
                       dataset=dataset, options=options, definitions=definitions,
                       order=order), True
