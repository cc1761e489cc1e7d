"""SetLexSem's streaming tally: what it writes is pinned to the list-based summary it replaced.

The golden files under tests/fixtures/setlexsem_tally/ were written by the list-based
`SetLexSemBenchmark.summarize` (commit 86538d1, before the tally existed) on the fixture below:
real items of a small grid touching every study (main numbers and words, plain phrasing,
unconstrained length, overlap, decile pairs of three scopes, the three deceptive conditions, a
narrative phrasing) and Scores made by the real `SetLexSemBenchmark.score` on chosen outputs
(right, wrong, empty, unreadable, made-up members, untagged, `set()`, two answers, failed
requests, one configuration whose every request failed). The results go through the
serializer of results.json with keys in the order they were built, so key order, list order
and every float digit are pinned.

Regenerate (only when a change to the tables is intended, and say so in the commit):
    PYTHONPATH=src python tests/benchmarks/test_setlexsem_tally.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark, generate_items
from lexbench.benchmarks.setlexsem.grid_read import grid_from_mapping
from lexbench.benchmarks.setlexsem.items import SetLexSemItem
from lexbench.benchmarks.setlexsem.markdown import report_markdown
from lexbench.run.jsonio import dumps_strict
from lexbench.types import Response, Score

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "setlexsem_tally"
ALL_FAILED = "numbers/L2/m2/difference/k0/baseline_allow_empty/plain"

ONE_EACH = {"operand_sizes": [4], "k_shots": [0], "methods": ["baseline_allow_empty"]}
FIXTURE_GRID: dict[str, Any] = {
    "seed": 292,
    "prompts_per_config": 3,
    "study": [
        {
            "name": "main",
            "token_types": ["numbers", "words"],
            "operand_sizes": [2, 4],
            "token_lengths": [2],
            "k_shots": [0],
            "methods": ["baseline_allow_empty"],
        },
        {
            "name": "main_plain",
            "token_types": ["numbers", "words"],
            "operand_sizes": [2],
            "token_lengths": [2],
            "k_shots": [0],
            "methods": ["baseline_allow_empty"],
            "phrasings": ["plain"],
        },
        {
            "name": "unconstrained_length",
            "token_types": ["numbers"],
            "token_lengths": ["any"],
            "operations": ["union"],
            **ONE_EACH,
        },
        {
            "name": "overlap",
            "token_types": ["words"],
            "token_lengths": [3],
            "overlaps": [0.5],
            "operations": ["intersection"],
            **ONE_EACH,
        },
        {
            "name": "deciles",
            "token_types": ["deciles"],
            "deciles": [5, 8],
            "decile_scope": "global",
            "token_lengths": [3, 5],
            "operations": ["union"],
            **ONE_EACH,
        },
        {
            "name": "deciles_equal_count",
            "token_types": ["deciles"],
            "deciles": [6],
            "decile_scope": "global_equal_count",
            "token_lengths": [3, 5],
            "operations": ["intersection"],
            **ONE_EACH,
        },
        {
            "name": "deciles_within_length",
            "token_types": ["deciles"],
            "deciles": [3],
            "decile_scope": "length",
            "token_lengths": [3, 5],
            "operations": ["union"],
            **ONE_EACH,
        },
        {
            "name": "deceptive",
            "token_types": ["deceptive"],
            "deceptive_conditions": ["not_swapped", "swapped", "random_baseline"],
            "operations": ["union", "intersection"],
            **ONE_EACH,
        },
        {
            "name": "stories",
            "token_types": ["numbers"],
            "token_lengths": [2],
            "operations": ["union", "symmetric_difference"],
            "phrasings": ["formal", "plain", "narrative_baskets"],
            "operand_sizes": [2],
            "k_shots": [0],
            "methods": ["baseline_allow_empty"],
        },
    ],
}


def _braces(members: Any) -> str:
    return "{" + ", ".join(str(m) for m in members) + "}"


def _output(item: SetLexSemItem, kind: int) -> str | None:
    """The model's text for one of nine kinds of answer (None: the request failed)."""
    made_up = 99999 if item.token_type == "numbers" else "zzqx"
    return [
        f"<answer>{_braces(item.answer)}</answer>",  # right
        f"<answer>{_braces(item.set_a)}</answer>",  # wrong (right where A is the answer)
        "<answer>{}</answer>",  # the empty set
        "I cannot answer that.",  # unreadable
        f"<answer>{_braces((*item.answer, made_up))}</answer>",  # a made-up member
        None,  # the request failed
        f"The answer is {_braces(item.answer)}",  # untagged: lenient reading only
        "Nothing is common: set()",  # the authors read set() as the empty set
        f"<answer>{_braces(item.answer)}</answer> or <answer>{{}}</answer>",  # two answers
    ][kind]


def fixture_run(parser: str = "paper") -> tuple[SetLexSemBenchmark, list[Any], list[Score]]:
    items = generate_items(grid_from_mapping(FIXTURE_GRID, "tally-fixture"))
    bench = SetLexSemBenchmark(dataset=items, model_name="fixture-model", parser=parser)
    scores = []
    for index, item in enumerate(items):
        text = None if item.config_id == ALL_FAILED else _output(item, (index * 4) % 9)
        response = (
            Response(request_id=item.id, error="timeout")
            if text is None
            else Response(request_id=item.id, text=text)
        )
        scores.append(bench.score(item, [response]))
    return bench, items, scores


def results_text(results: Any) -> str:
    """results.json's serializer (`store.write_json`) on one line, keys in the order built
    (indenting changes no value; one line keeps the golden file small)."""
    return dumps_strict(results, mark_non_finite=True, ensure_ascii=False) + "\n"


def write_golden() -> None:
    bench, items, scores = fixture_run()
    results = bench.summarize(items, scores)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    (GOLDEN / "results.json").write_text(results_text(results), encoding="utf-8")
    (GOLDEN / "report.md").write_text(report_markdown(results), encoding="utf-8")


@pytest.fixture(scope="module")
def run():
    return fixture_run()


def test_the_fixture_touches_every_case(run):
    _bench, items, scores = run
    assert len({i.config_id for i in items}) == 42
    assert {s for i in items for s in i.studies} >= {"main", "deciles", "deceptive", "stories"}
    classes = {s.error_class for s in scores}
    assert {"request_failed", "format_failure", "hallucinated"} <= classes
    assert any(s.correct for s in scores) and any(s.correct is False for s in scores)
    assert any(s.correct and not i.answer for i, s in zip(items, scores))


def test_summarize_is_byte_identical_to_the_list_based_summary(run):
    bench, items, scores = run
    golden = (GOLDEN / "results.json").read_text(encoding="utf-8")
    assert results_text(bench.summarize(items, scores)) == golden


def test_the_report_is_the_list_based_report(run):
    bench, items, scores = run
    golden = (GOLDEN / "report.md").read_text(encoding="utf-8")
    assert bench.report(bench.summarize(items, scores)) == golden


if __name__ == "__main__":
    sys.exit(write_golden())
