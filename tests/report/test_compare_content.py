"""`compare` pairs items by content (issue 19, item 7): runs whose item ids agree but whose
questions differ (generated with another seed) share no items; runs of different datasets
are compared on the items they really share, with a loud warning."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from test_report_runs import lambda_items
from test_robust_output import scripted_lambda_run

from lexbench.cli import main


def reseeded(items, keep: int = 0):
    """The same ids, other questions (as another --seed gives), except the first `keep` of
    each relation."""
    return [
        item
        if int(item.id.rsplit("-", 1)[1]) < keep
        else replace(
            item, query=item.query + "x", support=(("omega", item.support[0][1]), item.support[1])
        )
        for item in items
    ]


def test_runs_with_the_same_ids_but_other_questions_are_refused(tmp_path, capsys):
    a = scripted_lambda_run(tmp_path / "a", "model-a", lambda_items(10))
    b = scripted_lambda_run(tmp_path / "b", "model-b", reseeded(lambda_items(10)))
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "share 30 item ids but not one question" in err and "--seed" in err


def test_partly_shared_items_are_paired_by_content_with_a_loud_warning(tmp_path, capsys):
    a = scripted_lambda_run(tmp_path / "a", "model-a", lambda_items(10))
    b = scripted_lambda_run(tmp_path / "b", "model-b", reseeded(lambda_items(10), keep=4))
    assert main(["compare", str(a), str(b), "--format", "json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    (pair,) = result["comparisons"]
    # lambda_items lists 10 per relation: ids *-0000..0003 keep their questions.
    assert pair["shared"] == 12 and pair["used"] == 12 and pair["id_only"] == 18
    assert "different datasets" in captured.err and "WARNING" in captured.err
    assert any("18 item ids" in w for w in result["warnings"])
    assert main(["compare", str(a), str(b)]) == 0
    assert captured.err and "WARNING" in capsys.readouterr().out


def test_a_run_of_a_subset_is_named_as_such_and_compared_on_the_shared_items(tmp_path, capsys):
    """Two runs that differ only in --limit: not "different datasets" but a subset."""
    items = lambda_items(10)
    fewer = [item for item in items if int(item.id.rsplit("-", 1)[1]) < 4]  # --limit 4
    a = scripted_lambda_run(tmp_path / "a", "model-a", items)
    b = scripted_lambda_run(tmp_path / "b", "model-b", fewer)
    for order in ((a, b), (b, a)):
        assert main(["compare", *map(str, order), "--format", "json"]) == 0
        captured = capsys.readouterr()
        result = json.loads(captured.out)
        (pair,) = result["comparisons"]
        assert pair["shared"] == pair["used"] == 12 and pair["id_only"] == 0
        (warning,) = result["warnings"]
        assert "one run holds a subset of the other's items" in warning
        assert "'model-b' has 12 items" in warning and "the 12 shared items" in warning
        assert "different datasets" not in captured.err


def test_runs_of_the_same_items_pair_as_before_without_warnings(tmp_path, capsys):
    a = scripted_lambda_run(tmp_path / "a", "model-a", lambda_items(10))
    b = scripted_lambda_run(tmp_path / "b", "model-b", lambda_items(10))
    assert main(["compare", str(a), str(b), "--format", "json"]) == 0
    captured = capsys.readouterr()
    (pair,) = json.loads(captured.out)["comparisons"]
    assert pair["shared"] == pair["used"] == 30 and pair["id_only"] == 0
    assert "WARNING" not in captured.err


# Sample rows as each benchmark's `sample()` writes them (the question fields, plus fields
# that may differ between conditions worth comparing and must not split an item).
SAMPLES = {
    "lambda": (
        {
            "id": "s-1",
            "relation": "synonym",
            "support": [["a", "b"], ["c", "d"]],
            "query": "big",
            "prompt": "p1",
            "output": "large",
        },
        {"prompt": "another prompt style", "output": "huge"},
        {"query": "small"},
    ),
    "scan": (
        {
            "id": "q1",
            "a": "sun",
            "b": "planet",
            "c": "nucleus",
            "d": "electron",
            "shots": [],
            "prompt": "zero-shot",
        },
        {"shots": ["x"], "prompt": "one-shot"},
        {"c": "atom"},
    ),
    "google": (
        {"id": "g1", "a": "athens", "b": "greece", "c": "paris", "d": "france"},
        {"ranked": [[1, "x", -1.0]]},
        {"d": "spain"},
    ),
    "bats": ({"id": "b1", "a": "a", "b": "b", "c": "c", "d": "d"}, {"answer": "z"}, {"b": "bb"}),
    "pairs": ({"id": "p1", "a": "a", "b": "b", "c": "c", "d": "d"}, {"answer": "z"}, {"a": "aa"}),
    "sat": (
        {
            "id": "q0001",
            "a": "ostrich",
            "b": "bird",
            "choices": [["lion", "cat"]],
            "answer": 0,
            "answer_given": 1,
        },
        {"answer_given": 0, "scores": [1.0]},
        {"choices": [["goose", "flock"]]},
    ),
    "setlexsem": (
        {
            "id": "c1-0",
            "operation": "union",
            "set_a": ["x"],
            "set_b": ["y"],
            "demonstrations": [],
            "output": "{x}",
        },
        {"output": "{y}"},
        {"set_a": ["z"]},
    ),
    "ekar": (
        {
            "id": "e1",
            "language": "en",
            "question": "a:b",
            "choices": ["c:d", "e:f"],
            "gold": 0,
            "method": "generate",
        },
        {"method": "loglikelihood"},
        {"question": "a:c"},
    ),
}


@pytest.mark.parametrize("benchmark", sorted(SAMPLES))
def test_item_keys_follow_the_question_not_the_condition(benchmark):
    from lexbench.report.runs import FALLBACK_QUESTION_FIELDS, item_key, question_fields

    row, same_question, other_question = SAMPLES[benchmark]
    assert question_fields(benchmark) != FALLBACK_QUESTION_FIELDS  # declared by its spec
    key = item_key(benchmark, row)
    assert key.startswith(f"{row['id']}#")
    assert item_key(benchmark, {**row, **same_question}) == key
    assert item_key(benchmark, {**row, **other_question}) != key
