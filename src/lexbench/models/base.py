"""The backend contract: a model answers whole lists of requests.

A backend subclasses `Model` and overrides the request kinds it supports (`generate`, `rank`,
`loglikelihood`); the others raise `UnsupportedRequest` with a message naming the backend.
`fingerprint()` is the one required method: it identifies the model's weights and settings
for the response cache, so two backends that would answer differently never share entries.

Backends receive the whole list so they can sort by length, batch and share work; they
return responses in the order of the requests.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from lexbench.types import Request, Response


class UnsupportedRequest(RuntimeError):
    """The backend cannot answer this kind of request."""


class PermanentModelError(RuntimeError):
    """An error retrying cannot fix (bad credentials, unknown model, malformed request)."""


class Model(ABC):
    """Base class of every backend."""

    #: Short identifier used in run-folder names, e.g. "smollm2-135m".
    name: str = "model"

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """What identifies this model's answers: backend, weights (name + revision or file
        hash), and any setting that changes outputs. Never a secret such as an API key."""

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        raise UnsupportedRequest(f"backend {type(self).__name__} ({self.name}) cannot generate text")

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        raise UnsupportedRequest(
            f"backend {type(self).__name__} ({self.name}) cannot rank next tokens")

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        raise UnsupportedRequest(
            f"backend {type(self).__name__} ({self.name}) cannot score continuations")

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        """Dispatch a mixed list by kind, keeping the input order."""
        out: list[Response | None] = [None] * len(requests)
        for kind in ("generate", "rank", "loglikelihood"):
            positions = [i for i, r in enumerate(requests) if r.kind == kind]
            if not positions:
                continue
            method = getattr(self, kind)
            responses = method([requests[i] for i in positions])
            if len(responses) != len(positions):
                raise RuntimeError(
                    f"{type(self).__name__}.{kind} returned {len(responses)} responses "
                    f"for {len(positions)} requests")
            for i, response in zip(positions, responses):
                out[i] = response
        return [r for r in out if r is not None]

    def describe(self) -> dict[str, Any]:
        """What goes into a run's config.json (the fingerprint plus readable extras)."""
        return {"name": self.name, **self.fingerprint()}

    def close(self) -> None:
        """Release resources (servers, file handles). Safe to call twice."""
