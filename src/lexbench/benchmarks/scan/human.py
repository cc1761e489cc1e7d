"""SCAN as a human study: the analogy sentence with its last word left for the annotator.
The SCAN paper reports no human study, so a study takes `--sample N` random analogies."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.tasks import StudyTask, dataset_config


@dataclass(frozen=True)
class ScanTask(StudyTask):
    name: str = "scan"
    page_title: str = "SCAN: complete the analogy"
    definitions: bool = True

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.analogies.data import Analogy

        return Analogy.from_dict(row)

    def benchmark(
        self,
        items: Sequence[Any],
        spec: Mapping[str, Any],
        stage: str,
        *,
        index: Any = None,
        model: Any = None,
    ) -> Any:
        from lexbench.benchmarks.scan.benchmark import ScanBenchmark

        # A person answers like a model ranking next words (one word, at rank 1), matched
        # against the accepted answers by the human backend (see lexbench.human.backend).
        return ScanBenchmark(
            name="scan",
            dataset=list(items),
            request_kind="rank",
            shots=0,
            oov_policy="wrong",
            dataset_config=dataset_config(spec),
        )

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        return {
            "kind": "sentence",
            "before": f"If {item.a} is like {item.b}, then {item.c} is like",
            "after": ".",
        }

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("SCAN data")
        group.add_argument(
            "--data",
            type=Path,
            default=None,
            help="a SCAN_dataset.csv (default: the copy shipped with lexbench)",
        )

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"data": args.data}

    def load_items(self, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        from lexbench.benchmarks.scan.benchmark import load_scan, locate_scan
        from lexbench.hashing import sha256_file

        located = locate_scan(options.get("data"))
        return load_scan(located), {"source": str(located), "file_sha256": sha256_file(located)}
