"""The values that flow through the pipeline: Item -> Request -> Response -> Score.

All are small frozen dataclasses that serialise to plain JSON (`to_dict`), so a run folder
can be re-read and re-scored without the code that made it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

RequestKind = Literal["generate", "rank", "loglikelihood"]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same value always gives the same bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
        return {**asdict(self), "stop": list(self.stop)}


@dataclass(frozen=True)
class Request:
    """One thing to ask a model.

    * `generate`: continue `prompt` (or reply to `messages` when `chat` is true).
    * `rank`: the `top_k` most likely next tokens after `prompt`, with log-probabilities.
    * `loglikelihood`: log P(continuation | prompt) for each of `continuations`.
    """

    id: str
    kind: RequestKind
    prompt: str = ""
    messages: tuple[tuple[str, str], ...] = ()   # (role, content) pairs for chat models
    chat: bool = False
    decoding: Decoding = field(default_factory=Decoding)
    top_k: int = 10
    continuations: tuple[str, ...] = ()

    def cache_key_payload(self) -> dict[str, Any]:
        """Everything that changes the answer, and nothing that does not (not the id)."""
        payload: dict[str, Any] = {"kind": self.kind, "prompt": self.prompt}
        if self.chat:
            payload["chat"] = True
            payload["messages"] = [list(m) for m in self.messages]
        if self.kind == "generate":
            payload["decoding"] = self.decoding.to_dict()
        elif self.kind == "rank":
            payload["top_k"] = self.top_k
        else:
            payload["continuations"] = list(self.continuations)
        return payload


@dataclass(frozen=True)
class RankedToken:
    token_id: int
    text: str
    logprob: float


@dataclass(frozen=True)
class Response:
    """A model's answer to one request. `error` is set (and the rest empty) on failure."""

    request_id: str
    text: str = ""
    ranked: tuple[RankedToken, ...] = ()
    loglikelihoods: tuple[float, ...] = ()
    # Token counts of each continuation, so scores can be length-normalised later.
    continuation_tokens: tuple[int, ...] = ()
    generated_tokens: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "text": self.text,
            "ranked": [[t.token_id, t.text, t.logprob] for t in self.ranked],
            "loglikelihoods": list(self.loglikelihoods),
            "continuation_tokens": list(self.continuation_tokens),
            "generated_tokens": self.generated_tokens,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Response:
        return cls(
            request_id=data["request_id"],
            text=data.get("text", ""),
            ranked=tuple(RankedToken(int(i), str(t), float(lp)) for i, t, lp in data.get("ranked", [])),
            loglikelihoods=tuple(float(x) for x in data.get("loglikelihoods", [])),
            continuation_tokens=tuple(int(x) for x in data.get("continuation_tokens", [])),
            generated_tokens=int(data.get("generated_tokens", 0)),
            error=data.get("error"),
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
