"""What a human study needs from each benchmark, in one place per benchmark.

A `Task` says how an item is stored in the study (its JSON and id), which steps an annotator
takes (LAMBDA, SCAN, SetLexSem: one `answer`; E-KAR: `hard`, then `easy`), what the page
shows for a step (`display`: plain data, rendered by `lexbench.human.page`), what the scorer
reads from a typed answer (`output`), and which `Benchmark` scores it (`benchmark`): the very
benchmark object a model run uses, so people and models share scorer, tables and run folders.

`display` is the only thing that reaches the browser: it carries what the annotator must see
and nothing else (never a relation, an id, a gold answer, or the E-KAR explanation in HARD).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.human.store import StudyError

BENCHMARKS = ("lambda", "ekar", "scan", "setlexsem")
MAX_ANSWER_CHARS = 400


def _clean(typed: str) -> str:
    text = (typed or "").strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise StudyError(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    return text


@dataclass(frozen=True)
class LambdaTask:
    """LAMBDA as its paper's annotator did it: two support pairs and the query, one word."""

    name: str = "lambda"
    stages: tuple[str, ...] = ("answer",)
    definitions: bool = True          # the paper's annotator could look words up

    def item_id(self, item: Any) -> str:
        return item.id

    def to_json(self, item: Any) -> dict[str, Any]:
        return item.to_dict()

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.lambda_ import LambdaItem

        return LambdaItem.from_dict(row)

    def benchmark(self, items: Sequence[Any], spec: Mapping[str, Any], stage: str, *,
                  index: Any = None, model: Any = None) -> Any:
        from lexbench.benchmarks.lambda_ import LambdaBenchmark

        return LambdaBenchmark(dataset=list(items), index=index, protocol="paper",
                               prompt_style="paper", dataset_config=_dataset_config(spec))

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        return {"kind": "pairs", "pairs": [list(pair) for pair in item.support],
                "query": item.query}

    def output(self, stage: str, typed: str) -> str:
        return _clean(typed)


@dataclass(frozen=True)
class EkarTask:
    """E-KAR as its paper's students did it: HARD, then the same problem in EASY mode with
    the query's explanation; the HARD answer is locked once saved."""

    name: str = "ekar"
    stages: tuple[str, ...] = ("hard", "easy")
    definitions: bool = False         # the paper mentions no dictionary

    def item_id(self, item: Any) -> str:
        return item.id

    def to_json(self, item: Any) -> dict[str, Any]:
        return {"language": item.language, "row": item.to_row()}

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.ekar_data import parse_row

        return parse_row(row["row"], row["language"], where="study item")

    def benchmark(self, items: Sequence[Any], spec: Mapping[str, Any], stage: str, *,
                  index: Any = None, model: Any = None) -> Any:
        from lexbench.benchmarks.ekar import EkarBenchmark

        options = spec.get("options", {})
        return EkarBenchmark(dataset=list(items), language=options.get("language", "en"),
                             split=options.get("split", "validation"), mode=stage,
                             method="generate", dataset_info=_dataset_config(spec))

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        from lexbench.benchmarks.ekar import INSTRUCTIONS, tuple_text

        shown: dict[str, Any] = {
            "kind": "choice", "language": item.language,
            "instruction": INSTRUCTIONS[item.language],   # the models' instruction, verbatim
            "query": tuple_text(item.query, item.language),
            "choices": [[label, tuple_text(terms, item.language)]
                        for label, terms in zip(item.labels, item.choices)],
            "mode": stage,
        }
        if stage == "easy":
            shown["explanation"] = item.query_explanation or ""
        return shown

    def output(self, stage: str, typed: str) -> str:
        letter = _clean(typed).upper()
        if letter not in ("A", "B", "C", "D"):
            raise StudyError("choose one of A, B, C or D")
        return letter


@dataclass(frozen=True)
class ScanTask:
    """SCAN's sentence with the last word left for the annotator (no paper protocol)."""

    name: str = "scan"
    stages: tuple[str, ...] = ("answer",)
    definitions: bool = True

    def item_id(self, item: Any) -> str:
        return item.id

    def to_json(self, item: Any) -> dict[str, Any]:
        return item.to_dict()

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.analogies import Analogy

        return Analogy.from_dict(row)

    def benchmark(self, items: Sequence[Any], spec: Mapping[str, Any], stage: str, *,
                  index: Any = None, model: Any = None) -> Any:
        from lexbench.benchmarks.scan import ScanBenchmark

        # A person answers like a model ranking next words (one word, at rank 1), matched
        # against the accepted answers by the human backend (see lexbench.models.human).
        return ScanBenchmark(name="scan", dataset=list(items), request_kind="rank", shots=0,
                             oov_policy="wrong", dataset_config=_dataset_config(spec))

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        return {"kind": "sentence", "before": f"If {item.a} is like {item.b}, then {item.c} is like",
                "after": "."}

    def output(self, stage: str, typed: str) -> str:
        return _clean(typed)


@dataclass(frozen=True)
class SetLexSemTask:
    """A SetLexSem prompt shown as a model gets it; the annotator types the set."""

    name: str = "setlexsem"
    stages: tuple[str, ...] = ("answer",)
    definitions: bool = False

    def item_id(self, item: Any) -> str:
        return item.id

    def to_json(self, item: Any) -> dict[str, Any]:
        return item.to_dict()

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.setlexsem import SetLexSemItem

        return SetLexSemItem.from_dict(row)

    def benchmark(self, items: Sequence[Any], spec: Mapping[str, Any], stage: str, *,
                  index: Any = None, model: Any = None) -> Any:
        from lexbench.benchmarks.setlexsem import SetLexSemBenchmark

        return SetLexSemBenchmark(dataset=list(items), dataset_config=_dataset_config(spec),
                                  model_name=getattr(model, "name", "human"))

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        return {"kind": "prompt", "text": item.prompt,
                "hint": "Type the set, e.g. {a, b} or {} for the empty set; lexbench puts it "
                        "inside the <answer></answer> tags the prompt asks for."}

    def output(self, stage: str, typed: str) -> str:
        from lexbench.benchmarks.setlexsem_parse import OPEN_TAG

        text = _clean(typed)
        # The prompt asks for the set inside answer tags; a person types only the set.
        return text if OPEN_TAG.search(text) else f"<answer>{text}</answer>"


TASKS: dict[str, Any] = {"lambda": LambdaTask(), "ekar": EkarTask(), "scan": ScanTask(),
                         "setlexsem": SetLexSemTask()}


def task_for(benchmark: str) -> Any:
    try:
        return TASKS[benchmark]
    except KeyError:
        raise ValueError(f"no human study for benchmark {benchmark!r}; choose from "
                         f"{', '.join(BENCHMARKS)}") from None


def _dataset_config(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The run's dataset block: where the items came from and how the study sampled them."""
    return {**dict(spec.get("dataset", {})), "human_study": {
        "study_id": spec.get("study_id"), "sample": spec.get("sample"),
        "sample_seed": spec.get("sample_seed")}}
