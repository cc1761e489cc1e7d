"""The classic analogy sets (Google, BATS, word-pair files, SAT-style choices) as benchmarks.

The pieces live in modules by idea; this one picks a set's loader by name, builds a
benchmark for a model and re-exports the names other code uses:

    analogy_data     the `Analogy` item, per-relation limits
    analogy_google   word2vec-format question files, the Google set
    analogy_pairs    word-pair lists, BATS 3.0, any pair file by path
    analogy_prompts  the SCAN template and shot selection
    analogy_rank     the ranking benchmark (rank or word-vector analogy requests) and scoring
    analogy_choice   SAT-style multiple choice
    analogy_tables   tables, figures and permutation tests

    >>> from lexbench import api                                                 # doctest: +SKIP
    >>> run = api.run("google", "glove", model_options={"restrict": 30000})      # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from lexbench.benchmarks.analogies.choice import (
    ChoiceAnalogy,
    ChoiceAnalogyBenchmark,
    choice_request_kind,
    read_choice_file,
)
from lexbench.benchmarks.analogies.data import Analogy, limit_per_mapping
from lexbench.benchmarks.analogies.google import load_google, read_question_file
from lexbench.benchmarks.analogies.pairs import (
    load_bats,
    load_pair_file,
    parse_pair_lines,
    questions_from_pairs,
    read_pair_collection,
    zip_bytes,
)
from lexbench.benchmarks.analogies.prompts import choose_shots, query_prompt, sentence
from lexbench.benchmarks.analogies.rank import (
    DEFAULT_TOP_K,
    RankAnalogyBenchmark,
    rank_outcome,
    request_kind_for,
)
from lexbench.benchmarks.analogies.tables import (
    METRICS,
    comparison_markdown,
    mrr_figure,
    paired_mrr_test,
    report_markdown,
    summarize,
)
from lexbench.hashing import sha256_file
from lexbench.models.base import Model

__all__ = [
    "DEFAULT_TOP_K",
    "METRICS",
    "Analogy",
    "ChoiceAnalogy",
    "ChoiceAnalogyBenchmark",
    "RankAnalogyBenchmark",
    "build_classic",
    "build_sat",
    "choose_shots",
    "comparison_markdown",
    "limit_per_mapping",
    "load_bats",
    "load_dataset",
    "load_google",
    "load_pair_file",
    "mrr_figure",
    "paired_mrr_test",
    "parse_pair_lines",
    "query_prompt",
    "questions_from_pairs",
    "rank_outcome",
    "read_choice_file",
    "read_pair_collection",
    "read_question_file",
    "report_markdown",
    "sentence",
    "summarize",
    "zip_bytes",
]

CLASSIC_SETS = ("google", "bats", "pairs")
# (word-vector method, out-of-vocabulary policy) when not given. BATS follows SCAN: the SCAN
# paper compares GloVe on both with one baseline (|b - a| + c, a missing item counted wrong),
# so one command gives its BATS-vs-SCAN comparison. Google and pair files follow gensim's
# `evaluate_word_analogies` (3CosAdd, items with unknown words left out).
SET_DEFAULTS = {
    "bats": ("scan-paper", "wrong"),
    "google": ("3cosadd", "skip"),
    "pairs": ("3cosadd", "skip"),
}


def load_dataset(name: str, path: str | Path | None) -> list[Analogy]:
    """The items of the classic set `name`, read from `path` or the set's default source."""
    if name == "google":
        return load_google(path)
    if name == "bats":
        return load_bats(path)
    if name == "pairs":
        if path is None:
            raise ValueError("a pair-file run needs the file's path (--data PATH)")
        return load_pair_file(path)
    raise ValueError(f"unknown analogy set {name!r}; choose google, bats or pairs")


def build_classic(
    name: str,
    model: Model,
    *,
    data: str | Path | None = None,
    limit_per_relation: int | None = None,
    shots: int = 0,
    seed: int = 0,
    method: str | None = None,
    oov_policy: str | None = None,
) -> RankAnalogyBenchmark:
    """Google, BATS or a pair file for `model` (an LM ranks next tokens, vectors answer
    analogy queries). `limit_per_relation` draws a seeded sample per section/relation."""
    items = load_dataset(name, data)
    chosen = limit_per_mapping(items, limit_per_relation, seed)
    default_method, default_oov = SET_DEFAULTS[name]
    oov_policy = oov_policy or default_oov
    if model.supports("analogy") and method is None:
        method = default_method
    kind, method = request_kind_for(model, method)
    config = {
        "set": name,
        "source": str(data) if data else "default",
        "limit_per_relation": limit_per_relation,
        "source_items": len(items),
    }
    return RankAnalogyBenchmark(
        name=name,
        dataset=chosen,
        request_kind=kind,
        shots=shots,
        seed=seed,
        method=method,
        oov_policy=oov_policy,
        dataset_config=config,
        shot_pool=items,
    )


def build_sat(
    model: Model, *, data: str | Path, method: str | None = None, limit: int | None = None
) -> ChoiceAnalogyBenchmark:
    """SAT-style multiple choice from a file (JSON lines or Turney's text format)."""
    items = read_choice_file(data)
    if limit is not None:
        items = items[:limit]
    source = Path(data).expanduser()
    return ChoiceAnalogyBenchmark(
        name="sat",
        dataset=items,
        request_kind=choice_request_kind(model, method),
        method=method,
        dataset_config={"source": str(source), "file_sha256": sha256_file(source), "limit": limit},
    )
