"""E-KAR explanation generation: prompts for E_Q and E_A, both modes, ROUGE-2 and MiniLM
similarity per explanation, tables with bootstrap intervals."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from mock_model import ScriptedModel

from lexbench.benchmarks.base import evaluate
from lexbench.benchmarks.ekar_data import find_split_file, read_split
from lexbench.benchmarks.ekar_explain import (
    ExplanationBenchmark, candidate_explanation_prompt, query_explanation_prompt,
)

FIXTURES = Path(__file__).parent / "fixtures" / "ekar"
FOLDERS = {"en": FIXTURES / "english", "zh": FIXTURES / "chinese"}


def items(language, split="validation"):
    return read_split(find_split_file(FOLDERS[language], split), language)


@pytest.fixture(scope="module")
def minilm():
    from lexbench.metrics.similarity import SentenceSimilarity

    return SentenceSimilarity()


def test_prompts():
    item = items("en")[0]
    assert query_explanation_prompt(item).endswith("Query: timber : furniture\nExplanation:")
    hard = candidate_explanation_prompt(item, 2, "hard")
    easy = candidate_explanation_prompt(item, 2, "easy")
    assert "Candidate: cotton : shirt" in hard and item.explanations[0] not in hard
    assert item.explanations[0] in easy and item.explanations[3] not in easy
    zh = items("zh")[0]
    assert "题干：木材：家具" in query_explanation_prompt(zh)
    assert "选项：棉花：衬衫" in candidate_explanation_prompt(zh, 2, "easy")


def echo_reference(request_id, dataset):
    """A scripted model that returns the reference for half the targets and nonsense else."""
    by_id = {i.id: i for i in dataset}
    item_id, target = request_id.rsplit(":E", 1)
    item = by_id[item_id]
    reference = item.explanations[0 if target == "Q" else 1 + "ABCD".index(target)]
    # A leading newline and a second line, as small models write: only the first
    # non-empty line is the explanation.
    return f"\n{reference}\nMore text." if target in ("Q", "A", "C") else "bananas are yellow"


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("mode", ["hard", "easy"])
def test_explanations_scored_with_rouge_and_similarity(tmp_path, minilm, language, mode):
    dataset = items(language)[:4]
    model = ScriptedModel(reply=lambda r: echo_reference(r.id, dataset))
    benchmark = ExplanationBenchmark(dataset=dataset, language=language, mode=mode,
                                     similarity=minilm)
    evaluation = evaluate(benchmark, model, out_root=tmp_path, progress=False)
    tables = evaluation.results["explanations"]
    if mode == "hard":
        assert len(model.sent) == 4 * 5
        assert tables["E_Q"]["rouge2_f1"]["estimate"] == pytest.approx(1.0)
        assert tables["E_Q"]["similarity"]["estimate"] == pytest.approx(1.0, abs=1e-4)
    else:
        assert len(model.sent) == 4 * 4 and "E_Q" not in tables
    # E_A: A and C echo the reference, B and D are nonsense -> F1 is the mean of 1, 0, 1, ~0.
    assert tables["E_A"]["rouge2_f1"]["n"] == 16
    assert tables["E_A"]["rouge2_f1"]["estimate"] == pytest.approx(0.5, abs=0.02)
    assert 0.5 < tables["E_A"]["similarity"]["estimate"] < 0.9
    interval = tables["E_A"]["rouge2_f1"]
    assert interval["low"] <= interval["estimate"] <= interval["high"]
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    for row in samples:
        assert row["correct"] is None and 0.0 <= row["value"] <= 1.0
        assert row["meta_relation"] and row["relation"]
        assert set(row["explanations"]) == ({"Q", "A", "B", "C", "D"} if mode == "hard"
                                            else {"A", "B", "C", "D"})
    assert "rouge2_f1" in evaluation.report and "similarity" in evaluation.report


def test_without_similarity_and_on_a_blind_split():
    dataset = items("en")[:2]
    model = ScriptedModel(reply=lambda r: "")
    bench = ExplanationBenchmark(dataset=dataset, similarity=None)
    from lexbench.run.runner import execute

    requests = [r for i in dataset for r in bench.requests(i)]
    responses, _ = execute(model, requests, progress=False)
    score = bench.score(dataset[0], responses[:5])
    assert score.error_class == "empty_output" and score.value == 0.0
    assert bench.summarize(dataset[:1], [score])["explanations"]["E_Q"].keys() == {
        "rouge2_f1", "rouge2_precision", "rouge2_recall"}
    with pytest.raises(ValueError, match="blind test split"):
        ExplanationBenchmark(dataset=items("en", "test"))


@pytest.mark.skipif(importlib.util.find_spec("bert_score") is not None,
                    reason="bert-score is installed")
def test_bertscore_model_without_the_package_is_a_clear_error():
    with pytest.raises(ImportError, match="pip install bert-score"):
        ExplanationBenchmark(dataset=items("en")[:1], bertscore_model="bert-base-uncased")
