"""The backend contract: a model answers whole lists of requests.

Declared, not discovered: everything the runner or a benchmark may ask of a backend is a
method here, with a default, so nothing else inspects a backend's attributes.

Required:
  `fingerprint()`   what identifies the model's answers, for the response cache
  `kinds`           the request kinds it answers (a subset of `REQUEST_KINDS`), each by the
                    method of the same name over a whole list of requests:
    `generate(requests)`       text continuation or chat reply
    `rank(requests)`           top-k next tokens, and the ranks of each request's targets
    `loglikelihood(requests)`  log P(continuation | context) per continuation
    `analogy(requests)`        typed word-vector queries (static embeddings)

Optional capabilities, with their defaults:
  `chunk_size()`        how many requests the runner hands over at once (256)
  `streams_answers()`   whether `answer_each` reports answers as they arrive (False), so
                        the runner caches each at once rather than chunk by chunk: the
                        HTTP backend per answer, the transformers backends per decoded
                        batch (`answer_by_kind` helps a backend report per kind)
  `answer_each(requests, on_response)`  answer a mixed list, calling on_response(i, r)
  `retry_counts()`      retries so far, by reason (none)
  `on_tokens`           set by the runner while its progress bar is open: a backend that
                        decodes long answers calls it with the tokens each step produced,
                        so the bar moves between answers (None: nobody is listening)
  `on_prefill`          likewise: a backend that reads long prompts before its first token
                        calls it with (share read, prompt tokens) as it goes through them
  `before_send`         set by the runner around `answer_each` when runs share a cache: a
                        backend that sends requests over a network calls it with the
                        positions it is about to send; it returns those not to send (another
                        run answered them, or is sending them: the runner has them), whose
                        answers `answer_each` then leaves out (None: send everything)
  `has_chat_template()` whether prompts can be wrapped in a chat format (False)
  `close()`             release weights, connections, servers; safe twice. Models are
                        context managers (`with load_model(spec) as model:`).

Backends receive whole lists so they can sort by length, batch and share work; they return
responses in the order of the requests. A backend is one module with `load(name, options)`
registered by an entry point in the `lexbench.models` group (see `lexbench.plugins`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lexbench.types import REQUEST_KINDS, Request, RequestKind, Response

OnResponse = Callable[[int, Response], None]
# A backend's method for one request kind that reports each answer as it is made.
KindMethod = Callable[[Sequence[Request], "OnResponse | None"], list[Response]]


class UnsupportedRequest(RuntimeError):
    """The backend cannot answer this kind of request."""


class PermanentModelError(RuntimeError):
    """An error retrying cannot fix (bad credentials, unknown model, malformed request)."""


@dataclass(frozen=True)
class RetryCounts:
    """Retries a backend has made since it was opened, and why ("HTTP 429", "timeout")."""

    total: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


class Model(ABC):
    """Base class of every backend."""

    #: Short identifier used in run-folder names, e.g. "smollm2-135m".
    name: str = "model"
    #: The request kinds this backend answers; a benchmark asks `supports(kind)`.
    kinds: frozenset[RequestKind] = frozenset()
    #: Set by the runner while its bar is open; a decoding backend reports tokens to it.
    on_tokens: Callable[[int], None] | None = None
    #: Likewise: (share of the prompts read, 0..1; their tokens) while a batch is read.
    on_prefill: Callable[[float, int], None] | None = None
    #: Set by the runner while runs share a cache; a sending backend asks it before sending.
    before_send: Callable[[Sequence[int]], set[int]] | None = None

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """What identifies this model's answers: backend, weights (name + revision or file
        hash), and any setting that changes outputs. Never a secret such as an API key."""

    # ------------------------------------------------------------ request kinds

    def supports(self, kind: str) -> bool:
        return kind in self.kinds

    def _unsupported(self, kind: str, what: str) -> UnsupportedRequest:
        known = ", ".join(k for k in REQUEST_KINDS if k in self.kinds) or "none"
        return UnsupportedRequest(
            f"backend {type(self).__name__} ({self.name}) cannot {what} (it answers: {known})"
        )

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        raise self._unsupported("generate", "generate text")

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        raise self._unsupported("rank", "rank next tokens")

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        raise self._unsupported("loglikelihood", "score continuations")

    def analogy(self, requests: Sequence[Request]) -> list[Response]:
        raise self._unsupported("analogy", "answer word-vector analogy queries")

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """Dispatch a mixed list by kind, keeping the input order."""
        methods = {
            "generate": self.generate,
            "rank": self.rank,
            "loglikelihood": self.loglikelihood,
            "analogy": self.analogy,
        }
        return answer_by_kind(
            self, requests, {kind: _quiet(method) for kind, method in methods.items()}, None
        )

    # ------------------------------------------------------------ optional capabilities

    def chunk_size(self) -> int:
        """Requests per hand-over from the runner: a crash loses at most one chunk of a
        backend that does not stream its answers."""
        return 256

    def streams_answers(self) -> bool:
        """True when `answer_each` reports each answer as it arrives."""
        return False

    def answer_each(
        self, requests: Sequence[Request], on_response: OnResponse | None = None
    ) -> list[Response]:
        """Answer a mixed list, calling `on_response(position, response)` for each answer.
        The default answers the whole list, then reports; streaming backends override it."""
        responses = self.answer(requests)
        if on_response is not None:
            for position, response in enumerate(responses):
                on_response(position, response)
        return responses

    def retry_counts(self) -> RetryCounts:
        return RetryCounts()

    def has_chat_template(self) -> bool:
        """True for chat (instruct) models that expect their chat format: benchmarks whose
        measured default is the chat format then send `Request.chat=True`."""
        return False

    def describe(self) -> dict[str, Any]:
        """What goes into a run's config.json (the fingerprint plus readable extras)."""
        return {
            "name": self.name,
            **self.fingerprint(),
            "kinds": [k for k in REQUEST_KINDS if k in self.kinds],
        }

    def close(self) -> None:  # noqa: B027 - an optional hook: most backends hold nothing
        """Release resources (servers, file handles). Safe to call twice."""

    def __enter__(self) -> Model:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _shifted(on_response: OnResponse, positions: list[int]) -> OnResponse:
    """`on_response` for a sub-list: its position i is `positions[i]` in the whole list."""
    return lambda position, response: on_response(positions[position], response)


def _quiet(method: Callable[[Sequence[Request]], list[Response]]) -> KindMethod:
    return lambda requests, on_response: method(requests)


def answer_by_kind(
    model: Model,
    requests: Sequence[Request],
    methods: Mapping[str, KindMethod],
    on_response: OnResponse | None,
) -> list[Response]:
    """Answer a mixed list with one method per kind, keeping the input order. Each method
    may report answers as it makes them (`report(position in its own list, response)`);
    they reach `on_response` at their position in `requests`. A backend that decodes in
    batches streams its answers with this (`answer_each`), so each batch is cached at once.
    """
    out: list[Response | None] = [None] * len(requests)
    for kind in REQUEST_KINDS:
        positions = [i for i, r in enumerate(requests) if r.kind == kind]
        if not positions:
            continue
        method = methods.get(kind)
        if method is None:
            raise model._unsupported(kind, f"answer {kind} requests")
        report: OnResponse | None = None
        if on_response is not None:
            report = _shifted(on_response, positions)

        responses = method([requests[i] for i in positions], report)
        if len(responses) != len(positions):
            raise RuntimeError(
                f"{type(model).__name__}.{kind} returned {len(responses)} responses "
                f"for {len(positions)} requests"
            )
        for i, response in zip(positions, responses):
            out[i] = response
    return [r for r in out if r is not None]
