"""A scripted model backend for command-line tests only (never a product feature): the
`scripted:NAME` spec, registered by the `scripted_backend` fixture, answers every request
kind from a hash of the request, so a command's run folders are the same on every machine
and every run. `scripted:NAME-chat` also declares a chat template. Two names stand for the
runs a report must still read right: `scripted:wrong...` answers no item right (a word no
benchmark asks for, ranked words that are never a target, no finite log-likelihood), and
`scripted:down...` fails every request.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from lexbench.terminal import strip_url_credentials
from lexbench.types import Request
from mock_model import ScriptedModel

WORDS = (" cold", " hot\n", " big", " A", " B\nbecause", " king", "<answer>{1, 2}</answer>")
RANKED = (" king", " queen", " cold", " hot", " warrior", " sun", " nucleus", " atom")


def _pick(text: str, choices: int) -> int:
    return hashlib.sha256(text.encode("utf-8")).digest()[0] % choices


def _text(request: Request) -> str:
    return request.prompt + "".join(f"{r}:{c}" for r, c in request.messages)


def reply(request: Request) -> str:
    return WORDS[_pick(_text(request), len(WORDS))]


def ranked(request: Request) -> list[tuple[int, str, float]]:
    start = _pick(_text(request), len(RANKED))
    return [(i, RANKED[(start + i) % len(RANKED)], -float(i + 1)) for i in range(len(RANKED))]


def loglikelihoods(request: Request) -> list[float]:
    return [-float(_pick(request.prompt + c, 50)) / 7 for c in request.continuations]


def wrong_reply(request: Request) -> str:
    return " zzzz"


def wrong_ranked(request: Request) -> list[tuple[int, str, float]]:
    return [(i, f" zzzz{i}", -float(i + 1)) for i in range(len(RANKED))]


def wrong_loglikelihoods(request: Request) -> list[float]:
    return [-math.inf for _ in request.continuations]  # no choice can be picked


def every_request(request: Request) -> bool:
    return True


class ScriptedBackend(ScriptedModel):
    def __init__(self, name: str, options: dict[str, Any] | None = None):
        wrong = name.startswith("wrong")
        super().__init__(
            wrong_reply if wrong else reply,
            name=name,
            ranked=wrong_ranked if wrong else ranked,
            loglikelihoods=wrong_loglikelihoods if wrong else loglikelihoods,
            fail_on=every_request if name.startswith("down") else None,
        )
        # Recorded as a real backend records its settings (credentials in a URL removed);
        # they change no answer, so the fingerprint (and the run folder) stays the same.
        self.options = {
            k: strip_url_credentials(v) if isinstance(v, str) else v
            for k, v in (options or {}).items()
        }

    def has_chat_template(self) -> bool:
        return self.name.endswith("chat")

    def describe(self) -> dict[str, Any]:
        described = super().describe()
        return {**described, "options": self.options} if self.options else described


def load(name: str, options: dict[str, Any]) -> ScriptedBackend:
    return ScriptedBackend(name, options)
