"""SetLexSem: set operations over controlled lexical and semantic variation.

A model is asked for A ∪ B, A ∩ B, A ∖ B or A △ B where the members of A and B are
controlled (numbers or words, their length, their corpus frequency, their meaning). The
figure of merit is the spread of accuracy across these incidental variations.

The pieces, one module each:

* `sets`: operations, ground truth, the samplers (numbers, words, deciles,
  overlap, deceptive WordNet hyponyms); `hyponym_pools`: the hyponym pools with the
  paper's vocabulary rules;
* `grid`: grids of configurations, validated strictly; `builtin`: the
  `paper`, `lexbench` and `small` grids;
* `prompts`: the paper's prompt text, word for word;
* `items`: items and their deterministic generation (planned and validated
  before any write); `files`: item files (atomic), `--limit` and `--select`;
  `source`: a run's items read or generated afresh for each pass (a paper grid
  is never held whole);
* `paper_parse`: the authors' answer reading (the default `--parser paper`);
  `parse`: lexbench's lenient reading (`--parser lexbench`); both linear, never
  raising, and every answer is read both ways; `verdict`: per-item metrics;
* `analysis`, `errors`, `markdown`, `figures`: the
  paper's tables and figures, each from the configurations the paper computes it on;
  `summary`: the streaming tally they are computed from (`summarize` feeds one);
* this module: the `Benchmark` and the Python API.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexbench.benchmarks.setlexsem.files import (
    check_selection,
    item_line,
    limit_per_config,
    parse_selection,
    read_items,
    write_items,
)
from lexbench.benchmarks.setlexsem.generate import ItemGenerator
from lexbench.benchmarks.setlexsem.grid import Grid
from lexbench.benchmarks.setlexsem.grid_read import resolve_grid
from lexbench.benchmarks.setlexsem.items import SetLexSemItem
from lexbench.benchmarks.setlexsem.members import safe_text
from lexbench.benchmarks.setlexsem.paper_parse import (
    PARSERS,
    paper_verdict,
    reading_summary,
)
from lexbench.benchmarks.setlexsem.parse import lenient_parse, parse_answer
from lexbench.benchmarks.setlexsem.source import FileItems, GridItems, ItemSource
from lexbench.benchmarks.setlexsem.verdict import SetScore, score_answer
from lexbench.types import Request, Response, Score

if TYPE_CHECKING:
    from lexbench.benchmarks.setlexsem.summary import SetLexSemTally
    from lexbench.contract import ModelView

NAME = "setlexsem"
ANSWER_STOP = "</answer>"

__all__ = [
    "ANSWER_STOP",
    "NAME",
    "ItemGenerator",
    "SetLexSemBenchmark",
    "SetLexSemItem",
    "generate_items",
    "generate_setlexsem",
    "limit_per_config",
    "read_items",
    "run_setlexsem",
    "score_item",
    "write_items",
]


def generate_items(
    grid: Grid | str | Path = "paper",
    wordnet: str | None = None,
    *,
    limit: int | None = None,
    selection: Mapping[str, Sequence[str]] | None = None,
) -> list[SetLexSemItem]:
    """The items of a grid, in grid order: the first `limit` prompts of every configuration
    matching `selection` (the whole grid is validated either way)."""
    chosen = list(ItemGenerator(resolve_grid(grid), wordnet).items(limit, selection))
    check_selection(selection or {}, chosen)
    return chosen


# ------------------------------------------------------------------------------ benchmark


def read_both_ways(item: SetLexSemItem, output: str) -> dict[str, tuple[Any, SetScore]]:
    """{"paper": (the authors' reading, verdict), "lexbench": (lexbench's, verdict)}."""
    closed_by_stop = ANSWER_STOP in tuple(item.decoding.get("stop", ()))
    parsed = parse_answer(
        output,
        numbers=item.token_type == "numbers",
        # A ∪ B as one tuple: the parser only looks through it (for a member named "none").
        known_members=item.set_a + item.set_b,
        closed_by_stop=closed_by_stop,
    )
    return {
        "paper": paper_verdict(output, item.answer, item.set_a, item.set_b, closed_by_stop),
        "lexbench": (parsed, score_answer(parsed, item.answer, item.set_a, item.set_b)),
    }


def score_item(item: SetLexSemItem, output: str, parser: str = "paper") -> tuple[Any, SetScore]:
    """(parsed answer, SetScore) for one raw output, read by `parser` (paper or lexbench)."""
    if parser not in PARSERS:
        raise ValueError(f"unknown SetLexSem parser {parser!r}; choose from {', '.join(PARSERS)}")
    return read_both_ways(item, output)[parser]


# `json.dumps(answer, ensure_ascii=False)` with its encoder made once, not per answer.
_shown_answer = json.JSONEncoder(ensure_ascii=False).encode


@dataclass
class SetLexSemBenchmark:
    """SetLexSem as a `Benchmark`: items, requests, score, summarize, report, figures."""

    # A list, or a source that reads or generates the items again on each pass (a paper
    # grid is never held whole: see setlexsem/source.py).
    dataset: Sequence[SetLexSemItem] | ItemSource
    dataset_config: dict[str, Any] = field(default_factory=dict)
    model_name: str = "model"
    name: str = NAME
    parser: str = "paper"  # which reading scores the run; both are recorded per answer
    _dataset_sha256: str | None = field(default=None, init=False, repr=False)

    def config(self) -> dict[str, Any]:
        if self._dataset_sha256 is None:  # hashing 10^5 rows takes seconds: once per run
            if isinstance(self.dataset, ItemSource):
                self._dataset_sha256 = self.dataset.survey().sha256
            else:
                digest = hashlib.sha256()
                for item in self.dataset:
                    digest.update(item_line(item).encode("utf-8"))
                self._dataset_sha256 = digest.hexdigest()
        return {
            "name": self.name,
            "dataset": self.dataset_config,
            "dataset_sha256": self._dataset_sha256,
            "items": len(self.dataset),
            "parser": self.parser,
        }

    def items(self) -> Sequence[SetLexSemItem] | ItemSource:
        return self.dataset

    def requests(self, item: SetLexSemItem) -> list[Request]:
        return [
            Request(
                id=item.id, kind="generate", prompt=item.prompt, decoding=item.request_decoding()
            )
        ]

    def score(self, item: SetLexSemItem, responses: Sequence[Response]) -> Score:
        response = responses[0]
        if response.error is not None:
            return Score(item.id, None, 0.0, None, "request_failed", {"error": response.error})
        readings = read_both_ways(item, response.text)
        parsed, verdict = readings[self.parser]
        lexbench_parsed, lenient = readings["lexbench"]
        if not lexbench_parsed.ok:
            # The strict reading is the one just made, unless a stop string closed its tag
            # (the lenient reading takes no stop string): then it is made again without.
            closed = ANSWER_STOP in tuple(item.decoding.get("stop", ()))
            forgiving = lenient_parse(
                response.text,
                numbers=item.token_type == "numbers",
                known_members=item.set_a + item.set_b,
                strict=None if closed else lexbench_parsed,
            )
            lenient = score_answer(forgiving, item.answer, item.set_a, item.set_b)
        shown = None if verdict.answer is None else _shown_answer(verdict.answer)
        return Score(
            item.id,
            verdict.correct,
            float(verdict.correct),
            shown,
            verdict.error_class,
            {
                **verdict.to_dict(),
                "parser": self.parser,
                "explicit_empty": parsed.explicit_empty
                if self.parser == "lexbench"
                else verdict.answer == [],
                "answer_text": parsed.raw,
                "lenient": lenient.to_dict(),
                "readings": {name: reading_summary(v) for name, (_, v) in readings.items()},
            },
        )

    def sample(
        self,
        item: SetLexSemItem,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        # `json_fields`: the item's fields with tuples where `to_dict` copies them into lists;
        # the row is only ever written as JSON, where the two are the same bytes.
        row = item.json_fields()
        row["decoding"] = dict(item.decoding)  # the row is the caller's to change
        text = responses[0].text
        # A lone surrogate (legal in JSON, not in UTF-8) would break the UTF-8 samples file.
        row.update(
            {
                "output": safe_text(text) if isinstance(text, str) else text,
                "generated_tokens": responses[0].generated_tokens,
                "error": responses[0].error,
                "correct": score.correct,
                "value": score.value,
                "error_class": score.error_class,
            }
        )
        # The details, but the score's own verdict and error class stay (the same keys, in
        # the same order, as a copy of the details without those two would give).
        row.update(score.details)
        row["correct"] = score.correct
        row["error_class"] = score.error_class
        return row

    def tally(self) -> SetLexSemTally:
        """A fresh streaming summary: fed each item and its score, in item order."""
        from lexbench.benchmarks.setlexsem.summary import SetLexSemTally

        return SetLexSemTally(model=self.model_name, parser=self.parser)

    def summarize(self, items: Sequence[SetLexSemItem], scores: Sequence[Score]) -> dict[str, Any]:
        if len(items) != len(scores):
            raise ValueError(f"{len(items)} items but {len(scores)} scores")
        tally = self.tally()
        for item, score in zip(items, scores):
            tally.add(item, score)
        return tally.finish()

    def report(self, results: Mapping[str, Any]) -> str:
        from lexbench.benchmarks.setlexsem.markdown import report_markdown

        return report_markdown(results)

    def figures(self, results: Mapping[str, Any], folder_path: Path) -> list[Path]:
        import importlib.util
        import sys

        from lexbench.benchmarks.setlexsem.figures import paper_figures

        if importlib.util.find_spec("matplotlib") is None:
            # The tables are the result; plots are optional. Say so rather than crash the run.
            print(
                "lexbench: figures skipped: matplotlib is not installed "
                "(pip install 'lexbench[plots]')",
                file=sys.stderr,
            )
            return []
        return paper_figures(results, Path(folder_path) / "figures")


# ------------------------------------------------------------------------------ Python API


def generate_setlexsem(
    grid: Grid | str | Path = "paper",
    *,
    output: str | Path | None = None,
    wordnet: str | None = None,
) -> list[SetLexSemItem] | dict[str, Any]:
    """Generate a grid's items. With `output`, stream them to FILE (JSONL) and write
    FILE.manifest.json, returning the manifest; without, return the items.

    >>> items = generate_setlexsem("small")             # doctest: +SKIP
    >>> items[0].prompt.splitlines()[0][:30]            # doctest: +SKIP
    'You are given two sets. Set A '
    """
    if output is not None:
        return write_items(output, grid, wordnet)
    return generate_items(grid, wordnet)


def build_setlexsem(model: ModelView, **options: Any) -> SetLexSemBenchmark:
    """The builder SetLexSem's spec registers (`build_benchmark` for the opened `model`):
    of the model it keeps only the name, which its tally records."""
    return build_benchmark(model.name, **options)


def build_benchmark(
    model_name: str,
    *,
    grid: Grid | Mapping[str, Any] | str | Path = "paper",
    items: str | Path | None = None,
    limit: int | None = None,
    select: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
    decoding: Mapping[str, Any] | None = None,
    wordnet: str | None = None,
    parser: str = "paper",
) -> SetLexSemBenchmark:
    """The benchmark for one run: the first `limit` prompts of every configuration of `grid`
    (or of a generated `items` file) that matches `select` (FIELD=V1,V2 specs, e.g.
    ["study=deceptive", "k=0"]), with `decoding` overriding the grid's; answers scored by
    `parser` ("paper": the authors' reading; "lexbench": lexbench's lenient one)."""
    if parser not in PARSERS:
        raise ValueError(f"unknown SetLexSem parser {parser!r}; choose from {', '.join(PARSERS)}")
    selection = dict(select) if isinstance(select, Mapping) else parse_selection(select or ())
    if items is not None:
        if decoding:
            raise ValueError(
                "decoding overrides apply to a grid; a generated items file "
                "already records its decoding (regenerate with a grid file)"
            )
        dataset: ItemSource = FileItems(path=Path(items), limit=limit, selection=selection)
        dataset_config: dict[str, Any] = {"file": str(items)}
    else:
        resolved = resolve_grid(grid)
        if decoding:
            resolved = resolved.with_decoding(**dict(decoding))
        dataset = GridItems(grid=resolved, wordnet=wordnet, limit=limit, selection=selection)
        dataset_config = {"grid": resolved.to_dict()}
    dataset_config["limit_per_config"] = limit
    if selection:
        dataset_config["select"] = {k: list(v) for k, v in sorted(selection.items())}
    return SetLexSemBenchmark(
        dataset=dataset, dataset_config=dataset_config, model_name=model_name, parser=parser
    )


def run_setlexsem(
    model: Any = "smollm2-135m",
    *,
    grid: Grid | str | Path = "paper",
    items: str | Path | None = None,
    limit: int | None = None,
    select: Sequence[str] | None = None,
    decoding: Mapping[str, Any] | None = None,
    model_options: Mapping[str, Any] | None = None,
    out: str | Path = "runs",
    cache: Any = None,
    use_cache: bool = True,
    wordnet: str | None = None,
    progress: bool = True,
    chat: bool | None = None,
    parser: str = "paper",
) -> Any:
    """Evaluate a model on SetLexSem and write a run folder (with figures/): `api.run` with
    the options of `build_benchmark`. `chat=None` takes SetLexSem's default for chat models.

    >>> run = run_setlexsem("smollm2-135m", grid="paper", limit=1, select=["k=0"])  # doctest: +SKIP
    """
    from lexbench import api

    # Recorded in config.json (for `lexbench rescore`): plain JSON values only.
    grid_option: Any = grid.to_dict() if isinstance(grid, Grid) else str(grid)
    return api.run(
        "setlexsem",
        model,
        model_options=model_options,
        out=out,
        cache=cache,
        use_cache=use_cache,
        progress=progress,
        chat=chat,
        grid=grid_option,
        items=None if items is None else str(items),
        limit=limit,
        select=list(select or ()),
        decoding=dict(decoding) if decoding else None,
        wordnet=wordnet,
        parser=parser,
    )
