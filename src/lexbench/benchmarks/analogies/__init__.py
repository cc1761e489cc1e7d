"""The classic analogy sets SCAN compares against, in the same harness: the Google analogy
set, BATS 3.0, any word-pair analogy file, and SAT-style multiple choice. A language model
ranks next words (MRR@10, acc@1, recall@k, clustered by section or relation) or scores the
choices; word vectors answer 3CosAdd, 3CosMul, pair-difference or the SCAN paper's method.

The package: `data` (the analogy type), `google` and `pairs` (its file formats: Google's
questions, BATS and word-pair lists), `sets` (Google, BATS, pair files, SAT: loading and
building), `rank` and `choice` (the ranking and multiple-choice `Benchmark`s, which SCAN
builds on), `prompts`, `tables`, `report` (its report section and the ranking leaderboard
row) and `cli` (`lexbench run google|bats|pairs|sat`). This module registers the four sets
(`BENCHMARKS`).
"""

from __future__ import annotations

from typing import Any

from lexbench.contract import (
    CHAT,
    BenchmarkSpec,
    ComparisonTest,
    LabelSetting,
    Reference,
    SuiteEntry,
)

RANK_QUESTION = ("a", "b", "c", "d")

#: The SCAN paper's significance test (Tables 2-4: "two-sided permutation test; p < 0.05;
#: #resamples=10e5"), unpaired on per-item reciprocal ranks, with scipy's two-sided p as
#: the authors computed it. `compare` runs it on SCAN and on the ranking sets it used.
SCAN_PAPER_TEST = ComparisonTest(
    name="SCAN paper",
    label="unpaired permutation (SCAN paper)",
    run="lexbench.stats:permutation_test",
    metric="score",
    resamples=1_000_000,
)


def ranks_words(options: Any, model: Any) -> dict[str, str]:
    """What a ranking set cannot honour: it asks for the next word's ranking (or word
    vectors' nearest words), and chat prompts wrap generated text only."""
    return {CHAT: "it ranks next words (or asks word vectors) and generates no text to wrap"}


def _scores_choices(options: Any, model: Any) -> dict[str, str]:
    return {CHAT: "it scores each choice (log-likelihood or word vectors) and generates no text"}


def _ranking_set(
    name: str,
    description: str,
    suite: SuiteEntry | None,
    vector_method: str,
    public_file: str | None = None,
) -> BenchmarkSpec:
    return BenchmarkSpec(
        name=name,
        description=description,
        build=Reference("lexbench.benchmarks.analogies.sets:build_classic", name),
        needs_any=("rank", "analogy"),
        limit_option="limit_per_relation",
        suite=suite,
        commands=Reference("lexbench.benchmarks.analogies.cli:register_set", name=name),
        reporters="lexbench.benchmarks.analogies.report:REPORTERS",
        headline="lexbench.benchmarks.analogies.report:ranking_headline",
        question_fields={name: RANK_QUESTION},
        comparison_tests=(SCAN_PAPER_TEST,),
        prompt_variants="lexbench.benchmarks.analogies.variants:VARIANTS",
        public_file=public_file,
        cannot_honour=ranks_words,
        label_settings=(
            LabelSetting("benchmark.shots", "shots", 0),
            LabelSetting("benchmark.method", "method", vector_method),  # word vectors only
            LabelSetting("benchmark.dataset.limit_per_relation", "limit"),
            LabelSetting("benchmark.dataset.source", "data", "default"),
        ),
    )


BENCHMARKS = [
    # The vector method each set defaults to (`analogies.sets.SET_DEFAULTS`).
    _ranking_set(
        "google",
        "the Google analogy set",
        SuiteEntry(order=30),
        "3cosadd",
        "lexbench.benchmarks.analogies.probe:google_file",
    ),
    _ranking_set("bats", "BATS 3.0", SuiteEntry(order=40), "scan-paper"),
    _ranking_set("pairs", "a word-pair analogy file", None, "3cosadd"),
    BenchmarkSpec(
        name="sat",
        description="SAT-style multiple-choice analogies",
        build="lexbench.benchmarks.analogies.sets:build_sat",
        needs_any=("loglikelihood", "analogy"),
        commands="lexbench.benchmarks.analogies.cli:register_sat",
        reporters="lexbench.benchmarks.analogies.report:REPORTERS",
        question_fields={"sat": ("a", "b", "choices", "answer")},
        prompt_variants="lexbench.benchmarks.analogies.variants:VARIANTS",
        cannot_honour=_scores_choices,
        label_settings=(
            LabelSetting("benchmark.method", "method", "pairdiff"),  # word vectors only
            LabelSetting("benchmark.dataset.limit", "limit"),
        ),
    ),
]
