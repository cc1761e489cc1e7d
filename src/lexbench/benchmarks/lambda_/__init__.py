"""LAMBDA (Assessing Few-shot Lexical Analogical Reasoning in Language Models): two-shot
lexical analogies generated from WordNet 3.0 (synonym, antonym, derivation), answered with
one word and right when it is in R(E), the whole set of words WordNet relates to the query.

The package: `items` (what defines a dataset, its generation and files), `prompts` (the
prompt and each protocol's decoding), `benchmark` (scoring and the `Benchmark`),
`taxonomy` and `drift` (why a wrong answer is wrong), `analysis` (the paper's tables),
`report` (its report section), `cli` (`lexbench generate|run|export lambda` and the CSV
sheets), `human` (its human study), `sheets`, `pos`. This module registers it (`SPEC`).
"""

from __future__ import annotations

from typing import Any

from lexbench.benchmarks.base import BenchmarkSpec, SuiteEntry


def _build(model: Any, **options: Any) -> Any:
    from lexbench.benchmarks.lambda_.benchmark import build_lambda

    return build_lambda(model, **options)


def _commands(cli: Any) -> None:
    from lexbench.benchmarks.lambda_.cli import register

    register(cli)


def _reporters() -> list[Any]:
    from lexbench.benchmarks.lambda_.report import LambdaReporter

    return [LambdaReporter()]


def _human_task() -> Any:
    from lexbench.benchmarks.lambda_.human import LambdaTask

    return LambdaTask()


SPEC = BenchmarkSpec(
    name="lambda",
    description="LAMBDA: two-shot WordNet lexical analogies",
    build=_build,
    needs_any=("generate",),
    data_option="wordnet",  # the files it reads: a WordNet 3.0 database
    suite=SuiteEntry(order=10),
    commands=_commands,
    reporters=_reporters,
    human_task=_human_task,
    question_fields={"lambda": ("relation", "support", "query")},
    build_progress=True,
)
