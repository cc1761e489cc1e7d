"""One prompt's HTTP work, the unit every other part of the OpenAI-compatible backend passes
around: `plan` makes calls, `send` and `flight` send them (alone, or several completions
prompts to a request when their `batch_key`s are equal), and each call's `parse` reads the
`choice` its prompt got back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The two endpoints, relative to the base URL.
CHAT = "chat/completions"
COMPLETIONS = "completions"


class BatchShapeError(ValueError):
    """A batched answer that cannot be split per prompt (the server's batching is unusable)."""


@dataclass(eq=False)
class Call:
    """One prompt's HTTP work: endpoint (relative to the base URL), the JSON body it sends
    alone, how to read its `choice`, and whether it may share a request (`batch_key`, for
    completions only). `attempts` is the sender's bookkeeping."""

    endpoint: str
    body: dict[str, Any]
    parse: Callable[[dict[str, Any], dict[str, Any] | None], Any]
    batch_key: tuple[Any, ...] | None = None
    batch_extra: dict[str, Any] = field(default_factory=dict)
    index: int = 0
    attempts: int = 0
