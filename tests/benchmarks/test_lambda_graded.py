"""LAMBDA's graded credit (`--graded path|glove`) and the `phrase` protocol: opt-in, a second
score beside strict accuracy, recorded in the run config only when asked for."""

import json

import numpy as np
import pytest

from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
from lexbench.benchmarks.lambda_.graded import (
    GradedScorer,
    graded_section,
    graded_summary,
    load_graded_scorer,
)
from lexbench.benchmarks.lambda_.items import LambdaConfig, LambdaItem, generate_items
from lexbench.benchmarks.lambda_.prompts import decoding_for
from lexbench.lexicon.vectors import WordVectors
from lexbench.run.evaluate import evaluate
from lexbench.run.store import read_run
from mock_model import ScriptedModel


def _vectors():
    words = ["hot", "warm", "cold", "dog", "hot dog", "sausage"]
    matrix = np.array(
        [[1.0, 0.0, 0.0], [0.8, 0.6, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0],
         [0.0, 1.0, 0.0], [0.0, 0.6, 0.8]]
    )  # fmt: skip
    return WordVectors.from_matrix("toy", words, matrix)


def test_glove_credit_is_one_zero_or_the_clipped_cosine_to_the_nearest_gold():
    scorer = GradedScorer("glove", vectors=_vectors())
    assert scorer.credit("hot", "correct", ["hot"]) == (1.0, "hot")
    assert scorer.credit("cold", "identity_echo", ["hot"]) == (0.0, None)
    assert scorer.credit("", "no_answer", ["hot"]) == (0.0, None)
    assert scorer.credit("warm", "other", ["cold", "hot"]) == (pytest.approx(0.8), "hot")
    assert scorer.credit("cold", "other", ["hot"]) == (0.0, None)  # cosine -1, clipped
    assert scorer.credit("zzz", "other", ["hot"]) == (0.0, None)  # unknown word
    # A phrase is the mean of its words' unit vectors: (hot + dog) / |.| against sausage.
    value, _ = scorer.credit("hot", "other", ["sausage"], " hot dog\n", whole_line=True)
    assert value == pytest.approx(0.8 / np.sqrt(2))


def test_path_credit_is_wordnet_path_similarity_within_a_part_of_speech(wordnet_index):
    scorer = load_graded_scorer("path")
    assert scorer.credit("cat", "semantic_drift", ["dog"])[0] == pytest.approx(0.2)
    assert scorer.credit("walk", "other", ["run"])[0] == pytest.approx(1 / 3)
    # Adjectives have no hypernyms and no simulated root here: unrelated ones give 0.
    assert scorer.credit("cold", "other", ["hot"]) == (0.0, None)
    assert scorer.credit("large", "other", ["big"]) == (1.0, "big")  # a shared sense


def test_an_unknown_kind_or_a_missing_resource_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown graded credit 'cosine'"):
        GradedScorer("cosine")
    with pytest.raises(ValueError, match="needs the packaged GloVe"):
        GradedScorer("glove")


def test_the_summary_has_a_bootstrap_interval_and_a_table():
    summary = graded_summary("glove", ["a", "a", "b", "b"], [1.0, 0.5, 0.0, None])
    assert summary["overall"]["n"] == 3 and summary["overall"]["mean"] == pytest.approx(0.5)
    assert summary["overall"]["ci_low"] <= 0.5 <= summary["overall"]["ci_high"]
    assert summary["per_relation"]["b"]["n"] == 1
    table = graded_section(summary)
    assert "| **overall** | 3 | 0.500 |" in table and "clipped to [0, 1]" in table


def test_the_phrase_protocol_has_a_larger_budget():
    assert decoding_for("phrase").max_new_tokens == 16
    assert decoding_for("paper").max_new_tokens == 2


def _items():
    return [
        LambdaItem("synonym-0000", "synonym", (("big", "large"), ("fast", "quick")), "hot",
                   "warm", ("warm",), "adj", 3),
        LambdaItem("synonym-0001", "synonym", (("big", "large"), ("fast", "quick")), "dog",
                   "hot dog", ("hot dog", "sausage"), "noun", 3),
    ]  # fmt: skip


def test_a_graded_phrase_run_reports_both_scores(tmp_path, tmp_cache):
    replies = {"synonym-0000": " cold\n", "synonym-0001": " hot dog\nmore"}
    scorer = GradedScorer("glove", vectors=_vectors())
    bench = LambdaBenchmark(
        dataset=_items(), index=None, protocol="phrase", graded="glove", graded_scorer=scorer
    )
    run = evaluate(bench, ScriptedModel(replies), out_root=tmp_path, cache=tmp_cache,
                   progress=False)  # fmt: skip
    config, samples, results = read_run(run.folder.path)
    assert config["benchmark"]["graded"]["kind"] == "glove"
    assert config["benchmark"]["decoding"]["max_new_tokens"] == 16
    assert [s["correct"] for s in samples] == [False, True]  # the multi-word candidate
    assert [s["graded"] for s in samples] == [pytest.approx(0.0), 1.0]
    assert results["overall"]["accuracy"] == 0.5
    assert results["graded"]["overall"]["mean"] == pytest.approx(0.5)
    assert "## Graded credit (a second score)" in run.folder.report_path.read_text()


def test_a_run_without_graded_records_nothing_new(wordnet_index):
    items = generate_items(wordnet_index, LambdaConfig(per_relation=2))
    config = LambdaBenchmark(dataset=items, index=wordnet_index).config()
    assert "graded" not in config and config["protocol"] == "paper"
    assert json.dumps(config["decoding"], sort_keys=True) == json.dumps(
        {"max_new_tokens": 2, "seed": None, "stop": [], "stop_at_word_end": False,
         "temperature": 0.0, "top_k": 0, "top_p": 1.0}, sort_keys=True
    )  # fmt: skip
