"""The Python API: the same operations as the `lexbench` commands.

    >>> from lexbench import api                                        # doctest: +SKIP
    >>> items = api.generate_lambda(profile="strict", per_relation=100)  # doctest: +SKIP
    >>> run = api.run_lambda("smollm2-135m", limit=50)                   # doctest: +SKIP
    >>> run.results["overall"]["accuracy"]                               # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.base import Evaluation, evaluate
from lexbench.benchmarks.lambda_ import (
    LambdaBenchmark,
    LambdaConfig,
    LambdaItem,
    generate_items,
    read_items,
    write_items,
)
from lexbench.lexicon.wordnet import PAPER_RELATIONS, RelationIndex, load_index
from lexbench.models.base import Model
from lexbench.models.registry import load_model
from lexbench.run.cache import ResponseCache, response_cache


def lambda_index(wordnet: str | Path | None = None, progress: bool = True) -> RelationIndex:
    """The WordNet relation index (built once, then read from the disk cache)."""
    return load_index(wordnet, progress=progress)


def generate_lambda(*, profile: str = "strict", seed: int = 42, per_relation: int = 1000,
                    relations: Sequence[str] = PAPER_RELATIONS, output: str | Path | None = None,
                    wordnet: str | Path | None = None, progress: bool = True) -> list[LambdaItem]:
    """Generate LAMBDA items; with `output`, also write FILE and FILE.manifest.json."""
    config = LambdaConfig(profile=profile, seed=seed, per_relation=per_relation,
                          relations=tuple(relations))
    index = lambda_index(wordnet, progress)
    items = generate_items(index, config)
    if output is not None:
        write_items(output, items, config, index)
    return items


def limit_per_relation(items: Sequence[LambdaItem], limit: int | None) -> list[LambdaItem]:
    """The first `limit` items of each relation (items are already in random order)."""
    if limit is None:
        return list(items)
    taken: dict[str, int] = {}
    out = []
    for item in items:
        if taken.get(item.relation, 0) < limit:
            taken[item.relation] = taken.get(item.relation, 0) + 1
            out.append(item)
    return out


def run_lambda(model: str | Model = "smollm2-135m", *, limit: int | None = None,
               protocol: str = "paper", prompt_style: str = "paper", profile: str = "strict",
               seed: int = 42, per_relation: int = 1000,
               relations: Sequence[str] = PAPER_RELATIONS, items: str | Path | None = None,
               model_options: Mapping[str, Any] | None = None, out: str | Path = "runs",
               cache: ResponseCache | str | Path | None = None, use_cache: bool = True,
               wordnet: str | Path | None = None, progress: bool = True) -> Evaluation:
    """Evaluate a model on LAMBDA and write a run folder; returns results and report.

    `limit` takes the first N items of each relation. `items` reads a generated JSONL
    file instead of generating (its own profile and seed then apply).
    """
    index = lambda_index(wordnet, progress)
    if items is not None:
        dataset = read_items(items)
        dataset_config: dict[str, Any] = {"file": str(items)}
    else:
        config = LambdaConfig(profile=profile, seed=seed, per_relation=per_relation,
                              relations=tuple(relations))
        dataset = generate_items(index, config)
        dataset_config = config.to_dict()
    dataset = limit_per_relation(dataset, limit)
    dataset_config = {**dataset_config, "limit_per_relation": limit}
    backend = model if isinstance(model, Model) else load_model(model, model_options)
    # Chat formatting is the backend's option (hf --chat-template, openai --api chat): it is
    # part of the model's fingerprint, so cached plain and chat answers never mix.
    benchmark = LambdaBenchmark(dataset=dataset, index=index, protocol=protocol,
                                prompt_style=prompt_style, dataset_config=dataset_config)
    with response_cache(cache, use_cache) as store:
        return evaluate(benchmark, backend, out_root=out, cache=store, progress=progress)
