"""The E-KAR paper's static-embedding baseline, asked of the one word-vector backend.

* A term's vector is the mean of its word vectors ("police officer" -> mean of the two).
* A tuple's vector is the sum of the pairwise differences of its terms,
  sum over i < j of (v_j - v_i). For two terms that is b - a; for three it is
  (b - a) + (c - a) + (c - b) = 2(c - a): the middle term cancels out, a property of the
  baseline as described, kept as is.
* The answer is the candidate whose tuple vector has the highest cosine with the query's.

Each item is one `analogy` request carrying a `TupleChoiceQuery`; the word-vector backend
(`lexbench.models.embeddings`, `--model glove` or `vectors:PATH`) answers it with one cosine
per candidate (`Response.choice_scores`). English words are looked up lowercased (GloVe is
uncased). Chinese: no Chinese vectors ship with lexbench or can be downloaded offline; pass a
file (word2vec/fastText text, e.g. Tencent AI Lab or fastText cc.zh.300.vec) as
`--model vectors:PATH`. A Chinese term missing from the vocabulary is segmented greedily into
the longest in-vocabulary words, since such files are word-segmented.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexbench.benchmarks.ekar.data import EkarItem
from lexbench.models.base import Model
from lexbench.types import Request, TupleChoiceQuery


def tuple_request(item: EkarItem) -> Request:
    """The request the embedding baseline answers for one item."""
    return Request(
        id=item.id,
        kind="analogy",
        query=TupleChoiceQuery(tuple(item.query), tuple(tuple(c) for c in item.choices)),
    )


def resolve_model(spec: str | Model, method: str, options: dict[str, Any] | None = None) -> Model:
    """The model a `--model` spec names, checked against `method`: word vectors run the
    embedding baseline only, and the embedding baseline needs word vectors."""
    from lexbench.models.registry import load_model

    model = spec if isinstance(spec, Model) else load_model(spec, options)
    if model.supports("analogy") and method != "embedding":
        model.close()
        raise ValueError(
            f"{model.name!r} is a static word-vector model: it runs the embedding "
            f"baseline only; use --method embedding"
        )
    if method == "embedding" and not model.supports("analogy"):
        model.close()
        raise ValueError(
            f"--method embedding needs static word vectors (--model glove, or "
            f"--model vectors:PATH for a word2vec/GloVe/fastText file), not "
            f"{model.name!r}"
        )
    return model


def check_coverage(model: Model, items: Sequence[EkarItem]) -> None:
    """Refuse a vectors run in which no query can be embedded at all (e.g. the packaged
    English GloVe on Chinese E-KAR), with a message saying what to pass instead."""
    from lexbench.models.embeddings import WordVectorModel

    if not isinstance(model, WordVectorModel) or not items:
        return
    covered = sum(1 for item in items if model.tuple_vector(item.query) is not None)
    if covered == 0:
        hint = (
            " No Chinese vectors ship with lexbench or can be fetched offline: pass a "
            "word2vec/fastText text file as --model vectors:PATH (e.g. fastText "
            "cc.zh.300.vec or the Tencent AI Lab embeddings)."
            if items[0].language == "zh"
            else ""
        )
        raise ValueError(
            f"none of the {len(items)} queries has vectors in {model.name}: "
            f"every term is out of its vocabulary.{hint}"
        )
