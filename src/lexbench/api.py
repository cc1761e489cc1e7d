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
    LambdaConfig,
    LambdaItem,
    generate_items,
    write_items,
)
from lexbench.lexicon.wordnet import PAPER_RELATIONS, RelationIndex, load_index
from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache, response_cache

__all__ = ["generate_lambda", "lambda_index", "run", "run_lambda"]


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


def run(benchmark: str, model: str | Model = "smollm2-135m", *,
        model_options: Mapping[str, Any] | None = None, out: str | Path = "runs",
        cache: ResponseCache | str | Path | None = None, use_cache: bool = True,
        progress: bool = True, chat: bool | None = None, **options: Any) -> Evaluation:
    """Evaluate `model` on `benchmark` and write its run folder: the one entry point.

    Opens the model (a spec such as "smollm2-135m", "openai:NAME", "glove"; or a `Model`
    you opened, which is left open) and the response cache, builds the benchmark with
    `options` (those of `lexbench.benchmarks.registry`'s builder for it), runs it, and closes
    what it opened. `chat=None` takes the benchmark's measured default for chat models.

    >>> run = api.run("scan", "smollm2-135m", limit=20)                 # doctest: +SKIP
    >>> run = api.run("google", "glove", limit_per_relation=50)          # doctest: +SKIP
    """
    from lexbench.benchmarks.registry import entry
    from lexbench.models.registry import open_model

    chosen = entry(benchmark)
    check_input_paths(options)
    if chosen.name == "lambda":
        options.setdefault("progress", progress)   # building the WordNet index shows a bar
    with open_model(model, model_options) as backend, response_cache(cache, use_cache) as store:
        chosen.check(backend)
        built = chosen.build(backend, **options)
        use_chat = chosen.chat_default if chat is None else chat
        use_chat = bool(use_chat and backend.has_chat_template())
        recorded = {k: v for k, v in options.items() if k != "progress"}
        return evaluate(built, backend, out_root=out, cache=store, progress=progress,
                        chat=use_chat, run_options={"benchmark": benchmark, **recorded})


def check_input_paths(options: Mapping[str, Any]) -> None:
    """Fail before any model is loaded when an input file or folder the options name is
    missing (loading a model can take a minute; a typo should not)."""
    for name in ("items", "data"):
        value = options.get(name)
        if isinstance(value, (str, Path)) and not Path(value).expanduser().exists():
            raise FileNotFoundError(f"No such file or folder ({name}): {value}")


def run_lambda(model: str | Model = "smollm2-135m", **options: Any) -> Evaluation:
    """Evaluate a model on LAMBDA (`run("lambda", model, **options)`): `limit` takes the
    first N items of each relation; `items` reads a generated JSONL file instead of
    generating (its own profile and seed then apply)."""
    return run("lambda", model, **options)
