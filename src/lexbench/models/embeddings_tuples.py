"""Tuple queries on word vectors (the static-vector baseline of tuple analogies): a term's
vector (the term itself, its words, or a greedy longest-match segmentation for Chinese,
whose word vectors are word-segmented), a tuple's vector (the sum of its terms' pairwise
differences) and the cosine of each candidate tuple with the query's. `vectors` is a
loaded `WordVectors`."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from lexbench.types import TupleChoiceQuery

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TERM_SPLIT = re.compile(r"[\s\-_/]+")
MAX_CHINESE_WORD = 6


def term_words(vectors: Any, term: str) -> list[str]:
    """The in-vocabulary words a term's vector is the mean of (empty if none is known):
    the term itself, lower-cased, a greedy longest-match segmentation for Chinese (word
    vectors for Chinese are word-segmented), else its words."""
    text = term.strip()
    if text in vectors:
        return [text]
    if text.lower() in vectors:
        return [text.lower()]
    if _CJK.search(text):
        return segment_chinese(vectors, text.replace(" ", ""))
    return [w for w in (w.lower() for w in _TERM_SPLIT.split(text) if w) if w in vectors]


def segment_chinese(vectors: Any, text: str) -> list[str]:
    out: list[str] = []
    position = 0
    while position < len(text):
        for size in range(min(MAX_CHINESE_WORD, len(text) - position), 0, -1):
            piece = text[position : position + size]
            if piece in vectors:
                out.append(piece)
                position += size
                break
        else:
            position += 1  # an unknown character drops
    return out


def tuple_vector(vectors: Any, terms: Sequence[str]) -> np.ndarray | None:
    """Sum over i < j of (v_j − v_i) of the terms' mean word vectors; None if a term has
    no known word. For two terms that is b − a; for three, 2(c − a)."""
    term_vectors = []
    for term in terms:
        words = term_words(vectors, term)
        if not words:
            return None
        term_vectors.append(np.mean([vectors.vector(w) for w in words], axis=0))
    total = np.zeros(vectors.dim, dtype=np.float64)
    for i in range(len(term_vectors)):
        for j in range(i + 1, len(term_vectors)):
            total += term_vectors[j] - term_vectors[i]
    return total


def choose_tuple(vectors: Any, query: TupleChoiceQuery) -> tuple[float, ...] | str:
    """Cosine of each candidate's tuple vector with the query's (-inf when a candidate
    term is unknown), or an error naming the unknown query terms."""
    anchor = tuple_vector(vectors, query.query)
    if anchor is None:
        missing = [t for t in query.query if not term_words(vectors, t)]
        return f"out of vocabulary: query term(s) {missing}"
    scores = []
    for candidate in query.candidates:
        vector = tuple_vector(vectors, candidate)
        norm = float(np.linalg.norm(anchor) * np.linalg.norm(vector)) if vector is not None else 0.0
        scores.append(
            -math.inf if vector is None else (float(anchor @ vector) / norm if norm > 0 else 0.0)
        )
    return tuple(scores)
