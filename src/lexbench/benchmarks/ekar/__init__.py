"""E-KAR (A Benchmark for Rationalizing Natural Language Analogical Reasoning): multiple-
choice analogies with explanations, English and Chinese, in HARD and EASY mode; accuracy by
meta-relation, explanation generation (E_Q, E_A) and the fine-tuned baselines with Acc(Δ).

The package: `data` and `splits` (the item format, its files, the Hub), `prompts`,
`letters` (reading a letter out of a generated answer), `benchmark` and `tables` (question
answering), `embedding` and `contextual` (the paper's vector baselines), `explain`
(explanation generation; its prompts `explain_prompts`, its report.md `explain_report`),
`build` (choosing the method a model can answer), `report`, `cli` (`lexbench run ekar`,
`lexbench finetune ekar-qa|ekar-explain`), `human`, the fine-tuning experiments
(`finetune_qa` and its table `finetune_qa_table`, what the QA classifier reads
`qa_classifier`, `finetune_explain`, `finetune_accdelta`, their commands `finetune_cli`) and
the `ekar-classifier:` model they make (`classifier`). This module registers it (`SPEC`).
"""

from __future__ import annotations

from pathlib import Path

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.contract import BenchmarkSpec, FinetuneTables, LabelSetting, Reference, SuiteEntry

#: Its paper's printed numbers (E-KAR Tables 2-3).
PUBLISHED = Path(__file__).with_name("published.toml")


SPEC = BenchmarkSpec(
    name="ekar",
    description="E-KAR: explainable analogies (QA)",
    build="lexbench.benchmarks.ekar.build:build_ekar",
    needs_any=("loglikelihood", "generate", "analogy"),
    suite=SuiteEntry(order=60),
    run_names=("ekar", "ekar-explain"),
    commands="lexbench.benchmarks.ekar.cli:register",
    reporters="lexbench.benchmarks.ekar.report:REPORTERS",
    human_task="lexbench.benchmarks.ekar.human:EkarTask",
    finetune_tables=FinetuneTables(
        ("ekar-qa", "ekar-explain"),
        add_arguments="lexbench.benchmarks.ekar.finetune_cli:add_table_arguments",
        table="lexbench.benchmarks.ekar.finetune_cli:finetune_table",
    ),
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
    prompt_variants="lexbench.benchmarks.ekar.variants:VARIANTS",
    cannot_honour="lexbench.benchmarks.ekar.build:cannot_honour",
    published=Reference("lexbench.published:load_published", PUBLISHED),
)
