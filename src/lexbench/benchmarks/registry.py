"""Every benchmark by name: how to build it for a model, and its measured chat default.

A builder takes the opened model (benchmarks ask it only what it declares: `supports(kind)`)
and the benchmark's own options, and returns a `Benchmark`. `api.run` is a loop-free use of
this table; `lexbench run all` loops over `SUITE`.

Chat defaults were measured on the packaged SmolLM2-135M-Instruct (README, "A default that
works"): a benchmark whose generation prompts an instruct model only answers in its chat
format defaults to it, whenever the model has a chat template; `chat=False` turns it off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.models.base import Model


@dataclass(frozen=True)
class BenchmarkEntry:
    name: str
    build: Callable[..., Any]
    description: str
    #: Wrap generation prompts in the chat format by default (chat models only).
    chat_default: bool = False
    #: The option a `--limit` of `run all` maps to.
    limit_option: str | None = "limit"
    #: Request kinds of which the model must answer at least one (checked before building).
    needs_any: tuple[str, ...] = ()

    def check(self, model: Model) -> None:
        if self.needs_any and not any(model.supports(k) for k in self.needs_any):
            raise ValueError(f"{self.name} needs a model that answers "
                             f"{' or '.join(self.needs_any)} requests; {model.name} answers "
                             f"{', '.join(sorted(model.kinds)) or 'none'}")


def build_lambda(model: Model, *, limit: int | None = None, protocol: str = "paper",
                 prompt_style: str = "paper", profile: str = "strict", seed: int = 42,
                 per_relation: int = 1000, relations: Sequence[str] | None = None,
                 items: str | Path | None = None, wordnet: str | Path | None = None,
                 progress: bool = True, **extra: Any) -> Any:
    """LAMBDA: generated items (or a generated file), the first `limit` per relation."""
    from lexbench.benchmarks.lambda_ import LambdaBenchmark, LambdaConfig, generate_items, read_items
    from lexbench.lexicon.wordnet import PAPER_RELATIONS, load_index

    index = load_index(wordnet, progress=progress)
    if items is not None:
        dataset = read_items(items)
        dataset_config: dict[str, Any] = {"file": str(items)}
    else:
        config = LambdaConfig(profile=profile, seed=seed, per_relation=per_relation,
                              relations=tuple(relations or PAPER_RELATIONS))
        dataset = generate_items(index, config)
        dataset_config = config.to_dict()
    dataset = limit_per_relation(dataset, limit)
    dataset_config = {**dataset_config, "limit_per_relation": limit}
    return LambdaBenchmark(dataset=dataset, index=index, protocol=protocol,
                           prompt_style=prompt_style, dataset_config=dataset_config, **extra)


def limit_per_relation(items: Sequence[Any], limit: int | None) -> list[Any]:
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


def build_scan(model: Model, **options: Any) -> Any:
    from lexbench.benchmarks.scan import build_scan as build

    return build(model, **options)


def _classic(name: str) -> Callable[..., Any]:
    def build(model: Model, **options: Any) -> Any:
        from lexbench.benchmarks.analogies import build_classic

        return build_classic(name, model, **options)

    return build


def build_sat(model: Model, **options: Any) -> Any:
    from lexbench.benchmarks.analogies import build_sat as build

    return build(model, **options)


def build_setlexsem(model: Model, **options: Any) -> Any:
    """SetLexSem over a grid (or a generated file): `setlexsem.build_benchmark`'s options
    (grid, items, limit, select, decoding, wordnet)."""
    from lexbench.benchmarks.setlexsem import build_benchmark

    return build_benchmark(model.name, **options)


def build_ekar(model: Model, *, task: str = "qa", method: str | None = None,
               **options: Any) -> Any:
    """E-KAR question answering (`task="qa"`: log-likelihood, generation or the embedding
    baseline, chosen from what the model answers unless named) or explanation generation
    (`task="explain"`)."""
    if task == "explain":
        from lexbench.benchmarks.ekar_explain import load_explanation_benchmark

        if not model.supports("generate"):
            raise ValueError(f"explanation generation needs a text-generating model; "
                             f"{model.name} does not generate")
        return load_explanation_benchmark(**options)
    if task != "qa":
        raise ValueError(f"unknown E-KAR task {task!r}; choose qa or explain")
    from lexbench.benchmarks.ekar import load_benchmark
    from lexbench.benchmarks.ekar_embedding import check_coverage, resolve_model

    if method is None:
        method = ("embedding" if model.supports("analogy") else
                  "loglikelihood" if model.supports("loglikelihood") else "generate")
    if method != "contextual":
        resolve_model(model, method)   # checks that the model can answer this method
    benchmark = load_benchmark(method=method, **options)
    check_coverage(model, benchmark.items())
    return benchmark


BENCHMARKS: dict[str, BenchmarkEntry] = {entry.name: entry for entry in (
    BenchmarkEntry("lambda", build_lambda, "LAMBDA: two-shot WordNet lexical analogies",
                   needs_any=("generate",)),
    BenchmarkEntry("scan", build_scan, "SCAN: science and metaphor analogies (MRR@10)",
                   needs_any=("rank", "analogy")),
    BenchmarkEntry("google", _classic("google"), "the Google analogy set",
                   limit_option="limit_per_relation", needs_any=("rank", "analogy")),
    BenchmarkEntry("bats", _classic("bats"), "BATS 3.0", limit_option="limit_per_relation",
                   needs_any=("rank", "analogy")),
    BenchmarkEntry("pairs", _classic("pairs"), "a word-pair analogy file",
                   limit_option="limit_per_relation", needs_any=("rank", "analogy")),
    BenchmarkEntry("sat", build_sat, "SAT-style multiple-choice analogies",
                   needs_any=("loglikelihood", "analogy")),
    BenchmarkEntry("setlexsem", build_setlexsem, "SetLexSem: set operations",
                   chat_default=True, needs_any=("generate",)),
    BenchmarkEntry("ekar", build_ekar, "E-KAR: explainable analogies (QA)",
                   needs_any=("loglikelihood", "generate", "analogy")),
)}

#: What `lexbench run all` runs, in order, with the options it needs; sets whose data
#: cannot be had here are skipped with the reason.
SUITE: tuple[tuple[str, dict[str, Any]], ...] = (
    ("lambda", {}),
    ("scan", {}),
    ("google", {}),
    ("bats", {}),
    # The paper grid's Table 3 core (zero-shot, formal, the base prompt, operand size 2:
    # numbers and words, every token length and operation): 32 configurations, so that
    # `--limit N` stays N prompts per configuration of a slice a CPU finishes in minutes.
    ("setlexsem", {"grid": "paper",
                   "select": ["study=main", "k=0", "phrasing=formal", "method=baseline", "m=2"]}),
    ("ekar", {}),
)


def entry(name: str) -> BenchmarkEntry:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}") from None
