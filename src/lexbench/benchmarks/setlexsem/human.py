"""SetLexSem as a human study: the prompt shown as a model gets it; the annotator types the
set. The paper reports no human study, so a study takes `--sample N` random prompts."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.tasks import StudyTask, clean_answer, dataset_config


@dataclass(frozen=True)
class SetLexSemTask(StudyTask):
    name: str = "setlexsem"
    page_title: str = "SetLexSem: set operations"

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.setlexsem.items import SetLexSemItem

        return SetLexSemItem.from_dict(row)

    def benchmark(
        self,
        items: Sequence[Any],
        spec: Mapping[str, Any],
        stage: str,
        *,
        index: Any = None,
        model: Any = None,
    ) -> Any:
        from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark

        return SetLexSemBenchmark(
            dataset=list(items),
            dataset_config=dataset_config(spec),
            model_name=getattr(model, "name", "human"),
        )

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        return {
            "kind": "prompt",
            "text": item.prompt,
            "hint": "Type the set, e.g. {a, b} or {} for the empty set; lexbench puts it "
            "inside the <answer></answer> tags the prompt asks for.",
        }

    def output(self, stage: str, typed: str) -> str:
        from lexbench.benchmarks.setlexsem.parse import OPEN_TAG

        text = clean_answer(typed)
        # The prompt asks for the set inside answer tags; a person types only the set.
        return text if OPEN_TAG.search(text) else f"<answer>{text}</answer>"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("SetLexSem items")
        group.add_argument(
            "--items",
            type=Path,
            default=None,
            help="a JSONL file from `lexbench generate setlexsem` (default: generate --grid now)",
        )
        group.add_argument("--grid", default="small", help="SetLexSem grid (default small)")

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"items": args.items, "grid": args.grid, "wordnet": args.wordnet}

    def load_items(self, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        from lexbench.benchmarks.setlexsem.benchmark import generate_items, read_items

        if options.get("items"):
            return read_items(options["items"]), {"file": str(options["items"])}
        from lexbench.benchmarks.setlexsem.grid_read import resolve_grid

        grid = resolve_grid(options.get("grid", "small"))
        return generate_items(grid, options.get("wordnet")), {"grid": grid.to_dict()}
