"""The E-KAR paper's static-embedding baseline, as a small `Model` so it runs through
`evaluate` (cache, run folder, report) like any other method.

* A term's vector is the mean of its word vectors ("police officer" -> mean of the two).
* A tuple's vector is the sum of the pairwise differences of its terms,
  sum over i < j of (v_j - v_i). For two terms that is b - a; for three it is
  (b - a) + (c - a) + (c - b) = 2(c - a): the middle term cancels out, a property of the
  baseline as described, kept as is.
* The answer is the candidate whose tuple vector has the highest cosine with the query's.

How `--model glove` runs it: the model spec's kind is `vectors`, so the command loads the
vectors with `lexicon.vectors.load_vectors` and wraps them in `TupleVectorModel`, which
answers E-KAR's `loglikelihood`-kind requests (query tuple in `prompt`, candidate tuples in
`continuations`, terms separated by ':') with cosines in place of log-probabilities. It is
never registered as a general backend: it only understands these tuple requests.

English words are looked up lowercased (GloVe is uncased). Chinese: no Chinese vectors
ship with lexbench or can be downloaded offline; pass a file (word2vec/fastText text,
e.g. Tencent AI Lab or fastText cc.zh.300.vec) as `--model vectors:PATH`. A Chinese term
missing from the vocabulary is segmented greedily into the longest in-vocabulary words
(falling back to single characters), since such files are word-segmented.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from lexbench.benchmarks.ekar_data import EkarItem
from lexbench.lexicon.vectors import WordVectors, load_vectors
from lexbench.models.base import Model
from lexbench.types import Request, Response

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD_SPLIT = re.compile(r"[\s\-_/]+")
MAX_CHINESE_WORD = 6


def tuple_request(item: EkarItem) -> Request:
    """The request the embedding baseline answers for one item."""
    return Request(id=item.id, kind="loglikelihood", prompt=":".join(item.query),
                   continuations=tuple(":".join(c) for c in item.choices))


def term_words(term: str, vectors: WordVectors) -> list[str]:
    """The in-vocabulary words a term's vector is the mean of (empty if none is known)."""
    text = term.strip()
    if text in vectors:
        return [text]
    if text.lower() in vectors:
        return [text.lower()]
    if _CJK.search(text):
        return _segment_chinese(text.replace(" ", ""), vectors)
    words = [w.lower() for w in _WORD_SPLIT.split(text) if w]
    return [w for w in words if w in vectors]


def _segment_chinese(text: str, vectors: WordVectors) -> list[str]:
    """Greedy longest-match segmentation against the vocabulary; unknown characters drop."""
    out: list[str] = []
    position = 0
    while position < len(text):
        for size in range(min(MAX_CHINESE_WORD, len(text) - position), 0, -1):
            piece = text[position:position + size]
            if piece in vectors:
                out.append(piece)
                position += size
                break
        else:
            position += 1
    return out


def term_vector(term: str, vectors: WordVectors) -> np.ndarray | None:
    words = term_words(term, vectors)
    if not words:
        return None
    return np.mean([vectors.vector(w) for w in words], axis=0)


def tuple_vector(terms: Sequence[str], vectors: WordVectors) -> np.ndarray | None:
    """Sum over i < j of (v_j - v_i); None if any term has no known word."""
    term_vectors = [term_vector(t, vectors) for t in terms]
    if any(v is None for v in term_vectors):
        return None
    total = np.zeros(vectors.dim, dtype=np.float64)
    for i in range(len(term_vectors)):
        for j in range(i + 1, len(term_vectors)):
            total += term_vectors[j] - term_vectors[i]
    return total


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norm) if norm > 0 else 0.0


class TupleVectorModel(Model):
    """Answers E-KAR tuple requests with cosines of pairwise-difference tuple vectors.

    `loglikelihoods[i]` is the cosine between the query's tuple vector and candidate i's;
    `-inf` when a candidate has a term with no known word. A query with such a term is a
    failed request (its error names the terms), which the benchmark counts as
    `out_of_vocabulary`.
    """

    def __init__(self, vectors: WordVectors):
        self.vectors = vectors
        self.name = vectors.name
        digest = hashlib.sha256(f"{vectors.name}:{len(vectors)}:{vectors.dim}".encode())
        sample = vectors.matrix[: min(len(vectors), 2048)]
        digest.update(np.ascontiguousarray(sample).tobytes())
        self._content = digest.hexdigest()[:16]

    def fingerprint(self) -> dict[str, Any]:
        return {"backend": "vectors-tuple", "model": self.vectors.name, "words": len(self.vectors),
                "dim": self.vectors.dim, "content": self._content,
                "method": "mean word vectors; sum of pairwise differences; cosine"}

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request in requests:
            query_terms = request.prompt.split(":")
            query = tuple_vector(query_terms, self.vectors)
            if query is None:
                missing = [t for t in query_terms if not term_words(t, self.vectors)]
                out.append(Response(request_id=request.id,
                                    error=f"query term(s) not in {self.vectors.name}: {missing}"))
                continue
            cosines = []
            for continuation in request.continuations:
                candidate = tuple_vector(continuation.split(":"), self.vectors)
                cosines.append(-math.inf if candidate is None else cosine(query, candidate))
            out.append(Response(request_id=request.id, loglikelihoods=tuple(cosines),
                                continuation_tokens=tuple(len(c.split(":"))
                                                          for c in request.continuations)))
        return out


def resolve_model(spec: str, method: str, options: dict[str, Any] | None = None) -> Model:
    """The model a `--model` spec names, for `method`.

    `vectors:...` specs (and the `glove` alias) load word vectors and need
    `--method embedding`; every other spec goes through the model registry.
    """
    from lexbench.models.registry import load_model, split_spec

    kind, name = split_spec(spec)
    if kind == "vectors":
        if method != "embedding":
            raise ValueError(f"{spec!r} is a static word-vector model: it runs the embedding "
                             f"baseline only; use --method embedding")
        unused = sorted(k for k, v in (options or {}).items() if v is not None)
        if unused:
            raise ValueError(f"option(s) {', '.join(unused)} do not apply to word vectors")
        return TupleVectorModel(load_vectors(name))
    if method == "embedding":
        raise ValueError(f"--method embedding needs static word vectors (--model glove, or "
                         f"--model vectors:PATH for a word2vec/GloVe/fastText file), not {spec!r}")
    return load_model(spec, options)


def check_coverage(model: Model, items: Sequence[EkarItem]) -> None:
    """Refuse a vectors run in which no query can be embedded at all (e.g. the packaged
    English GloVe on Chinese E-KAR), with a message saying what to pass instead."""
    if not isinstance(model, TupleVectorModel) or not items:
        return
    covered = sum(1 for item in items if tuple_vector(item.query, model.vectors) is not None)
    if covered == 0:
        hint = (" No Chinese vectors ship with lexbench or can be fetched offline: pass a "
                "word2vec/fastText text file as --model vectors:PATH (e.g. fastText "
                "cc.zh.300.vec or the Tencent AI Lab embeddings)."
                if items[0].language == "zh" else "")
        raise ValueError(f"none of the {len(items)} queries has vectors in {model.vectors.name}: "
                         f"every term is out of its vocabulary.{hint}")
