"""A scripted model for unit tests only (never a product feature).

It answers from a function of the request and records every request it was sent, so tests
can check what reached the "model" (caching, resume, batching) without loading weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lexbench.models.base import Model
from lexbench.types import RankedToken, Request, Response


class ScriptedModel(Model):
    def __init__(
        self,
        reply: Callable[[Request], str] | dict[str, str] | None = None,
        *,
        name: str = "scripted",
        ranked: Callable[[Request], Sequence[tuple[int, str, float]]] | None = None,
        loglikelihoods: Callable[[Request], Sequence[float]] | None = None,
        fail_on: Callable[[Request], bool] | None = None,
        target_ranks: Callable[[Request, list[int]], tuple[int | None, ...]] | None = None,
    ):
        self.name = name
        # Declared like any backend: it answers the kinds it was given a script for.
        self.kinds = frozenset(
            {"generate"}
            | ({"rank"} if ranked else set())
            | ({"loglikelihood"} if loglikelihoods else set())
        )
        self._target_ranks = target_ranks
        self._reply = reply
        self._ranked = ranked
        self._loglikelihoods = loglikelihoods
        self._fail_on = fail_on
        self.sent: list[Request] = []
        self.calls = 0

    def fingerprint(self) -> dict[str, Any]:
        return {"backend": "scripted", "model": self.name}

    def _text(self, request: Request) -> str:
        if callable(self._reply):
            return self._reply(request)
        if isinstance(self._reply, dict):
            return self._reply.get(request.id, "")
        return ""

    def _answer(self, request: Request, build: Callable[[Request], Response]) -> Response:
        self.sent.append(request)
        if self._fail_on is not None and self._fail_on(request):
            return Response(request_id=request.id, error="scripted failure")
        return build(request)

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        self.calls += 1
        return [
            self._answer(r, lambda q: Response(request_id=q.id, text=self._text(q)))
            for r in requests
        ]

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        self.calls += 1
        if self._ranked is None:
            return super().rank(requests)
        return [self._answer(r, self._ranked_response) for r in requests]

    def _ranked_response(self, request: Request) -> Response:
        ranked = tuple(RankedToken(*t) for t in self._ranked(request))  # type: ignore[misc]
        if self._target_ranks is not None:
            ranks = self._target_ranks(request, [t.token_id for t in ranked])
        else:  # whole words: a target's rank is where its text appears
            texts = [t.text.strip() for t in ranked]
            ranks = tuple(texts.index(w) + 1 if w in texts else None for w in request.targets)
        return Response(request_id=request.id, ranked=ranked, target_ranks=ranks)

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        self.calls += 1
        if self._loglikelihoods is None:
            return super().loglikelihood(requests)
        return [
            self._answer(
                r,
                lambda q: Response(
                    request_id=q.id,
                    loglikelihoods=tuple(self._loglikelihoods(q)),
                    continuation_tokens=tuple(1 for _ in q.continuations),
                ),
            )
            for r in requests
        ]
