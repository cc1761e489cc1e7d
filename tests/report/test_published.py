"""Published rows: the loader refuses a bad file in one line naming the file and the row;
a run is comparable with a row exactly when its config has the paper's settings, and each
difference is named in words; the unpaired comparison's numbers are the hand-computed ones."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lexbench import plugins
from lexbench.published import PublishedFileError, load_published
from lexbench.report.published import comparability, published_rows, unpaired_test
from lexbench.stats import newcombe_interval, two_proportion_test

SRC = Path(__file__).resolve().parents[2] / "src" / "lexbench" / "benchmarks"

#: A LAMBDA run under the paper's protocol, a slice of 10 items per relation, as
#: config.json records it (`lexbench run lambda --limit 10`).
PAPER_CONFIG = {
    "benchmark": {
        "name": "lambda",
        "prompt_style": "paper",
        "protocol": "paper",
        "decoding": {"temperature": 0.0, "max_new_tokens": 2},
        "dataset": {
            "limit_per_relation": 10,
            "per_relation": 1000,
            "profile": "strict",
            "relations": ["synonym", "antonym", "derivation"],
            "seed": 42,
        },
    },
    "chat": False,
}


def with_benchmark(**changes: object) -> dict:
    benchmark = {**PAPER_CONFIG["benchmark"], **changes}
    return {**PAPER_CONFIG, "benchmark": benchmark}


def lambda_row(model: str, column: str = "Overall"):
    return next(
        r for r in published_rows("lambda") if r.model.startswith(model) and r.column == column
    )


@pytest.fixture(autouse=True)
def fresh_registry():
    plugins.reset()
    yield
    plugins.reset()


def test_table_1_is_eight_checkpoints_and_the_human_evaluation():
    overall = [r for r in published_rows("lambda") if r.column == "Overall"]
    assert [r.label.split(" (")[0].split(" <sup>")[0] for r in overall] == [
        "Human Evaluation",
        "GPT-2 medium",
        "Mistral-7B-Instruct",
        "Llama-4 Scout-17B",
        "Llama-4 Maverick-17B",
        "GPT-4o",
        "GPT-4.1",
        "GPT-4.1 nano",
        "Gemini 2.5 Pro",
    ]
    human = overall[0]
    assert (human.value, human.estimate, human.n, human.items, human.count) == (
        "51.3%",
        0.513,
        300,
        3000,
        154,
    )
    assert (overall[1].value, overall[1].n, overall[1].count) == ("0.3%", 3000, 9)


def test_the_papers_protocol_matches_and_a_slice_says_how_much():
    for row in published_rows("lambda"):
        found = comparability(row, PAPER_CONFIG, 30 if row.column == "Overall" else 10)
        assert found.comparable and found.status == "matches", (row.model, found)
    found = comparability(lambda_row("GPT-2"), PAPER_CONFIG, 30)
    assert found.notes == ("n=30 of 3,000",)
    # A run of the whole set has no note; absent settings count as their defaults.
    whole = {"benchmark": {"name": "lambda", "dataset": {}}}
    assert comparability(lambda_row("GPT-2"), whole, 3000).notes == ()
    assert comparability(lambda_row("GPT-2"), whole, 3000).comparable


@pytest.mark.parametrize(
    ("changes", "difference"),
    [
        (
            {"prompt_style": "completion"},
            "the completion prompt (the guard first, ending at 'E :'); the paper used the "
            "two-shot prompt of Section 2.3 (the two support lines, then 'E : ?' and the "
            "answer-only guard)",
        ),
        (
            {"protocol": "word"},
            "decoding to the first whole word (up to 8 tokens); the paper used greedy "
            "decoding with max_new_tokens=2",
        ),
        (
            {"decoding": {"temperature": 0.7}},
            "sampling at temperature 0.7; the paper used greedy decoding (temperature 0)",
        ),
        (
            {"prompt_variant": "arrow"},
            "lexbench's 'arrow' wording; the paper used the paper's wording",
        ),
    ],
)
def test_each_difference_is_named_in_words(changes, difference):
    found = comparability(lambda_row("Llama-4 Maverick"), with_benchmark(**changes), 30)
    assert not found.comparable and found.status == "differs"
    assert found.differences == (difference,)


def test_item_set_differences_and_near_settings():
    row = lambda_row("GPT-4o")
    dataset = PAPER_CONFIG["benchmark"]["dataset"]
    fewer = with_benchmark(dataset={**dataset, "relations": ["synonym"]})
    assert comparability(row, fewer, 10).differences == (
        'the relations ["synonym"]; the paper used synonyms, antonyms and derivations',
    )
    other_wordnet = with_benchmark(dataset={**dataset, "wordnet_lmf": {"lexicon": "omw-fi"}})
    assert comparability(row, other_wordnet, 30).differences == (
        "another wordnet (a WN-LMF file); the paper used WordNet 3.0",
    )
    # Another seed is the same design, another draw: comparable, with a note.
    reseeded = with_benchmark(dataset={**dataset, "seed": 7})
    found = comparability(row, reseeded, 30)
    assert found.comparable and found.notes[0].startswith("items drawn with seed 7")
    # A whole run (no --limit) of another size is another item set.
    whole = with_benchmark(
        dataset={**{k: v for k, v in dataset.items() if k != "limit_per_relation"}}
    )
    assert comparability(row, whole, 2999).differences == (
        "2,999 items; the paper's set has 3,000",
    )
    # A run whose every request failed scored no item: it is no smaller set, it has no score.
    for config in (whole, PAPER_CONFIG):
        assert comparability(row, config, 0).differences == ("no item of the run was scored",)


def test_scan_rows_match_by_shots_method_and_fine_tuning():
    rows = {(r.table, r.label, r.column): r for r in published_rows("scan")}
    lm = {"benchmark": {"name": "scan", "shots": 0, "method": None, "dataset": {"limit": 1}}}
    glove = {**lm, "benchmark": {**lm["benchmark"], "method": "scan-paper"}}
    cosadd = {**lm, "benchmark": {**lm["benchmark"], "method": "3cosadd"}}
    gpt2, glove_row = rows["Table 2", "GPT-2", "SCAN"], rows["Table 2", "GloVe", "SCAN"]
    assert comparability(gpt2, lm, 65).comparable  # and its note is the slice
    assert comparability(glove_row, lm, 65).comparable  # the method applies to vectors only
    assert comparability(glove_row, glove, 65).comparable
    assert comparability(glove_row, cosadd, 65).differences == (
        "the word-vector method 3cosadd; the paper used the paper's GloVe method (the "
        "nearest neighbour of |b−a|+c)",
    )
    one_shot = rows["Table 3", "GPT-2", "SCAN"]
    assert comparability(one_shot, lm, 65).differences == (
        "zero-shot (the template sentence alone); the paper used one-shot (a complete "
        "example sentence first, Table 3)",
    )
    tuned = rows["Table 4", "GPT-2", "SCAN"]
    assert comparability(tuned, lm, 65).differences == (
        "a model not fine-tuned; the paper used a model fine-tuned on BATS's training split "
        "(Table 4; lexbench finetune scan-bats)",
    )
    finetuned = {**lm, "model": {"lineage": {"experiment": "scan-bats"}}}
    assert comparability(tuned, finetuned, 65).comparable
    assert not comparability(gpt2, finetuned, 65).comparable
    # The BATS column compares with `bats` runs, not with SCAN's.
    assert {r.column for r in published_rows("bats")} == {"BATS"}


def test_ekar_rows_need_the_test_split_and_name_mode_and_language():
    ekar = [r for r in published_rows("ekar") if r.label == "RoBERTal"]
    en_hard = next(r for r in ekar if r.column == "En (HARD)")
    zh_hard = next(r for r in ekar if r.column == "Zh (HARD)")
    default = {
        "benchmark": {"name": "ekar", "mode": "hard", "language": "en", "split": "validation"}
    }
    assert comparability(en_hard, default).differences == (
        "the validation split; the paper used the test split",
    )
    test_split = {"benchmark": {**default["benchmark"], "split": "test"}}
    found = comparability(en_hard, test_split, 262)
    assert found.comparable and found.notes[0].startswith("E-KAR v1.1")
    assert comparability(zh_hard, test_split).differences == (
        "the English E-KAR; the paper used the Chinese E-KAR",
    )
    google = next(r for r in published_rows("google") if r.label == "RoBERTal")
    found = comparability(google, {"benchmark": {"name": "google"}})
    assert found.status == "not run by lexbench" and "multiple choice" in found.differences[0]


def test_two_proportion_test_and_newcombe_interval_by_hand():
    """10 of 100 against 20 of 100, computed here with nothing but `math`."""
    p1, p2, pooled = 0.1, 0.2, 30 / 200
    z = (p1 - p2) / math.sqrt(pooled * (1 - pooled) * (1 / 100 + 1 / 100))
    p = 2 * (1 - 0.5 * (1 + math.erf(abs(z) / math.sqrt(2))))
    test = two_proportion_test(10, 100, 20, 100)
    assert test.statistic == pytest.approx(z) == pytest.approx(-1.98030, abs=1e-5)
    assert test.p_value == pytest.approx(p) == pytest.approx(0.04767, abs=1e-5)

    def wilson(k: int, n: int) -> tuple[float, float]:
        z95, q = 1.959963984540054, k / n
        centre = (q + z95**2 / (2 * n)) / (1 + z95**2 / n)
        half = z95 * math.sqrt(q * (1 - q) / n + z95**2 / (4 * n * n)) / (1 + z95**2 / n)
        return centre - half, centre + half

    (l1, u1), (l2, u2) = wilson(10, 100), wilson(20, 100)
    low = (p1 - p2) - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = (p1 - p2) + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    interval = newcombe_interval(10, 100, 20, 100)
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))
    assert (round(low, 4), round(high, 4)) == (-0.1995, -0.0001)
    # Both sides 0 of n: no spread, no evidence, p = 1.
    assert two_proportion_test(0, 30, 0, 3000).p_value == 1.0
    with pytest.raises(ValueError, match="at least one item"):
        two_proportion_test(0, 0, 1, 10)


def test_a_run_against_the_human_evaluation_uses_its_n_of_300():
    human = lambda_row("Human")
    test = unpaired_test(human, 0.1, 30)
    assert test is not None
    k, n, x, m = 3, 30, 154, 300
    pooled = (k + x) / (n + m)
    z = (k / n - x / m) / math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m))
    assert test.z == pytest.approx(z) and test.published.n == 300
    assert test.published.estimate == pytest.approx(154 / 300)
    assert test.difference.estimate == pytest.approx(0.1 - 154 / 300)
    # No test without an N on both sides, nor for a metric that is not an accuracy.
    assert unpaired_test(human, 0.1, None) is None
    scan = published_rows("scan")[0]
    assert unpaired_test(scan, 0.1, 65) is None


BAD_FILES = {
    "cells": ('cells = ["0.3B", "0.3%"]', "row 1 (GPT-2 medium): 2 cells for 3 columns"),
    "key": (
        'cells = ["0.3B", "0.3%", "1"]\ncolour = "red"',
        "row 1 (GPT-2 medium): unknown key(s) ['colour']",
    ),
    "number": (
        'cells = ["0.3B", "zero", "1"]',
        "row 1 (GPT-2 medium): cell 'zero' under 'Overall'",
    ),
    "setting": (
        'cells = ["0.3B", "0.3%", "1"]\nsettings = ["nope"]',
        "row 1 (GPT-2 medium): no [settings.nope] in the file",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_one_line_naming_the_file_and_the_row(tmp_path, case):
    row, message = BAD_FILES[case]
    path = tmp_path / "published.toml"
    path.write_text(
        '[paper]\ntitle = "T"\nvenue = "V"\ntranscribed = "by hand"\n\n'
        '[[tables]]\ntable = "Table 1"\ncaption = "C"\nbenchmark = "lambda"\n'
        'metric = "accuracy"\nscale = "percent"\nprotocol = "P"\ncolumns = [\n'
        '  { header = "Params" },\n  { header = "Overall", condition = "overall" },\n'
        '  { header = "N", role = "n" },\n]\n\n'
        f'[[tables.rows]]\nlabel = "GPT-2 medium"\nmodel = "GPT-2"\n{row}\n',
        encoding="utf-8",
    )
    with pytest.raises(PublishedFileError) as error:
        load_published(path)
    text = str(error.value)
    assert text.startswith(f"{path}: tables[0] (Table 1) ") and text.endswith(message)
    assert "\n" not in text


def test_a_file_that_is_not_toml_or_has_no_paper_is_named(tmp_path):
    path = tmp_path / "published.toml"
    path.write_text("[paper\n", encoding="utf-8")
    with pytest.raises(PublishedFileError, match=rf"^{path}: not valid TOML"):
        load_published(path)
    path.write_text('[[tables]]\ntable = "T"\n', encoding="utf-8")
    with pytest.raises(PublishedFileError, match=r"\[paper\]: missing"):
        load_published(path)
    with pytest.raises(PublishedFileError, match="no such published-results file"):
        load_published(tmp_path / "absent.toml")


def test_every_shipped_file_loads():
    for folder in ("lambda_", "scan", "setlexsem", "ekar"):
        assert load_published(SRC / folder / "published.toml")


def loaded(benchmark: str, label: str, config: dict, results: dict):
    from lexbench.parts import LoadedRun

    return LoadedRun(
        Path(f"/runs/{label}"), config, [], {"benchmark": benchmark, **results}, "", label
    )


def test_setlexsem_rows_compare_the_same_cell_of_the_runs_paper_tables():
    from lexbench.report.published import beside

    table4 = {"rows": [{"operation": "union", "mean": 0.5, "prompts": 400}]}
    run = loaded(
        "setlexsem",
        "s",
        {"benchmark": {"name": "setlexsem", "parser": "paper", "dataset": {"limit_per_config": 1}}},
        {"paper_tables": {"table4": table4}},
    )
    union, intersection = [r for r in published_rows("setlexsem") if r.table == "Table 4"][:2]
    found = beside(union, run)
    assert (found.run_value, found.run_n, found.test) == (
        0.5,
        400,
        None,
    )  # not an accuracy of N items
    assert found.comparability.notes == (
        "a slice of the item set",
        "n=400; the paper's N is 51,200",
    )
    assert beside(intersection, run).comparability.differences == (
        "the run's results hold no number for this cell",
    )
    lenient = loaded(
        "setlexsem",
        "s",
        {"benchmark": {"name": "setlexsem", "parser": "lexbench"}},
        {"paper_tables": {"table4": table4}},
    )
    assert beside(union, lenient).comparability.differences == (
        "lexbench's lenient answer parser; the paper used the authors' answer parser",
    )


def test_a_run_beside_some_columns_is_not_listed_apart_for_the_others():
    from lexbench.report.published_format import published_markdown

    config = {"benchmark": {"name": "ekar", "mode": "hard", "language": "en", "split": "test"}}
    results = {"overall": {"accuracy": 1 / 3, "n": 3}}
    test_split = loaded("ekar", "g (split=test)", config, results)
    validation = loaded(
        "ekar", "g", {"benchmark": {**config["benchmark"], "split": "validation"}}, results
    )
    text = published_markdown([test_split, validation])
    beside_part, apart = text.split("#### Listed apart: the protocol differs")
    assert "| g (split=test) | **this run** | 3 | 33.3 | 33.3 |" in beside_part
    assert "| RoBERTa-large, fine-tuned | *published, not re-run* | 262 | 46.7 | — |" in beside_part
    # Only the validation run, and only its nearest columns: the split is the difference.
    assert apart.strip().splitlines()[0] == (
        "- Table 2 (En (HARD), Zh/En (HARD)), not comparable with g: The validation split; "
        "the paper used the test split."
    )
    assert "g (split=test)" not in apart
