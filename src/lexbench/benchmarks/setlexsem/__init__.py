"""SetLexSem (set operations to evaluate lexical and semantic robustness): a model is asked
for A ∪ B, A ∩ B, A ∖ B or A △ B where the members of A and B are controlled (numbers or
words, their length, their corpus frequency, their meaning); the figure of merit is the
spread of accuracy across these incidental variations.

The package: `sets` (operations and samplers), `hyponym_pools` and `hyponym_files` (the
WordNet hyponym pools deceptive sets are drawn from), `grid`, `grid_read`, `grid_values`
and `builtin` (grids of configurations, the paper's among them), `prompts` (the paper's
prompts, word for word), `items`, `files` and `item_ids` (deterministic generation, item
files, `--limit` and `--select`), `source` (the items of a run, read or generated afresh
per pass, never held whole), `paper_parse` (the authors' answer reading, the default),
`parse` and `members` (lexbench's lenient reading), `verdict` (the metrics of an answer
read either way), `summary` (the streaming tally), `analysis`, `errors`, `markdown` and
`figures` (the paper's tables and figures), `benchmark` (the `Benchmark`), `report`, `cli`
(`lexbench generate|run|export setlexsem`) and `human`. This module registers it (`SPEC`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexbench.contract import BenchmarkSpec, LabelSetting, Reference, Regeneration, SuiteEntry

#: Its paper's printed numbers (SetLexSem Tables 3-14).
PUBLISHED = Path(__file__).with_name("published.toml")


def _grid(options: Any) -> Any:
    from lexbench.benchmarks.setlexsem.grid_read import resolve_grid

    if options.get("items") is not None:
        raise ValueError("--sets draws fresh items with other seeds; it cannot redraw --items FILE")
    return resolve_grid(options.get("grid") or "paper")


def _published_seed(options: Any) -> int:
    return int(_grid(options).seed)


def _with_seed(options: Any, seed: int) -> dict[str, Any]:
    from dataclasses import replace

    return {**options, "grid": replace(_grid(options), seed=seed).to_dict()}


SPEC = BenchmarkSpec(
    name="setlexsem",
    description="SetLexSem: set operations over controlled word and number sets",
    build="lexbench.benchmarks.setlexsem.benchmark:build_setlexsem",
    needs_any=("generate",),
    # Measured on the packaged SmolLM2-135M-Instruct: an instruct model answers SetLexSem's
    # prompts only in its chat format (README, Models).
    chat_default=True,
    data_option="wordnet",  # the files it reads: a WordNet 3.0 database (its word sets)
    # The paper grid's Table 3 core (zero-shot, formal, the base prompt that allows an empty
    # set, one of Table 3's two methods in the authors' analysis file; operand size 2:
    # numbers and words, every token length and operation): 32 configurations, so that
    # `--limit N` stays N prompts per configuration of a slice a CPU finishes in minutes.
    suite=SuiteEntry(
        order=50,
        options={
            "grid": "paper",
            "select": [
                "study=main",
                "k=0",
                "phrasing=formal",
                "method=baseline_allow_empty",
                "m=2",
            ],
        },
        # `run all --limit N` (a quick check): stop at the closing tag, and a budget that an
        # answer of two size-2 sets fits with room for a sentence before it.
        quick_options={"decoding": {"max_new_tokens": 64, "stop": ["</answer>"]}},
    ),
    commands="lexbench.benchmarks.setlexsem.cli:register",
    reporters="lexbench.benchmarks.setlexsem.report:REPORTERS",
    headline="lexbench.benchmarks.setlexsem.report:setlexsem_headline",
    human_task="lexbench.benchmarks.setlexsem.human:SetLexSemTask",
    question_fields={"setlexsem": ("operation", "set_a", "set_b", "demonstrations")},
    prompt_variants="lexbench.benchmarks.setlexsem.variants:VARIANTS",
    regenerate=Regeneration(_published_seed, _with_seed),
    spread_fields=("operation", "token_type", "token_type+operation"),
    label_settings=(
        LabelSetting("benchmark.dataset.grid.source", "grid", "paper"),
        LabelSetting("benchmark.dataset.file", "items"),
        LabelSetting("benchmark.dataset.limit_per_config", "limit"),
        LabelSetting("benchmark.dataset.select", "select"),
        # Token budgets are left out: each grid sets its own (the small grid's are smaller).
        LabelSetting("benchmark.dataset.grid.decoding.stop", "stop", ()),
        LabelSetting("benchmark.dataset.grid.decoding.temperature", "temperature", 0.0),
        LabelSetting("benchmark.parser", "parser", "paper"),
    ),
    published=Reference("lexbench.published:load_published", PUBLISHED),
)
