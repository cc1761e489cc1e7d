"""E-KAR (A Benchmark for Rationalizing Natural Language Analogical Reasoning): multiple-
choice analogies with explanations, English and Chinese, in HARD and EASY mode; accuracy by
meta-relation, explanation generation (E_Q, E_A) and the fine-tuned baselines with Acc(Δ).

The package: `data` and `splits` (the item format, its files, the Hub), `prompts`,
`letters` (reading a letter out of a generated answer), `benchmark` and `tables` (question
answering), `embedding` and `contextual` (the paper's vector baselines), `explain`
(explanation generation), `build` (choosing the method a model can answer), `report`,
`cli` (`lexbench run ekar`, `lexbench finetune ekar-qa|ekar-explain`), `human`, the
fine-tuning experiments (`finetune_qa` and its table `finetune_qa_table`, what the QA
classifier reads `qa_classifier`, `finetune_explain`, `finetune_accdelta`, their commands
`finetune_cli`) and the `ekar-classifier:` model they make (`classifier`). This module
registers it (`SPEC`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.contract import BenchmarkSpec, FinetuneTables, LabelSetting, SuiteEntry


def _build(model: Any, **options: Any) -> Any:
    from lexbench.benchmarks.ekar.build import build_ekar

    return build_ekar(model, **options)


def _cannot_honour(options: Any, model: Any) -> Any:
    from lexbench.benchmarks.ekar.build import cannot_honour

    return cannot_honour(options, model)


def _commands(cli: Any) -> None:
    from lexbench.benchmarks.ekar.cli import register

    register(cli)


def _reporters() -> list[Any]:
    from lexbench.benchmarks.ekar.report import EkarExplanationReporter, EkarReporter

    return [EkarReporter(), EkarExplanationReporter()]


def _human_task() -> Any:
    from lexbench.benchmarks.ekar.human import EkarTask

    return EkarTask()


def _add_table_arguments(parser: Any) -> None:
    from lexbench.benchmarks.ekar.finetune_cli import add_table_arguments

    add_table_arguments(parser)


def _table(folder: Any, experiment: str, args: Any) -> Any:
    from lexbench.benchmarks.ekar.finetune_cli import finetune_table

    return finetune_table(folder, experiment, args)


def _variants() -> Any:
    from lexbench.benchmarks.ekar.variants import VARIANTS

    return VARIANTS


def _published() -> Any:
    from lexbench.published import load_published

    return load_published(Path(__file__).with_name("published.toml"))


SPEC = BenchmarkSpec(
    name="ekar",
    description="E-KAR: explainable analogies (QA)",
    build=_build,
    needs_any=("loglikelihood", "generate", "analogy"),
    suite=SuiteEntry(order=60),
    run_names=("ekar", "ekar-explain"),
    commands=_commands,
    reporters=_reporters,
    human_task=_human_task,
    finetune_tables=FinetuneTables(("ekar-qa", "ekar-explain"), _add_table_arguments, _table),
    label_settings=(
        LabelSetting("benchmark.method", "method", "loglikelihood"),
        LabelSetting("benchmark.normalisation", "normalisation", "per_char"),
        LabelSetting("benchmark.mode", "mode", "hard"),
        LabelSetting("benchmark.language", "language", "en"),
        LabelSetting("benchmark.split", "split", "validation"),
        LabelSetting("benchmark.prompt_format", "prompt", "paper"),  # explanations
        LabelSetting(
            "benchmark.decoding.max_new_tokens",
            "max-new-tokens",
            EXPLANATION_MAX_NEW_TOKENS,
            only_when=("benchmark.task", "explain"),
        ),
        LabelSetting("benchmark.dataset.limit", "limit"),
        LabelSetting("benchmark.dataset.revision", "revision", "v1.1"),
    ),
    question_fields={
        "ekar": ("language", "question", "choices", "gold"),
        "ekar-explain": ("language", "question", "choices"),
    },
    prompt_variants=_variants,
    cannot_honour=_cannot_honour,
    published=_published,
)
