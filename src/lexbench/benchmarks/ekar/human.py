"""E-KAR's human study, as its paper's students did it: 100 random problems of one language,
each answered HARD, then again in EASY mode with the query's explanation; the HARD answer is
locked once saved. The paper mentions no dictionary."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.store import StudyError
from lexbench.human.tasks import StudyTask, clean_answer, dataset_config


@dataclass(frozen=True)
class EkarTask(StudyTask):
    name: str = "ekar"
    page_title: str = "E-KAR: choose the analogous pair"
    stages: tuple[str, ...] = ("hard", "easy")
    paper_sample: int | None = 100

    def to_json(self, item: Any) -> dict[str, Any]:
        return {"language": item.language, "row": item.to_row()}

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.ekar.data import parse_row

        return parse_row(row["row"], row["language"], where="study item")

    def benchmark(
        self,
        items: Sequence[Any],
        spec: Mapping[str, Any],
        stage: str,
        *,
        index: Any = None,
        model: Any = None,
    ) -> Any:
        from lexbench.benchmarks.ekar.benchmark import EkarBenchmark

        options = spec.get("options", {})
        return EkarBenchmark(
            dataset=list(items),
            language=options.get("language", "en"),
            split=options.get("split", "validation"),
            mode=stage,
            method="generate",
            dataset_info=dataset_config(spec),
        )

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        from lexbench.benchmarks.ekar.prompts import INSTRUCTIONS, tuple_text

        shown: dict[str, Any] = {
            "kind": "choice",
            "language": item.language,
            "instruction": INSTRUCTIONS[item.language],  # the models' instruction, verbatim
            "query": tuple_text(item.query, item.language),
            "choices": [
                [label, tuple_text(terms, item.language)]
                for label, terms in zip(item.labels, item.choices)
            ],
            "mode": stage,
        }
        if stage == "easy":
            shown["explanation"] = item.query_explanation or ""
        return shown

    def output(self, stage: str, typed: str) -> str:
        letter = clean_answer(typed).upper()
        if letter not in ("A", "B", "C", "D"):
            raise StudyError("choose one of A, B, C or D")
        return letter

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("E-KAR data")
        group.add_argument(
            "--data",
            type=Path,
            default=None,
            help="a folder with train/validation/test.json (default: the Hub)",
        )
        group.add_argument("--language", choices=["en", "zh"], default="en")
        group.add_argument(
            "--split",
            choices=["train", "validation", "test"],
            default="validation",
            help="default validation",
        )
        group.add_argument("--data-revision", default="v1.1", help="Hub revision (default v1.1)")

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {
            "data": args.data,
            "language": args.language,
            "split": args.split,
            "revision": args.data_revision,
        }

    def load_items(self, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        from lexbench.benchmarks.ekar.splits import load_split

        loaded = load_split(
            options.get("language", "en"),
            options.get("split", "validation"),
            data=options.get("data"),
            revision=options.get("revision", "v1.1"),
        )
        return loaded.items, {
            "source": loaded.source,
            "file": loaded.path.name,
            "sha256": loaded.sha256,
        }

    def check_sample(self, chosen: Sequence[Any]) -> None:
        missing = [i.id for i in chosen if i.query_explanation is None]
        if missing:
            raise ValueError(
                f"E-KAR's human study shows each problem again in EASY mode with "
                f"the query's explanation; {len(missing)} sampled problem(s) have "
                f"none (e.g. {missing[:3]}): use a labelled split with explanations "
                f"(train or validation)"
            )
