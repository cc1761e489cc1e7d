"""ROUGE-2 (own implementation, character-level for Chinese), MiniLM similarity, and the
BERTScore guard."""

from __future__ import annotations

import importlib.util

import pytest

from lexbench.metrics.rouge import ngrams, rouge_n, rouge_tokens


def test_tokens_are_words_and_chinese_characters():
    assert rouge_tokens('Both "teapot" and the Teacup hold tea.') == [
        "both",
        "teapot",
        "and",
        "the",
        "teacup",
        "hold",
        "tea",
    ]
    assert rouge_tokens("“茶壶”用来装茶。") == ["茶", "壶", "用", "来", "装", "茶"]
    assert rouge_tokens("R3.7 是made_of关系") == ["r3", "7", "是", "made", "of", "关", "系"]
    assert rouge_tokens("") == [] and rouge_tokens("。，！") == []


def test_rouge2_by_hand():
    # Bigrams: the cat|cat sat|sat on|on the|the mat vs the cat|cat sat|sat on|on a|a mat -> 3 shared.
    score = rouge_n("the cat sat on the mat", "the cat sat on a mat")
    assert (score.precision, score.recall, score.f1) == pytest.approx((0.6, 0.6, 0.6))
    # 茶壶|壶装|装茶 vs 茶壶|壶用|用来|来装|装茶 -> 2 shared.
    chinese = rouge_n("茶壶装茶", "茶壶用来装茶")
    assert chinese.precision == pytest.approx(2 / 3) and chinese.recall == pytest.approx(2 / 5)
    assert chinese.f1 == pytest.approx(2 * (2 / 3) * (2 / 5) / (2 / 3 + 2 / 5))


def test_rouge_clips_repeated_ngrams_and_handles_edges():
    assert ngrams(["a", "b", "a", "b"], 2) == {("a", "b"): 2, ("b", "a"): 1}
    # "the the the" has two (the, the) bigrams but the reference only one: clipped to 1.
    clipped = rouge_n("the the the", "the the cat")
    assert clipped.precision == pytest.approx(0.5) and clipped.recall == pytest.approx(0.5)
    assert rouge_n("same words here", "same words here").f1 == pytest.approx(1.0)
    assert rouge_n("", "a reference").f1 == 0.0
    assert rouge_n("one", "one").f1 == 0.0  # no bigram on either side
    assert rouge_n("one", "one", n=1).f1 == pytest.approx(1.0)
    assert rouge_n("Tea, TEA!", "tea tea").f1 == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n >= 1"):
        rouge_n("a", "b", n=0)


@pytest.fixture(scope="module")
def minilm():
    from lexbench.metrics.similarity import SentenceSimilarity

    similarity = SentenceSimilarity()
    return similarity


def test_minilm_similarity_ranks_paraphrases_above_unrelated_text(minilm):
    reference = "Furniture is made of timber."
    values = minilm.similarities(
        [
            "Furniture is made of timber.",
            "Timber is the material furniture is made from.",
            "The stock market fell sharply on Tuesday.",
        ],
        [reference] * 3,
    )
    assert values[0] == pytest.approx(1.0, abs=1e-4)
    assert values[0] > values[1] > values[2]
    assert minilm.name == "all-MiniLM-L6-v2"
    assert minilm.similarities([], []) == []
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        minilm.similarities(["a", "b"], ["c"])


def test_missing_similarity_folder_is_a_clear_error(tmp_path):
    from lexbench.metrics.similarity import SentenceSimilarity

    with pytest.raises(FileNotFoundError, match="no sentence-transformers model folder"):
        SentenceSimilarity(tmp_path / "nothing")


@pytest.mark.skipif(
    importlib.util.find_spec("bert_score") is not None,
    reason="bert-score is installed; the missing-package message cannot show",
)
def test_bertscore_without_the_package_says_how_to_install():
    from lexbench.metrics.similarity import bertscore

    with pytest.raises(ImportError, match="pip install bert-score"):
        bertscore(["a"], ["b"], "bert-base-uncased")


# ------------------------------------------------------------------------------ BLEURT, MoverScore


def _fake_module(monkeypatch, name, **attributes):
    """A stand-in package in sys.modules (no BLEURT or MoverScore ships offline): it checks
    the plumbing -- who is called with what, and how scores come back -- not the metrics."""
    import importlib.machinery
    import sys
    import types

    module = types.ModuleType(name)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    for key, value in attributes.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def test_learned_metrics_are_skipped_with_the_reason_by_default():
    from lexbench.metrics.learned import plan_bleurt, plan_moverscore

    bleurt, mover = plan_bleurt(None), plan_moverscore(None)
    assert bleurt.backend is None and "no BLEURT checkpoint given" in bleurt.skipped
    assert "not available offline" in bleurt.skipped
    assert mover.backend is None and "no MoverScore encoder given" in mover.skipped
    assert bleurt.to_dict() == {
        "name": "bleurt",
        "checkpoint": None,
        "backend": None,
        "skipped": bleurt.skipped,
    }


@pytest.mark.skipif(
    importlib.util.find_spec("bleurt") is not None
    or importlib.util.find_spec("bleurt_pytorch") is not None
    or importlib.util.find_spec("moverscore_v2") is not None,
    reason="a BLEURT or MoverScore package is installed",
)
def test_a_named_checkpoint_that_cannot_run_is_an_error(tmp_path):
    from lexbench.metrics.learned import plan_bleurt, plan_moverscore

    with pytest.raises(FileNotFoundError, match=r"--bleurt-checkpoint .*nowhere: no such folder"):
        plan_bleurt(tmp_path / "nowhere")
    with pytest.raises(ImportError, match="pip install bleurt-pytorch"):
        plan_bleurt(tmp_path)
    with pytest.raises(ImportError, match="pip install moverscore pyemd"):
        plan_moverscore(tmp_path)


def test_bleurt_and_moverscore_run_through_their_packages(monkeypatch, tmp_path):
    from lexbench.metrics.learned import (
        bleurt_scores,
        moverscore_scores,
        plan_bleurt,
        plan_moverscore,
    )

    calls = {}

    class Scorer:
        def __init__(self, checkpoint):
            calls["bleurt_checkpoint"] = checkpoint

        def score(self, references, candidates):
            calls["bleurt"] = (references, candidates)
            return [len(c) / 10 for c in candidates]

    score_module = _fake_module(monkeypatch, "bleurt.score", BleurtScorer=Scorer)
    _fake_module(monkeypatch, "bleurt", score=score_module)
    plan = plan_bleurt(tmp_path)
    assert (plan.backend, plan.skipped) == ("bleurt", None)
    assert bleurt_scores(plan, ["ab", "abcd"], ["x", "y"]) == [0.2, 0.4]
    assert calls["bleurt"] == (["x", "y"], ["ab", "abcd"])
    assert calls["bleurt_checkpoint"] == str(tmp_path)

    def word_mover_score(references, hypotheses, idf_ref, idf_hyp, **options):
        calls["mover"] = (references, hypotheses, options)
        return [0.5 for _ in hypotheses]

    encoder = tmp_path / "distilbert"
    encoder.mkdir()
    _fake_module(
        monkeypatch,
        "moverscore_v2",
        model_name=str(encoder),
        get_idf_dict=lambda texts: {"n": len(texts)},
        word_mover_score=word_mover_score,
    )
    monkeypatch.delenv("MOVERSCORE_MODEL", raising=False)
    mover = plan_moverscore(encoder)
    assert moverscore_scores(mover, ["a b"], ["a c"]) == [0.5]
    assert calls["mover"] == (
        ["a c"],
        ["a b"],
        {"stop_words": [], "n_gram": 1, "remove_subwords": True},
    )
    import os

    assert os.environ["MOVERSCORE_MODEL"] == str(encoder)
    # moverscore_v2 reads its encoder once, at import: another one is refused, not ignored.
    with pytest.raises(RuntimeError, match="already imported with encoder"):
        moverscore_scores(plan_moverscore(tmp_path), ["a"], ["b"])
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        bleurt_scores(plan, ["a", "b"], ["c"])
    with pytest.raises(ValueError, match="BLEURT is skipped"):
        bleurt_scores(plan_bleurt(None), ["a"], ["b"])


def test_explanation_runs_report_planned_learned_metrics(monkeypatch, tmp_path):
    from pathlib import Path

    from lexbench.benchmarks.ekar.explain import ExplanationBenchmark
    from lexbench.benchmarks.ekar.files import read_split
    from lexbench.metrics.learned import plan_bleurt
    from lexbench.run.evaluate import evaluate
    from mock_model import ScriptedModel

    class Scorer:
        def __init__(self, checkpoint):
            pass

        def score(self, references, candidates):
            return [0.25] * len(candidates)

    score_module = _fake_module(monkeypatch, "bleurt.score", BleurtScorer=Scorer)
    _fake_module(monkeypatch, "bleurt", score=score_module)
    dataset = read_split(
        Path(__file__).parents[1] / "fixtures" / "ekar" / "english" / "validation.json", "en"
    )[:2]
    benchmark = ExplanationBenchmark(dataset=dataset, bleurt=plan_bleurt(tmp_path))
    evaluation = evaluate(
        benchmark,
        ScriptedModel(reply=lambda r: "timber makes furniture"),
        out_root=tmp_path / "runs",
        progress=False,
    )
    tables = evaluation.results["explanations"]
    assert tables["E_A"]["bleurt"]["estimate"] == pytest.approx(0.25)
    assert tables["E_A"]["bleurt"]["n"] == 8 and tables["E_Q"]["bleurt"]["n"] == 2
    assert set(evaluation.results["skipped_metrics"]) == {"moverscore"}
    assert "| E_A | bleurt | 0.250" in evaluation.report


def test_model_card_languages(tmp_path):
    from lexbench.metrics.similarity import declared_languages, packaged_minilm_folder

    assert declared_languages(packaged_minilm_folder()) == frozenset({"en"})
    cards = {
        "---\nlanguage: [en, zh]\nlicense: mit\n---\n": {"en", "zh"},
        "---\nlicense: mit\nlanguage:\n  - multilingual\n  - 'zh'\ntags: []\n---\n": {
            "multilingual",
            "zh",
        },
        "---\nlicense: mit\n---\n": None,
        "no front matter": None,
    }
    for text, expected in cards.items():
        (tmp_path / "README.md").write_text(text)
        assert declared_languages(tmp_path) == (frozenset(expected) if expected else None)
    (tmp_path / "README.md").unlink()
    assert declared_languages(tmp_path) is None
