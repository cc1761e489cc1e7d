"""The LAMBDA error taxonomy on the real WordNet: the issue's examples, and agreement with
288 wrong SmolLM2-135M answers labelled by hand (tests/fixtures/lambda/taxonomy_labels.jsonl).

The fixture: every distinct wrong answer of SmolLM2-135M-Instruct on the first 100 strict
items per relation, completion prompt, `--protocol paper` and `--protocol word`, shuffled
with seed 15. All 288 rows are development data (`"split": "development"`): the rules were
refined on them, and the 68 once called held out share queries with the rest and are cited
by the rules, so they measure nothing fresh. The fresh measurement is
taxonomy_validation.jsonl (tests/benchmarks/test_lambda_taxonomy_validation.py). Each row
has the raw output, the answer, the candidate set, the label and why.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from lexbench.benchmarks.lambda_.benchmark import parse_and_score
from lexbench.benchmarks.lambda_.drift import drift_finder
from lexbench.benchmarks.lambda_.items import LambdaItem
from lexbench.benchmarks.lambda_.taxonomy import ERROR_CLASSES

FIXTURE = Path(__file__).parents[1] / "fixtures" / "lambda" / "taxonomy_labels.jsonl"

# Agreement floors per hand label (share of that label the classifier reproduces). Measured:
# identity_echo 0.94, other 0.97, format_failure 1.00, surface_misfire 0.70,
# semantic_drift 0.59 (0.46 before issue 24), support_copy 0.33 (3 rows), overall 0.88
# (docs/benchmarks/lambda.md).
FLOORS = {
    "identity_echo": 0.92,
    "other": 0.92,
    "format_failure": 0.95,
    "surface_misfire": 0.6,
    "semantic_drift": 0.55,
    "overall": 0.8,
}


@pytest.fixture(scope="module")
def drift(wordnet_index):
    return drift_finder(wordnet_index)


def _item(relation, query, candidates, support=(("alpha", "beta"), ("gamma", "delta"))):
    return LambdaItem(
        id="t",
        relation=relation,
        support=support,
        query=query,
        gold="",
        candidates=tuple(candidates),
        query_pos="",
        query_length=len(query),
    )


def _classify(wordnet_index, drift, relation, query, output):
    item = _item(relation, query, wordnet_index.relation(relation, query))
    return parse_and_score(output, item, wordnet_index, drift)


@pytest.mark.parametrize(
    "query,output", [("house", " mouse"), ("light", " night"), ("price", " prize")]
)
def test_different_words_one_letter_apart_are_not_surface_misfires(
    wordnet_index, drift, query, output
):
    verdict = _classify(wordnet_index, drift, "antonym", query, output)
    assert verdict.error_class != "surface_misfire", verdict


def test_budget_cut_prefix_of_the_query_is_an_echo(wordnet_index, drift):
    verdict = _classify(wordnet_index, drift, "synonym", "desecrate", " desec")
    assert (verdict.error_class, verdict.reason) == ("identity_echo", "truncated")
    # A complete real word that starts the query is not an echo: "inept" is the stem.
    assert (
        _classify(wordnet_index, drift, "antonym", "ineptitude", " inept").error_class
        == "surface_misfire"
    )


@pytest.mark.parametrize(
    "relation,query,output",
    [
        ("antonym", "hot", " warm"),  # similar-to in WordNet
        ("antonym", "big", " huge"),  # similar-to
        ("synonym", "doctor", " nurse"),  # sister terms (treat.v.03), and GloVe 0.80
    ],
)
def test_near_synonyms_wordnet_does_not_link_directly_are_drift(
    wordnet_index, drift, relation, query, output
):
    verdict = _classify(wordnet_index, drift, relation, query, output)
    assert verdict.error_class == "semantic_drift", verdict
    assert output.strip() not in wordnet_index.all_related(query)  # not a direct index link


@pytest.mark.parametrize(
    "output", [" The answer", "\nThe", "\nWhat is", " Answer:", "I'm sorry", "It's a"]
)
def test_format_failures_have_their_own_class(wordnet_index, drift, output):
    assert (
        _classify(wordnet_index, drift, "synonym", "desecrate", output).error_class
        == "format_failure"
    )


def test_near_miss_of_the_answer_set_is_drift(wordnet_index, drift):
    """10 is not close enough to viii, but to 8, its synonym (a development row)."""
    verdict = _classify(wordnet_index, drift, "synonym", "viii", " 10")
    assert (verdict.error_class, verdict.reason) == ("semantic_drift", "near-miss:8:glove:0.94")
    assert drift.reason("10", "viii") is None  # not through the query
    # Below NEAR_MISS_COSINE (0.8) a frequent word near a short candidate is not a near miss:
    # beautiful / sweet (R(mellifluous)) 0.62.
    assert drift.near_miss("beautiful", ["dulcet", "honeyed", "sweet"]) is None


def test_a_copied_support_word_near_the_answer_set_stays_a_copy(wordnet_index, drift):
    # "10" is a near miss of R(viii), but the support pairs show it.
    item = _item(
        "synonym",
        "viii",
        wordnet_index.relation("synonym", "viii"),
        support=(("x", "10"), ("gamma", "delta")),
    )
    assert drift.near_miss("10", item.candidates)
    assert parse_and_score(" 10", item, wordnet_index, drift).error_class == "support_copy"


def test_graded_similarity_finds_drift_the_fixed_thresholds_missed(wordnet_index, drift):
    """flexible / stiff: GloVe 0.57, below the 0.6 cosine, above the graded 0.5."""
    verdict = _classify(wordnet_index, drift, "synonym", "stiff", " flexible")
    assert (verdict.error_class, verdict.reason) == ("semantic_drift", "graded:0.57")


def test_drift_signals_are_named(drift):
    assert drift.signals[0] == "wordnet-index"
    assert any(s.startswith("wordnet-similar") for s in drift.signals)
    assert any(s.startswith("graded-cosine>=0.5") for s in drift.signals)
    assert any(s.startswith("near-miss") for s in drift.signals)


def _fixture_rows():
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    for number, row in enumerate(rows, 1):
        missing = {"query", "answer", "candidates", "label", "why", "output", "support"} - set(row)
        assert not missing, f"{FIXTURE}:{number} lacks {missing}"
        assert row["label"] in ERROR_CLASSES, f"{FIXTURE}:{number}: label {row['label']!r}"
    return rows


def agreement(rows, wordnet_index, drift):
    """Per hand label: (rows the classifier files under the same class, rows)."""
    hits, totals = Counter(), Counter()
    for row in rows:
        (a, b), (c, d) = row["support"]
        item = LambdaItem(
            id=row["id"],
            relation=row["relation"],
            support=((a, b), (c, d)),
            query=row["query"],
            gold="",
            candidates=tuple(row["candidates"]),
            query_pos="",
            query_length=len(row["query"]),
        )
        verdict = parse_and_score(row["output"], item, wordnet_index, drift)
        assert not verdict.correct, row  # every labelled answer is a wrong one
        totals[row["label"]] += 1
        hits[row["label"]] += verdict.error_class == row["label"]
    return hits, totals


def test_agreement_with_hand_labels(wordnet_index, drift):
    rows = _fixture_rows()
    assert len(rows) >= 150
    assert {r["protocol"] for r in rows} == {"paper", "word"}
    hits, totals = agreement(rows, wordnet_index, drift)
    for label, floor in FLOORS.items():
        if label == "overall":
            share = sum(hits.values()) / sum(totals.values())
        else:
            share = hits[label] / totals[label]
        assert share >= floor, f"{label}: {share:.2f} < {floor} ({hits[label]}/{totals[label]})"
    assert {r["split"] for r in rows} == {"development"}
