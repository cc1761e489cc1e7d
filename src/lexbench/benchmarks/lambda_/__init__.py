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

from pathlib import Path
from typing import Any

from lexbench.contract import BenchmarkSpec, LabelSetting, Reference, Regeneration, SuiteEntry

#: Its paper's printed numbers (LAMBDA Table 1).
PUBLISHED = Path(__file__).with_name("published.toml")


def _published_seed(options: Any) -> int:
    return int(options.get("seed", 42))


def _with_seed(options: Any, seed: int) -> dict[str, Any]:
    if options.get("items") is not None:
        raise ValueError("--sets draws fresh items with other seeds; it cannot redraw --items FILE")
    return {**options, "seed": seed}


# What names a run beside its model when it differs from the paper's protocol.
LABEL_SETTINGS = (
    LabelSetting("benchmark.prompt_style", "prompt", "paper"),
    LabelSetting("benchmark.protocol", "protocol", "paper"),
    LabelSetting("chat", "chat", False),
    LabelSetting("benchmark.dataset.limit_per_relation", "limit"),
    LabelSetting("benchmark.sampling.temperature", "temperature", 0.0),
    LabelSetting("benchmark.sampling.samples", "samples", 1),
    LabelSetting("benchmark.dataset.file", "items"),
    LabelSetting("benchmark.dataset.profile", "profile", "strict"),
    LabelSetting("benchmark.dataset.seed", "seed", 42),
    LabelSetting("benchmark.dataset.per_relation", "per-relation", 1000),
    LabelSetting("benchmark.dataset.relations", "relations", ("synonym", "antonym", "derivation")),
    # Beyond the paper (issue 28): another wordnet, the token filter, graded credit.
    LabelSetting("benchmark.dataset.wordnet_lmf.lexicon", "wordnet"),
    LabelSetting("benchmark.dataset.token_filter.tokenizer", "tokenizer"),
    LabelSetting("benchmark.graded.kind", "graded"),
)

SPEC = BenchmarkSpec(
    name="lambda",
    description="LAMBDA: two-shot WordNet lexical analogies",
    build="lexbench.benchmarks.lambda_.benchmark:build_lambda",
    needs_any=("generate",),
    data_option="wordnet",  # the files it reads: a WordNet 3.0 database
    suite=SuiteEntry(order=10),
    commands="lexbench.benchmarks.lambda_.cli:register",
    reporters="lexbench.benchmarks.lambda_.report:REPORTERS",
    human_task="lexbench.benchmarks.lambda_.human:LambdaTask",
    question_fields={"lambda": ("relation", "support", "query")},
    label_settings=LABEL_SETTINGS,
    build_progress=True,
    prompt_variants="lexbench.benchmarks.lambda_.variants:VARIANTS",
    regenerate=Regeneration(_published_seed, _with_seed),
    spread_fields=("relation",),
    published=Reference("lexbench.published:load_published", PUBLISHED),
)
