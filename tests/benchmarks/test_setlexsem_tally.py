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
report.md was re-written once since (issue 43): a number that does not exist (an SD over
one configuration, a decile with no prompt) says `n/a` where it said `–`; results.json is
unchanged.

Regenerate (only when a change to the tables is intended, and say so in the commit):
    PYTHONPATH=src python tests/benchmarks/test_setlexsem_tally.py
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark, generate_items
from lexbench.benchmarks.setlexsem.errors import ErrorCounts, error_group, error_row, error_table
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
    """results.json's serializer (`files.write_json`) on one line, keys in the order built
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


def test_a_tally_fed_item_by_item_writes_the_same_results_and_report(run):
    bench, items, scores = run
    tally = bench.tally()
    for item, score in zip(items, scores):
        tally.add(item, score)
    results = tally.finish()
    assert results_text(results) == (GOLDEN / "results.json").read_text(encoding="utf-8")
    assert report_markdown(results) == (GOLDEN / "report.md").read_text(encoding="utf-8")
    assert results_text(tally.finish()) == results_text(results)  # finish changes nothing


def _plain_mean(scores: list[Score], key: str) -> float:
    """The list-based summary's mean: Python's sum over the scored prompts, in order."""
    return sum(float(s.details.get(key, 0.0)) for s in scores) / len(scores)


def test_configurations_interleaved_keep_item_order_in_every_mean(run):
    bench, items, scores = run
    pairs = list(zip(items, scores))
    random.Random(26).shuffle(pairs)
    results = bench.summarize([i for i, _ in pairs], [s for _, s in pairs])
    scored = [(i, s) for i, s in pairs if s.correct is not None]
    for key in ("precision", "recall", "jaccard"):
        assert results["overall"][key] == _plain_mean([s for _, s in scored], key)
    first_seen = list(dict.fromkeys(i.config_id for i, _ in pairs))
    assert [c["config_id"] for c in results["configurations"]] == first_seen
    for config in results["configurations"]:
        mine = [s for i, s in scored if i.config_id == config["config_id"]]
        assert config["n"] == len(mine)
        if mine:
            assert config["jaccard"] == _plain_mean(mine, "jaccard")
    first_right = next(
        i for i, s in pairs if s.correct and i.deceptive_condition in ("swapped", "not_swapped")
    )
    examples = [e for e in results["table19_examples"] if e["correct"]]
    assert any(e["set_a"] == list(first_right.set_a) for e in examples)


def test_the_overall_means_add_in_item_order_not_configuration_order(run):
    """Interleaved configurations whose values sum to different floats in item order and
    in configuration order (on Python 3.11; 3.12's compensated sum may agree)."""
    bench, items, _ = run
    first, second = (next(i for i in items if i.config_id == c) for c in _two_configs(items))
    values = [0.1, 0.2, 0.7, 0.6, 0.3, 0.9]  # first, second, first, ... in item order
    fed = [first, second] * 3
    scores = [
        Score(item.id, True, 1.0, None, "correct", {"correct": True, "precision": v})
        for item, v in zip(fed, values)
    ]
    if sys.version_info < (3, 12):
        assert sum(values) != sum(values[0::2] + values[1::2])
    results = bench.summarize(fed, scores)
    assert results["overall"]["precision"] == sum(values) / 6
    assert [c["precision"] for c in results["configurations"]] == [
        sum(values[0::2]) / 3,
        sum(values[1::2]) / 3,
    ]


def _two_configs(items: list[SetLexSemItem]) -> list[str]:
    return list(dict.fromkeys(i.config_id for i in items))[:2]


def test_one_config_id_with_two_sets_of_hyperparameters_is_refused(run):
    bench, items, scores = run
    tally = bench.tally()
    tally.add(items[0], scores[0])
    other = dataclasses.replace(items[1], m=99)
    with pytest.raises(ValueError, match="other hyperparameters than its first item"):
        tally.add(other, scores[1])


def test_summarize_refuses_unequal_lists(run):
    bench, items, scores = run
    with pytest.raises(ValueError, match="3 items but 2 scores"):
        bench.summarize(items[:3], scores[:2])


def test_error_groups_share_counts_and_list_their_max_values():
    """Configurations of one group count into one ErrorCounts; a configuration without a
    scored prompt gives no Max Value (here no row), and two bounds are listed, sorted."""
    counts = ErrorCounts()
    counts.add(2, {"correct": True, "parsed_answer": [1, 2], "answer_size": 2})
    counts.add(0, {"correct": False, "parsed_answer": None, "error_class": "format_failure"})
    main = {"token_type": "numbers", "token_length": 2, "number_range": None, "overlap": None}
    main |= {"m": 2, "k": 0, "method": "baseline", "phrasing": "formal"}
    main |= {"operation": "union", "deceptive_condition": None, "n": 2}
    group = error_group(main)
    assert group == ("main", "union", "numbers", None)
    assert error_group({**main, "phrasing": "narrative_baskets"}) is None
    (row,) = error_table({group: counts}, [main], "main", ["token_type", "operation"])
    assert list(row)[:3] == ["token_type", "operation", "max_value"]
    assert row["max_value"] == -1 and row["n_comparisons"] == 2
    assert row["top_correct"] == [["G2 vs. L2", 100.0]] and row["did_not_follow_instruction"] == 1
    assert error_table({group: ErrorCounts()}, [main], "main", ["operation"]) == []
    assert error_row(counts, {-1, 10000})["max_value"] == [-1, 10000]


if __name__ == "__main__":
    sys.exit(write_golden())
