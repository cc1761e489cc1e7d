"""What a hosted API refused, and how request bodies change to suit it.

Hosted APIs refuse some parameters for some models. `Adaptations` holds what the server
said to change (`max_completion_tokens` instead of `max_tokens`, sampling parameters to
leave out, the most log-probabilities it returns), learned from its 400 messages by
`learn_from_refusal`; the sender applies them to every body it sends from then on, and
`describe()` records them in the run's config.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lexbench.models.openai.call import CHAT

# Sampling parameters a server may refuse for a model and that can be left out (each
# said once, and recorded in the run's config.json through describe()).
DROPPABLE = ("temperature", "top_p", "top_k", "seed", "stop")


@dataclass
class Adaptations:
    """What a server asked the backend to change in its requests (learned from its 400s)."""

    token_parameter: str = "max_tokens"
    dropped: set[str] = field(default_factory=set)
    # The most log-probabilities the server returns, per endpoint.
    logprobs_cap: dict[str, int] = field(default_factory=dict)

    def apply(self, body: dict[str, Any], endpoint: str) -> dict[str, Any]:
        """`body` as this server takes it (the same dict when nothing changes)."""
        if self.token_parameter == "max_tokens" and not self.dropped and not self.logprobs_cap:
            return body
        out = dict(body)
        if self.token_parameter != "max_tokens" and "max_tokens" in out:
            out[self.token_parameter] = out.pop("max_tokens")
        for name in self.dropped:
            out.pop(name, None)
        cap = self.logprobs_cap.get(endpoint)
        if cap is not None:
            key = "top_logprobs" if endpoint == CHAT else "logprobs"
            if (
                isinstance(out.get(key), int)
                and not isinstance(out.get(key), bool)
                and out[key] > cap
            ):
                out[key] = cap
        return out

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.token_parameter != "max_tokens":
            out["token_parameter"] = self.token_parameter
        if self.dropped:
            out["dropped_parameters"] = sorted(self.dropped)
        if self.logprobs_cap:
            out["logprobs_cap"] = dict(sorted(self.logprobs_cap.items()))
        return out


_NAMED = re.compile(
    r"""(?:unsupported (?:parameter|value)|unrecognized request argument(?: supplied)?|"""
    r"""not supported|extra (?:inputs|fields?) (?:are|is) not permitted)"""
    r"""[^'"`\w]*['"`]?(\w+)""",
    re.IGNORECASE,
)
_LIMIT = re.compile(
    r"(?:<=|≤|at most|maximum(?: value)?(?: of)?|max(?:imum)? allowed:?|"
    r"less than or equal to|between 0 and)\s*(\d+)",
    re.IGNORECASE,
)


def learn_from_refusal(
    message: str, body: dict[str, Any], endpoint: str, adaptations: Adaptations
) -> str | None:
    """Adapt to a 400 that names something this backend can change; returns the one-line
    note to tell the user, or None when the refusal is about something else.

    >>> a = Adaptations()
    >>> learn_from_refusal("Unsupported parameter: 'max_tokens' is not supported with this "
    ...     "model. Use 'max_completion_tokens' instead.", {"max_tokens": 2}, "chat/completions", a)
    "the model wants 'max_completion_tokens' instead of 'max_tokens'; sending that"
    """
    lowered = message.lower()
    sent = adaptations.apply(body, endpoint)
    if (
        "max_completion_tokens" in lowered
        and "max_tokens" in sent
        and adaptations.token_parameter == "max_tokens"
    ):
        adaptations.token_parameter = "max_completion_tokens"
        return "the model wants 'max_completion_tokens' instead of 'max_tokens'; sending that"
    key = "top_logprobs" if endpoint == CHAT else "logprobs"
    if key in lowered and isinstance(sent.get(key), int) and not isinstance(sent.get(key), bool):
        limit = _LIMIT.search(message)
        if limit is not None and 0 < int(limit.group(1)) < sent[key]:
            adaptations.logprobs_cap[endpoint] = int(limit.group(1))
            return (
                f"the server returns at most {limit.group(1)} log-probabilities on "
                f"/{endpoint} (it refused {sent[key]}); ranks past {limit.group(1)} count "
                "as not found"
            )
    for match in _NAMED.finditer(message):
        name = match.group(1)
        if name in DROPPABLE and name in sent and name not in adaptations.dropped:
            adaptations.dropped.add(name)
            consequence = (
                " — the model samples at its own default temperature, so answers are not greedy"
                if name == "temperature"
                else ""
            )
            return f"the model refuses '{name}' ({sent[name]!r}); leaving it out{consequence}"
    return None
