"""The word-vector backend on a small hand-made vocabulary, checked against direct formulas."""

from __future__ import annotations

import numpy as np
import pytest

from lexbench.lexicon.vectors import WordVectors
from lexbench.models.embeddings import WordVectorModel, load
from lexbench.models.registry import load_model, split_spec
from lexbench.types import AnalogyQuery, Request

WORDS = [
    "the",
    "man",
    "woman",
    "king",
    "queen",
    "Paris",
    "paris",
    "france",
    "solar",
    "system",
    "sun",
    "atom",
]


@pytest.fixture(scope="module")
def vectors() -> WordVectors:
    rng = np.random.default_rng(7)
    return WordVectors.from_matrix("toy", WORDS, rng.normal(size=(len(WORDS), 6)))


@pytest.fixture(scope="module")
def model(vectors) -> WordVectorModel:
    return WordVectorModel(vectors, source="toy")


def _unit(v):
    return v / np.linalg.norm(v)


def _expected(vectors, method, a, b, c, exclude):
    u = {w: _unit(vectors.matrix[i]) for i, w in enumerate(vectors.words)}
    raw = {w: vectors.matrix[i] for i, w in enumerate(vectors.words)}
    scores = {}
    for row, word in enumerate(vectors.words):
        d = u[word]
        if method == "3cosadd":
            s = float(d @ _unit(u[b] - u[a] + u[c]))
        elif method == "3cosmul":
            cos = lambda x, d=d: (float(d @ u[x]) + 1) / 2  # noqa: E731
            s = cos(b) * cos(c) / (cos(a) + 1e-3)
        elif method == "pairdiff":
            s = float(_unit(d - u[c]) @ _unit(u[b] - u[a])) if word != c else -np.inf
        else:
            s = -float(np.linalg.norm(raw[word] - (np.abs(raw[b] - raw[a]) + raw[c])))
        if exclude and word.lower() in {a.lower(), b.lower(), c.lower()}:
            s = -np.inf
        scores[row] = s
    order = sorted((r for r in scores if np.isfinite(scores[r])), key=lambda r: (-scores[r], r))
    return [vectors.words[r] for r in order]


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul", "pairdiff", "scan-paper"])
def test_methods_match_their_formulas(model, vectors, method):
    query = AnalogyQuery("man", "king", "woman", method=method)
    assert query.exclude_question_words is (method != "scan-paper")
    [answer] = model.solve([query], top_k=5)
    assert [w for w, _ in answer] == _expected(
        vectors, method, "man", "king", "woman", query.exclude_question_words
    )[:5]
    scores = [s for _, s in answer]
    assert scores == sorted(scores, reverse=True)


def test_question_words_excluded_in_every_case_variant(model):
    [answer] = model.solve([AnalogyQuery("france", "paris", "man")], top_k=len(WORDS))
    words = [w for w, _ in answer]
    assert not {"france", "paris", "Paris", "man"} & set(words)
    [kept] = model.solve(
        [AnalogyQuery("france", "paris", "man", exclude_question_words=False)], top_k=len(WORDS)
    )
    assert {"france", "man"} <= {w for w, _ in kept}


def test_case_insensitive_lookup_takes_the_first_variant(vectors):
    insensitive = WordVectorModel(vectors, source="toy")
    sensitive = WordVectorModel(vectors, source="toy", case_insensitive=False)
    assert insensitive.row_of("PARIS") == WORDS.index("Paris")
    assert sensitive.row_of("PARIS") is None and sensitive.row_of("paris") == WORDS.index("paris")


def test_multi_word_terms_and_the_paper_baseline(model, vectors):
    # scan-paper: |b − a| + c over raw vectors, a term is the mean of its words, a missing
    # word is the zero vector (the paper's UNK), and question words may answer.
    [answer] = model.solve(
        [AnalogyQuery("atom", "solar system", "nucleus", "scan-paper")], top_k=len(WORDS)
    )
    raw = {w: vectors.matrix[i] for i, w in enumerate(WORDS)}
    target = np.abs((raw["solar"] + raw["system"]) / 2 - raw["atom"]) + 0.0  # nucleus is OOV
    expected = sorted(
        range(len(WORDS)), key=lambda r: (np.linalg.norm(vectors.matrix[r] - target), r)
    )
    assert [w for w, _ in answer] == [WORDS[r] for r in expected]
    # The cosine methods cannot answer with an unknown question word.
    [error] = model.solve([AnalogyQuery("atom", "solar system", "nucleus")], top_k=3)
    assert error == "out of vocabulary: 'nucleus'"


def test_analogy_requests_carry_typed_queries_targets_and_typed_failures(model):
    from lexbench.types import Failure

    good = Request(
        id="q1",
        kind="analogy",
        query=AnalogyQuery("man", "king", "woman"),
        top_k=3,
        targets=("Queen", "zebra", "nosuchword"),
    )
    bad = Request(id="q2", kind="analogy", query=AnalogyQuery("man", "king", "zebra"))
    assert model.supports("analogy") and not model.supports("rank")
    first, second = model.analogy([good, bad])
    assert len(first.ranked) == 3 and first.error is None
    assert all(WORDS[t.token_id] == t.text for t in first.ranked)
    words = [t.text.lower() for t in first.ranked]
    expected = words.index("queen") + 1 if "queen" in words else None
    assert first.target_ranks == (expected, None, None)  # compared case-folded
    assert first.target_known == (True, "zebra" in WORDS, False)
    assert second.error == "out of vocabulary: 'zebra'" and not second.ranked
    assert second.failure == Failure.OUT_OF_VOCABULARY
    with pytest.raises(Exception, match="cannot rank next tokens"):
        model.rank([Request(id="x", kind="rank", prompt="If a is like b, then c is like")])
    # The query is part of the cache key; the id is not.
    other = Request(
        id="q3",
        kind="analogy",
        query=AnalogyQuery("man", "king", "woman", "3cosmul"),
        top_k=3,
        targets=good.targets,
    )
    assert good.cache_key_payload() != other.cache_key_payload()
    assert (
        Request(
            id="zz", kind="analogy", query=good.query, top_k=3, targets=good.targets
        ).cache_key_payload()
        == good.cache_key_payload()
    )


def test_query_validation_and_round_trip():
    from lexbench.types import query_from_dict, query_to_dict

    query = AnalogyQuery("a", "b", "c", method="pairdiff")
    assert query_from_dict(query_to_dict(query)) == query
    with pytest.raises(ValueError, match="unknown analogy method"):
        AnalogyQuery("a", "b", "c", method="3cosdiv")
    with pytest.raises(ValueError, match="b is empty"):
        AnalogyQuery("a", " ", "c")


def test_restrict_limits_answers_and_questions(vectors):
    small = WordVectorModel(vectors, source="toy", restrict=5)
    assert small.name == "toy-top5" and len(small.vectors) == 5
    [answer] = small.solve([AnalogyQuery("man", "king", "woman")], top_k=10)
    assert {w for w, _ in answer} <= set(WORDS[:5])
    [error] = small.solve([AnalogyQuery("man", "king", "france")], top_k=10)
    assert error.startswith("out of vocabulary")
    assert small.fingerprint()["restrict"] == 5
    full = WordVectorModel(vectors, source="toy")
    assert small.fingerprint()["content_sha256"] != full.fingerprint()["content_sha256"]


def test_packaged_glove_through_the_registry():
    assert split_spec("glove") == ("vectors", "glove-6b-50d")
    model = load_model("glove", {"restrict": 50000})
    [answer] = model.solve([AnalogyQuery("man", "king", "woman")], top_k=1)
    assert answer[0][0] == "queen"
    with pytest.raises(ValueError, match="do not apply to the vectors backend"):
        load("glove-6b-50d", {"batch_size": 4})
    with pytest.raises(FileNotFoundError, match="no word-vector file"):
        load("/nonexistent/vectors.txt", {})


def test_pair_choices_rank_by_the_method(model, vectors):
    from lexbench.types import PairChoiceQuery

    u = {w: _unit(vectors.matrix[i]) for i, w in enumerate(WORDS)}
    choices = (("woman", "queen"), ("sun", "atom"), ("france", "zebra"))
    answer = model.choose(PairChoiceQuery("man", "king", choices))
    expected = [float(_unit(u["king"] - u["man"]) @ _unit(u[d] - u[c])) for c, d in choices[:2]]
    assert [i for i, _ in answer][:2] == sorted(range(2), key=lambda i: -expected[i])
    assert answer[-1] == (2, float("-inf"))  # a word out of vocabulary ranks last
    assert model.choose(PairChoiceQuery("zebra", "king", choices)) == "out of vocabulary: 'zebra'"
    [response] = model.analogy(
        [Request(id="c", kind="analogy", query=PairChoiceQuery("man", "king", choices))]
    )
    assert response.choice_scores == tuple(score for _, score in sorted(answer))


def test_first_token_skips_a_lone_sentencepiece_space():
    from lexbench.models.targets import first_token_id

    class SentencePieceLike:
        def __call__(self, text, add_special_tokens=False):
            return {"input_ids": [29871, 7] if text.startswith(" ") else [7]}

        def decode(self, ids):
            return " " if ids == [29871] else "sun"

    assert first_token_id(SentencePieceLike(), "sun") == 7
