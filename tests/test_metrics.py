"""ROUGE-2 (own implementation, character-level for Chinese), MiniLM similarity, and the
BERTScore guard."""

from __future__ import annotations

import importlib.util

import pytest

from lexbench.metrics.rouge import ngrams, rouge_n, rouge_tokens


def test_tokens_are_words_and_chinese_characters():
    assert rouge_tokens('Both "teapot" and the Teacup hold tea.') == [
        "both", "teapot", "and", "the", "teacup", "hold", "tea"]
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
    assert rouge_n("one", "one").f1 == 0.0            # no bigram on either side
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
        ["Furniture is made of timber.", "Timber is the material furniture is made from.",
         "The stock market fell sharply on Tuesday."], [reference] * 3)
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


@pytest.mark.skipif(importlib.util.find_spec("bert_score") is not None,
                    reason="bert-score is installed; the missing-package message cannot show")
def test_bertscore_without_the_package_says_how_to_install():
    from lexbench.metrics.similarity import bertscore

    with pytest.raises(ImportError, match="pip install bert-score"):
        bertscore(["a"], ["b"], "bert-base-uncased")
