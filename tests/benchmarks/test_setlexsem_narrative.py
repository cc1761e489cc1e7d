"""SetLexSem as stories (narrative phrasings) and the word-category samplers (parts of speech
from WordNet, sentiment from AFINN): opt-in, the paper's prompts untouched."""

from __future__ import annotations

import pytest

from lexbench.benchmarks.setlexsem.benchmark import generate_items, run_setlexsem
from lexbench.benchmarks.setlexsem.categories import category_pool, pos_words
from lexbench.benchmarks.setlexsem.grid_read import grid_from_mapping
from lexbench.benchmarks.setlexsem.narrative import scenarios, scenarios_from
from lexbench.benchmarks.setlexsem.prompts import NARRATIVE_PHRASINGS, PHRASINGS
from lexbench.lexicon.wordnet.files import locate_wordnet
from mock_model import ScriptedModel

STORIES = ["formal", "plain", *NARRATIVE_PHRASINGS]


def _grid(**study):
    base = {
        "name": "stories",
        "token_types": ["numbers"],
        "operations": ["union", "difference"],
        "operand_sizes": [2],
        "token_lengths": [2],
        "phrasings": STORIES,
    }
    return grid_from_mapping(
        {"seed": 292, "prompts_per_config": 4, "study": [{**base, **study}]}, "test"
    )


def test_the_packaged_scenarios_are_three_narrative_phrasings():
    assert NARRATIVE_PHRASINGS == (
        "narrative_baskets",
        "narrative_guest_lists",
        "narrative_shelves",
    )
    assert set(NARRATIVE_PHRASINGS) <= set(PHRASINGS)
    assert [s.label for s in scenarios()] == ["two baskets", "two guest lists", "two shelves"]


def test_a_narrative_prompt_is_pinned_and_keeps_the_answer_tags():
    items = list(generate_items(_grid(k_shots=[1])))
    item = next(i for i in items if i.id == "numbers/L2/m2/union/k1/baseline/narrative_baskets/00")
    assert item.prompt == (
        "There are two baskets on the table, basket A and basket B. Basket A holds (38, 36). "
        "Basket B holds (58, 42). You are given the following task:\n"
        "<task> Print everything that is in basket A or in basket B (or in both) as a Python "
        "set. </task>\nThese are some examples:\n<examples>\n"
        "- If set A is (16, 91) and set B is (10, 99), print (16, 91, 10, 99), because 16, "
        "91, 10, and 99 are in either A or B.\n</examples>\n\n"
        "Do not explain your reasoning. Do not write a code or script or use any tools. At "
        "last, provide only the final answer as a mathematical set, without any code or "
        "additional context. Do not include anything other than your final answer in your "
        "response within <answer></answer> XML tags. Stop after printing.\n\n"
    )


def test_every_phrasing_of_a_configuration_shows_the_same_sets():
    items = list(generate_items(_grid()))
    by_config: dict[tuple, set] = {}
    for item in items:
        key = (item.operation, item.prompt_index)
        by_config.setdefault(key, set()).add((item.set_a, item.set_b, item.answer))
    assert by_config and all(len(sets) == 1 for sets in by_config.values())
    assert len({i.phrasing for i in items}) == 5


def test_a_scenario_file_is_checked():
    good = {
        "label": "x",
        "setup": "A {a} B {b}",
        "task": {op: "t" for op in ("union", "intersection", "difference")},
    }
    with pytest.raises(ValueError, match="one line per operation"):
        scenarios_from({"boxes": good}, "f.toml")
    with pytest.raises(ValueError, match=r"setup must name \{a\} and \{b\} once each"):
        scenarios_from({"boxes": {**good, "setup": "A {a}"}}, "f.toml")
    with pytest.raises(ValueError, match="unknown keys \\['colour'\\]"):
        scenarios_from({"boxes": {**good, "colour": "red"}}, "f.toml")
    with pytest.raises(ValueError, match=r"phrasings.*narrative_boxes"):
        _grid(phrasings=["narrative_boxes"])


def _right_but_on_plain(grid):
    """Right (in the tags) on every phrasing but plain, the empty set there."""
    answers = {
        item.id: "<answer>{" + ", ".join(str(m) for m in item.answer) + "}</answer>"
        for item in generate_items(grid)
    }
    return lambda request: "<answer>{}</answer>" if "/plain/" in request.id else answers[request.id]


def test_a_narrative_run_gets_the_paired_phrasing_table(tmp_path):
    grid = _grid(operations=["union"])
    model = ScriptedModel(_right_but_on_plain(grid), name="story-reader")
    evaluation = run_setlexsem(
        model,
        grid=grid,
        out=tmp_path / "runs",
        use_cache=False,
        progress=False,
    )
    table = evaluation.results["lexbench_tables"]["phrasing_paired"]
    rows = {r["phrasing"]: r for r in table["rows"]}
    assert list(rows) == STORIES
    assert all(r["configurations"] == 1 and r["prompts"] == 4 for r in rows.values())
    assert rows["plain"]["pooled"] == 0.0
    assert all(rows[p]["pooled"] == 1.0 for p in ("formal", *NARRATIVE_PHRASINGS))
    report = evaluation.folder.report_path.read_text()
    assert "formal, plain and narrative phrasing on the same configurations" in report
    assert "| Narrative: two guest lists |" in report


def test_a_run_without_stories_has_no_paired_table(tmp_path):
    model = ScriptedModel(lambda request: "<answer>{}</answer>")
    evaluation = run_setlexsem(
        model,
        grid=_grid(phrasings=["formal", "plain"]),
        out=tmp_path / "runs",
        use_cache=False,
        progress=False,
    )
    assert "phrasing_paired" not in evaluation.results.get("lexbench_tables", {})


def test_part_of_speech_pools_hold_words_of_one_part_of_speech_only():
    pools = pos_words(locate_wordnet(allow_install=False))
    assert not set(pools["noun"]) & set(pools["verb"])
    assert "walk" not in pools["noun"] and "walk" not in pools["verb"]  # both: left out
    assert "abhor" in pools["verb"] and "aback" in pools["adv"]
    assert all(len(w) == 5 for w in category_pool("adjectives", 5))


def test_sentiment_pools_come_from_afinn():
    pytest.importorskip("afinn")
    positive, negative = category_pool("positive_words", None), category_pool("negative_words", 5)
    assert "adore" in positive and "nasty" in negative and "nasty" not in positive
    assert list(positive) == sorted(positive)


def test_category_items_are_pinned():
    pytest.importorskip("afinn")
    grid = grid_from_mapping(
        {
            "seed": 292,
            "prompts_per_config": 2,
            "study": [
                {
                    "name": "categories",
                    "token_types": ["nouns", "verbs", "positive_words", "negative_words"],
                    "operations": ["union"],
                    "operand_sizes": [2],
                    "token_lengths": [5],
                }
            ],
        },
        "test",
    )
    firsts = {i.token_type: (i.set_a, i.set_b) for i in generate_items(grid) if not i.prompt_index}
    assert firsts == {
        "nouns": (("crone", "madam"), ("cohoe", "skeat")),
        "verbs": (("enrol", "welch"), ("endow", "croon")),
        "positive_words": (("lolol", "hopes"), ("solid", "eager")),
        "negative_words": (("cried", "fakes"), ("nasty", "awful")),
    }
