"""SCAN (Scientific and Creative Analogies in Pretrained Language Models): 449 science and
metaphor analogies in 65 concept mappings, scored by MRR@10 over the next-word ranking (or
by word vectors, the paper's GloVe baseline), with standard errors clustered by mapping.

The package: `benchmark` (the packaged CSV, its download and the `Benchmark`, built on the
ranking machinery of `lexbench.benchmarks.analogies`), `cli` (`lexbench run scan`, several
conditions and a baseline in one report, and `lexbench finetune scan-bats`), `human`,
`finetune`, `finetune_table` and `bats_split` (the paper's BATS training, Table 4), and the
data (`data/SCAN_dataset.csv`, MIT). This module registers it (`SPEC`).
"""

from __future__ import annotations

from pathlib import Path

from lexbench.benchmarks.analogies import SCAN_PAPER_TEST, ranks_words
from lexbench.contract import BenchmarkSpec, FinetuneTables, LabelSetting, Reference, SuiteEntry

#: Its paper's printed numbers (SCAN Tables 2-4).
PUBLISHED = Path(__file__).with_name("published.toml")


SPEC = BenchmarkSpec(
    name="scan",
    description="SCAN: science and metaphor analogies (MRR@10)",
    build="lexbench.benchmarks.scan.benchmark:build_scan",
    needs_any=("rank", "analogy"),
    suite=SuiteEntry(order=20),
    commands="lexbench.benchmarks.scan.cli:register",
    reporters="lexbench.benchmarks.analogies.report:REPORTERS",
    headline="lexbench.benchmarks.analogies.report:ranking_headline",
    human_task="lexbench.benchmarks.scan.human:ScanTask",
    finetune_tables=FinetuneTables(
        ("scan-bats",),
        add_arguments="lexbench.benchmarks.scan.cli:add_table_arguments",
        table="lexbench.benchmarks.scan.cli:finetune_table",
    ),
    question_fields={"scan": ("a", "b", "c", "d")},
    comparison_tests=(SCAN_PAPER_TEST,),
    prompt_variants="lexbench.benchmarks.analogies.variants:VARIANTS",
    spread_fields=("type",),
    public_file="lexbench.benchmarks.scan.probe:public_file",
    cannot_honour=ranks_words,
    label_settings=(
        LabelSetting("benchmark.shots", "shots", 0),
        LabelSetting("benchmark.method", "method", "scan-paper"),  # word vectors only
        LabelSetting("benchmark.dataset.limit", "limit"),
        LabelSetting("benchmark.dataset.types", "types", ("science", "metaphor")),
        LabelSetting("benchmark.dataset.source", "data", "packaged"),
    ),
    published=Reference("lexbench.published:load_published", PUBLISHED),
)
