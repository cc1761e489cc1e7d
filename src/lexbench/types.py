"""The values that flow through the pipeline: Item -> Request -> Response -> Score.

All are small frozen dataclasses that serialise to plain JSON (`to_dict`), so a run folder
can be re-read and re-scored without the code that made it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Literal

RequestKind = Literal["generate", "rank", "loglikelihood", "analogy"]
#: Every request kind, in the order a backend answers a mixed list.
REQUEST_KINDS: tuple[RequestKind, ...] = ("generate", "rank", "loglikelihood", "analogy")

#: How word vectors solve a : b :: c : ? (see lexbench.models.embeddings).
VECTOR_METHODS = ("3cosadd", "3cosmul", "pairdiff", "scan-paper")
# Methods whose published form excludes the question words from the answers.
EXCLUDING_METHODS = frozenset({"3cosadd", "3cosmul", "pairdiff"})


class Failure(str, Enum):  # noqa: UP042 - str() of a member stays 'Failure.X'
    """Why a response carries no answer: a typed value, never a prefix of the error text.

    `REQUEST_FAILED`: the backend could not answer (server down, retries exhausted).
    `OUT_OF_VOCABULARY`: a word of the question is unknown to the model (word vectors);
    benchmarks decide whether such an item counts as wrong or is left out."""

    REQUEST_FAILED = "request_failed"
    OUT_OF_VOCABULARY = "out_of_vocabulary"


# Built once: `json.dumps` with options builds a new encoder on every call, and the request
# path makes several canonical JSON texts per prompt.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# The string encoder that encoder uses: JSON text of one str, exactly as inside a document.
_json_text = json.encoder.encode_basestring


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same value always gives the same bytes."""
    return _CANONICAL.encode(value)


def content_hash(value: Any, length: int = 16) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:length]


@dataclass(frozen=True)
class Decoding:
    """How to decode a `generate` request.

    `stop_at_word_end` ends a sequence as soon as its first whole word is complete (the
    LAMBDA `word` protocol); `max_new_tokens` still caps it.
    """

    max_new_tokens: int = 16
    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    stop_at_word_end: bool = False

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0

    def to_dict(self) -> dict[str, Any]:
        # Written out, not `asdict`: every generate request's cache key is made from it, and
        # asdict's recursive copy was a third of the client's time for 10^5 prompts.
        return {
            "max_new_tokens": self.max_new_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "stop": list(self.stop),
            "seed": self.seed,
            "stop_at_word_end": self.stop_at_word_end,
        }


# canonical_json(decoding.to_dict()) by the fields' repr, which tells 0 from 0.0 and False
# (equal, and equal in hash, but written differently): a run shares a few decodings.
_DECODING_JSON: dict[str, str] = {}


def _decoding_json(decoding: Decoding) -> str:
    spelled = repr(
        (
            decoding.max_new_tokens,
            decoding.temperature,
            decoding.top_p,
            decoding.top_k,
            decoding.stop,
            decoding.seed,
            decoding.stop_at_word_end,
        )
    )
    text = _DECODING_JSON.get(spelled)
    if text is None:
        if len(_DECODING_JSON) >= 4096:
            _DECODING_JSON.clear()
        text = _DECODING_JSON[spelled] = canonical_json(decoding.to_dict())
    return text


def _check_method(method: str) -> None:
    if method not in VECTOR_METHODS:
        raise ValueError(
            f"unknown analogy method {method!r}; choose from {', '.join(VECTOR_METHODS)}"
        )


@dataclass(frozen=True)
class AnalogyQuery:
    """a : b :: c : ?  with the method to solve it and whether question words may answer.

    `exclude_question_words=None` takes the method's own default (True except scan-paper).
    """

    a: str
    b: str
    c: str
    method: str = "3cosadd"
    exclude_question_words: bool | None = None

    def __post_init__(self) -> None:
        _check_method(self.method)
        for field_name in ("a", "b", "c"):
            if not str(getattr(self, field_name)).strip():
                raise ValueError(f"analogy query: {field_name} is empty")
        if self.exclude_question_words is None:
            object.__setattr__(self, "exclude_question_words", self.method in EXCLUDING_METHODS)


@dataclass(frozen=True)
class PairChoiceQuery:
    """a : b :: which of these c : d pairs? (SAT-style multiple choice), scored with the
    method's own formula for d given a, b, c (pairdiff by default)."""

    a: str
    b: str
    choices: tuple[tuple[str, str], ...]
    method: str = "pairdiff"

    def __post_init__(self) -> None:
        _check_method(self.method)
        if len(self.choices) < 2:
            raise ValueError(
                f"a multiple-choice query needs at least two choices, got {len(self.choices)}"
            )
        object.__setattr__(self, "choices", tuple((str(c), str(d)) for c, d in self.choices))


@dataclass(frozen=True)
class TupleChoiceQuery:
    """Which candidate tuple stands in the same relation as `query`? (E-KAR's static-vector
    baseline: a tuple's vector is the sum of its terms' pairwise differences, candidates are
    scored by cosine with the query's.)"""

    query: tuple[str, ...]
    candidates: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        if len(self.query) < 2:
            raise ValueError(f"a tuple query needs at least two terms, got {self.query!r}")
        if len(self.candidates) < 2:
            raise ValueError(
                f"a tuple query needs at least two candidates, got {len(self.candidates)}"
            )
        object.__setattr__(self, "query", tuple(str(t) for t in self.query))
        object.__setattr__(
            self, "candidates", tuple(tuple(str(t) for t in c) for c in self.candidates)
        )


VectorQuery = AnalogyQuery | PairChoiceQuery | TupleChoiceQuery
_QUERY_TYPES: dict[str, type] = {
    "analogy": AnalogyQuery,
    "pair_choice": PairChoiceQuery,
    "tuple_choice": TupleChoiceQuery,
}


def query_to_dict(query: VectorQuery) -> dict[str, Any]:
    """A typed query as plain JSON (`type` names the class), stable for cache keys."""
    name = next(k for k, v in _QUERY_TYPES.items() if isinstance(query, v))
    return {"type": name, **json.loads(json.dumps(asdict(query)))}


def query_from_dict(data: dict[str, Any]) -> VectorQuery:
    body = dict(data)
    kind = body.pop("type", None)
    if kind not in _QUERY_TYPES:
        raise ValueError(f"unknown analogy query type {kind!r}; known: {', '.join(_QUERY_TYPES)}")
    if kind == "pair_choice":
        body["choices"] = tuple(tuple(c) for c in body["choices"])
    elif kind == "tuple_choice":
        body["query"] = tuple(body["query"])
        body["candidates"] = tuple(tuple(c) for c in body["candidates"])
    return _QUERY_TYPES[kind](**body)


@dataclass(frozen=True)
class Request:
    """One thing to ask a model.

    * `generate`: continue `prompt` (or reply to `messages` when `chat` is true).
    * `rank`: the `top_k` most likely next tokens after `prompt`, with log-probabilities, and
      the rank of each word in `targets` among them (each backend matches a word its own
      way: first token id, token text, the mask position). A masked LM puts its mask
      between `prompt` and `answer_suffix` ("If a is like b, then c is like" [MASK] ".").
    * `loglikelihood`: log P(continuation | prompt) for each of `continuations`.
    * `analogy`: a typed `query` for static word vectors (ranked vocabulary words, with the
      ranks of `targets`; or one score per choice for the choice queries).
    """

    id: str
    kind: RequestKind
    prompt: str = ""
    messages: tuple[tuple[str, str], ...] = ()  # (role, content) pairs for chat models
    chat: bool = False
    decoding: Decoding = field(default_factory=Decoding)
    top_k: int = 10
    continuations: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    answer_suffix: str = ""
    query: VectorQuery | None = None

    def __post_init__(self) -> None:
        if self.kind not in REQUEST_KINDS:
            raise ValueError(
                f"request {self.id}: unknown kind {self.kind!r}; known: {', '.join(REQUEST_KINDS)}"
            )
        if self.kind == "analogy" and self.query is None:
            raise ValueError(f"request {self.id}: an analogy request needs a typed query")

    def cache_key_payload(self) -> dict[str, Any]:
        """Everything that changes the answer, and nothing that does not (not the id)."""
        payload: dict[str, Any] = {"kind": self.kind, "prompt": self.prompt}
        if self.chat:
            payload["chat"] = True
            payload["messages"] = [list(m) for m in self.messages]
        if self.kind == "generate":
            payload["decoding"] = self.decoding.to_dict()
        elif self.kind in ("rank", "analogy"):
            payload["top_k"] = self.top_k
            payload["targets"] = list(self.targets)
            if self.answer_suffix:
                payload["answer_suffix"] = self.answer_suffix
            if self.query is not None:
                payload["query"] = query_to_dict(self.query)
        else:
            payload["continuations"] = list(self.continuations)
        return payload

    def cache_key_json(self) -> str:
        """`canonical_json(self.cache_key_payload())`: the text a cache key hashes and a
        cache row stores. A plain generate request (most of them) is written directly, its
        keys in sorted order, each part as the encoder writes it (pinned in
        tests/run/test_cache_pinned.py)."""
        if self.kind == "generate" and not self.chat and isinstance(self.prompt, str):
            return (
                f'{{"decoding":{_decoding_json(self.decoding)},"kind":"generate",'
                f'"prompt":{_json_text(self.prompt)}}}'
            )
        return canonical_json(self.cache_key_payload())


@dataclass(frozen=True)
class RankedToken:
    token_id: int
    text: str
    logprob: float


@dataclass(frozen=True)
class Response:
    """A model's answer to one request. On failure `error` says why in words and `failure`
    classifies it (the rest stays empty).

    `target_ranks[i]` is the 1-based rank of the request's `targets[i]` among `ranked`
    (None: not among them). `target_known[i]` is False when the model cannot produce that
    word at all (a word-vector vocabulary without it); empty means every target is known.
    `choice_scores` answer the choice queries of `analogy` requests (higher is better)."""

    request_id: str
    text: str = ""
    ranked: tuple[RankedToken, ...] = ()
    loglikelihoods: tuple[float, ...] = ()
    # Token counts of each continuation, so scores can be length-normalised later.
    continuation_tokens: tuple[int, ...] = ()
    generated_tokens: int = 0
    error: str | None = None
    failure: Failure | None = None
    target_ranks: tuple[int | None, ...] = ()
    target_known: tuple[bool, ...] = ()
    choice_scores: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.error is not None and self.failure is None:
            object.__setattr__(self, "failure", Failure.REQUEST_FAILED)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request_id": self.request_id,
            "text": self.text,
            "ranked": [[t.token_id, t.text, t.logprob] for t in self.ranked],
            "loglikelihoods": list(self.loglikelihoods),
            "continuation_tokens": list(self.continuation_tokens),
            "generated_tokens": self.generated_tokens,
            "error": self.error,
        }
        # Newer fields only when set, so older cached answers and new ones read alike.
        if self.failure is not None:
            out["failure"] = self.failure.value
        if self.target_ranks:
            out["target_ranks"] = list(self.target_ranks)
        if self.target_known:
            out["target_known"] = list(self.target_known)
        if self.choice_scores:
            out["choice_scores"] = list(self.choice_scores)
        return out

    def to_json(self) -> str:
        """`canonical_json(self.to_dict())`, as a cache row stores it. A plain text answer
        (most of them) is written directly, its keys in sorted order (pinned in
        tests/run/test_cache_pinned.py)."""
        if (
            self.error is None
            and self.failure is None
            and type(self.generated_tokens) is int
            and isinstance(self.text, str)
            and isinstance(self.request_id, str)
            and not (self.ranked or self.loglikelihoods or self.continuation_tokens)
            and not (self.target_ranks or self.target_known or self.choice_scores)
        ):
            return (
                '{"continuation_tokens":[],"error":null,'
                f'"generated_tokens":{self.generated_tokens},"loglikelihoods":[],"ranked":[],'
                f'"request_id":{_json_text(self.request_id)},"text":{_json_text(self.text)}}}'
            )
        return canonical_json(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Response:
        failure = data.get("failure")
        return cls(
            request_id=data["request_id"],
            text=data.get("text", ""),
            ranked=tuple(
                RankedToken(int(i), str(t), float(lp)) for i, t, lp in data.get("ranked", [])
            ),
            loglikelihoods=tuple(float(x) for x in data.get("loglikelihoods", [])),
            continuation_tokens=tuple(int(x) for x in data.get("continuation_tokens", [])),
            generated_tokens=int(data.get("generated_tokens", 0)),
            error=data.get("error"),
            failure=Failure(failure) if failure else None,
            target_ranks=tuple(None if r is None else int(r) for r in data.get("target_ranks", [])),
            target_known=tuple(bool(k) for k in data.get("target_known", [])),
            choice_scores=tuple(float(x) for x in data.get("choice_scores", [])),
        )


@dataclass(frozen=True)
class Score:
    """How one item fared. `correct` is None when the item could not be scored at all."""

    item_id: str
    correct: bool | None
    value: float
    answer: str | None
    error_class: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
