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
from typing import Any

from lexbench.benchmarks.analogies import SCAN_PAPER_TEST, ranks_words
from lexbench.contract import BenchmarkSpec, FinetuneTables, LabelSetting, SuiteEntry


def _build(model: Any, **options: Any) -> Any:
    from lexbench.benchmarks.scan.benchmark import build_scan

    return build_scan(model, **options)


def _commands(cli: Any) -> None:
    from lexbench.benchmarks.scan.cli import register

    register(cli)


def _reporters() -> list[Any]:
    from lexbench.benchmarks.analogies.report import TITLES, AnalogyReporter

    return [AnalogyReporter("scan", TITLES["scan"])]


def _headline(run: Any) -> Any:
    from lexbench.benchmarks.analogies.report import ranking_headline

    return ranking_headline(run)


def _human_task() -> Any:
    from lexbench.benchmarks.scan.human import ScanTask

    return ScanTask()


def _add_table_arguments(parser: Any) -> None:
    from lexbench.benchmarks.scan.cli import add_table_arguments

    add_table_arguments(parser)


def _table(folder: Any, experiment: str, args: Any) -> Any:
    from lexbench.benchmarks.scan.cli import finetune_table

    return finetune_table(folder, experiment, args)


def _variants() -> Any:
    from lexbench.benchmarks.analogies.variants import VARIANTS

    return VARIANTS


def _public_file(options: Any) -> Any:
    from lexbench.benchmarks.scan.probe import public_file

    return public_file(options)


def _published() -> Any:
    from lexbench.published import load_published

    return load_published(Path(__file__).with_name("published.toml"))


SPEC = BenchmarkSpec(
    name="scan",
    description="SCAN: science and metaphor analogies (MRR@10)",
    build=_build,
    needs_any=("rank", "analogy"),
    suite=SuiteEntry(order=20),
    commands=_commands,
    reporters=_reporters,
    headline=_headline,
    human_task=_human_task,
    finetune_tables=FinetuneTables(("scan-bats",), _add_table_arguments, _table),
    question_fields={"scan": ("a", "b", "c", "d")},
    comparison_tests=(SCAN_PAPER_TEST,),
    prompt_variants=_variants,
    spread_fields=("type",),
    public_file=_public_file,
    cannot_honour=ranks_words,
    label_settings=(
        LabelSetting("benchmark.shots", "shots", 0),
        LabelSetting("benchmark.method", "method", "scan-paper"),  # word vectors only
        LabelSetting("benchmark.dataset.limit", "limit"),
        LabelSetting("benchmark.dataset.types", "types", ("science", "metaphor")),
        LabelSetting("benchmark.dataset.source", "data", "packaged"),
    ),
    published=_published,
)
