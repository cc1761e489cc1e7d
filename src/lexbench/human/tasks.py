"""What a human study needs from a benchmark: its `StudyTask`, one per benchmark folder.

A task says how an item is stored in the study (its JSON and id), which steps an annotator
takes (LAMBDA, SCAN, SetLexSem: one `answer`; E-KAR: `hard`, then `easy`), what the page
shows for a step (`display`: plain data, rendered by `lexbench.human.page`), what the scorer
reads from a typed answer (`output`), and which `Benchmark` scores it (`benchmark`): the very
benchmark object a model run uses, so people and models share scorer, tables and run folders.
It also says where the items come from (`add_arguments`, `options`, `load_items`) and how a
sample is drawn (`paper_sample`, `draw`, `check_sample`).

`display` is the only thing that reaches the browser: it carries what the annotator must see
and nothing else (never a relation, an id, a gold answer, or the E-KAR explanation in HARD).

A benchmark offers a study by returning its task from `BenchmarkSpec.human_task`.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.human.store import StudyError

MAX_ANSWER_CHARS = 400


def clean_answer(typed: str) -> str:
    """The typed answer without surrounding space; refused when it is absurdly long."""
    text = (typed or "").strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise StudyError(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    return text


def dataset_config(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The run's dataset block: where the items came from and how the study sampled them."""
    return {
        **dict(spec.get("dataset", {})),
        "human_study": {
            "study_id": spec.get("study_id"),
            "sample": spec.get("sample"),
            "sample_seed": spec.get("sample_seed"),
        },
    }


def sample_random(benchmark: str, items: Sequence[Any], count: int, seed: int = 0) -> list[Any]:
    """`count` random items (all of them, shuffled, when there are fewer): sorted by id,
    drawn with a `random.Random` seeded by the benchmark's name and `seed`, then shuffled."""
    pool = sorted(items, key=lambda i: i.id)
    rng = random.Random(f"{benchmark}-human:{seed}")
    chosen = rng.sample(pool, min(count, len(pool)))
    rng.shuffle(chosen)
    return chosen


@dataclass(frozen=True)
class StudyTask:
    """A benchmark's study, with the defaults most benchmarks want; subclasses fill in the
    item format, the page and the scorer (see `lexbench.benchmarks.lambda_.human`)."""

    name: str = ""
    #: The heading of the study's start page.
    page_title: str = ""
    stages: tuple[str, ...] = ("answer",)
    #: Offer the WordNet definitions panel by default.
    definitions: bool = False
    #: Items the paper's own human study asked (None: the paper reports none).
    paper_sample: int | None = None
    #: What `--sample N` counts, for the help text.
    sample_unit: str = "items"

    def item_id(self, item: Any) -> str:
        return str(item.id)

    def to_json(self, item: Any) -> dict[str, Any]:
        return dict(item.to_dict())

    def from_json(self, row: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def benchmark(
        self,
        items: Sequence[Any],
        spec: Mapping[str, Any],
        stage: str,
        *,
        index: Any = None,
        model: Any = None,
    ) -> Any:
        raise NotImplementedError

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        raise NotImplementedError

    def output(self, stage: str, typed: str) -> str:
        return clean_answer(typed)

    # ---------------------------------------------------------------- where items come from

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The options of `lexbench human serve NAME` that say which items to draw from."""

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        """Those options' values, as `load_items` takes them."""
        return {}

    def load_items(self, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Every item a study may draw from, and where they came from (for the run config)."""
        raise NotImplementedError

    def sample_count(self, sample: str | int) -> int:
        if sample != "paper":
            return int(sample)
        if self.paper_sample is None:
            raise ValueError(
                f"the {self.name} paper reports no human study, so there is no "
                f"paper sample; give --sample N (N random items)"
            )
        return self.paper_sample

    def draw(self, items: Sequence[Any], count: int, seed: int = 0) -> list[Any]:
        return sample_random(self.name, items, count, seed)

    def check_sample(self, chosen: Sequence[Any]) -> None:
        """Refuse a sample the study cannot show (E-KAR: a problem without explanation)."""

    def scoring_index(self, wordnet: str | None) -> Any:
        """A resource the scorer needs (LAMBDA's error taxonomy: the WordNet index)."""
        return None


def task_for(benchmark: str) -> StudyTask:
    """The study task of the registered benchmark `benchmark`."""
    from lexbench import plugins

    with_tasks = [spec for spec in plugins.benchmarks() if spec.human_task is not None]
    for spec in with_tasks:
        if spec.name == benchmark and spec.human_task is not None:
            task: StudyTask = spec.human_task()
            return task
    raise ValueError(
        f"no human study for benchmark {benchmark!r}; choose from "
        f"{', '.join(spec.name for spec in with_tasks)}"
    )
