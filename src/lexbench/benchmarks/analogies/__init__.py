"""The classic analogy sets SCAN compares against, in the same harness: the Google analogy
set, BATS 3.0, any word-pair analogy file, and SAT-style multiple choice. A language model
ranks next words (MRR@10, acc@1, recall@k, clustered by section or relation) or scores the
choices; word vectors answer 3CosAdd, 3CosMul, pair-difference or the SCAN paper's method.

The package: `data` (the analogy type and file formats), `sets` (Google, BATS, pair files,
SAT: loading and building), `rank` and `choice` (the ranking and multiple-choice
`Benchmark`s, which SCAN builds on), `prompts`, `tables`, `report` (its report section and
the ranking leaderboard row) and `cli` (`lexbench run google|bats|pairs|sat`). This module
registers the four sets (`BENCHMARKS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lexbench.contract import CHAT, BenchmarkSpec, ComparisonTest, LabelSetting, SuiteEntry

RANK_QUESTION = ("a", "b", "c", "d")


def _scan_paper_test(a: Any, b: Any, *, resamples: int, seed: int, two_sided: str) -> Any:
    from lexbench.stats import permutation_test

    return permutation_test(a, b, resamples=resamples, seed=seed, two_sided=two_sided)


#: The SCAN paper's significance test (Tables 2-4: "two-sided permutation test; p < 0.05;
#: #resamples=10e5"), unpaired on per-item reciprocal ranks, with scipy's two-sided p as
#: the authors computed it. `compare` runs it on SCAN and on the ranking sets it used.
SCAN_PAPER_TEST = ComparisonTest(
    name="SCAN paper",
    label="unpaired permutation (SCAN paper)",
    run=_scan_paper_test,
    metric="score",
    resamples=1_000_000,
)


def ranks_words(options: Any, model: Any) -> dict[str, str]:
    """What a ranking set cannot honour: it asks for the next word's ranking (or word
    vectors' nearest words), and chat prompts wrap generated text only."""
    return {CHAT: "it ranks next words (or asks word vectors) and generates no text to wrap"}


def _scores_choices(options: Any, model: Any) -> dict[str, str]:
    return {CHAT: "it scores each choice (log-likelihood or word vectors) and generates no text"}


def _classic(name: str) -> Callable[..., Any]:
    def build(model: Any, **options: Any) -> Any:
        from lexbench.benchmarks.analogies.sets import build_classic

        return build_classic(name, model, **options)

    return build


def _build_sat(model: Any, **options: Any) -> Any:
    from lexbench.benchmarks.analogies.sets import build_sat

    return build_sat(model, **options)


def _set_commands(name: str) -> Callable[[Any], None]:
    def commands(cli: Any) -> None:
        from lexbench.benchmarks.analogies.cli import register_sat, register_set

        if name == "sat":
            register_sat(cli)
        else:
            register_set(cli, name)

    return commands


def _reporters(name: str) -> Callable[[], list[Any]]:
    def reporters() -> list[Any]:
        from lexbench.benchmarks.analogies.report import TITLES, AnalogyReporter

        return [AnalogyReporter(name, TITLES[name])]

    return reporters


def _headline(run: Any) -> Any:
    from lexbench.benchmarks.analogies.report import ranking_headline

    return ranking_headline(run)


def _variants() -> Any:
    from lexbench.benchmarks.analogies.variants import VARIANTS

    return VARIANTS


def _google_file(options: Any) -> Any:
    from lexbench.benchmarks.analogies.probe import google_file

    return google_file(options)


def _ranking_set(
    name: str,
    description: str,
    suite: SuiteEntry | None,
    vector_method: str,
    public_file: Any = None,
) -> BenchmarkSpec:
    return BenchmarkSpec(
        name=name,
        description=description,
        build=_classic(name),
        needs_any=("rank", "analogy"),
        limit_option="limit_per_relation",
        suite=suite,
        commands=_set_commands(name),
        reporters=_reporters(name),
        headline=_headline,
        question_fields={name: RANK_QUESTION},
        comparison_tests=(SCAN_PAPER_TEST,),
        prompt_variants=_variants,
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
    _ranking_set("google", "the Google analogy set", SuiteEntry(order=30), "3cosadd", _google_file),
    _ranking_set("bats", "BATS 3.0", SuiteEntry(order=40), "scan-paper"),
    _ranking_set("pairs", "a word-pair analogy file", None, "3cosadd"),
    BenchmarkSpec(
        name="sat",
        description="SAT-style multiple-choice analogies",
        build=_build_sat,
        needs_any=("loglikelihood", "analogy"),
        commands=_set_commands("sat"),
        reporters=_reporters("sat"),
        question_fields={"sat": ("a", "b", "choices", "answer")},
        prompt_variants=_variants,
        cannot_honour=_scores_choices,
        label_settings=(
            LabelSetting("benchmark.method", "method", "pairdiff"),  # word vectors only
            LabelSetting("benchmark.dataset.limit", "limit"),
        ),
    ),
]
