"""LAMBDA's wordings besides the paper's (`--prompt-variant`): the same two support pairs,
the same query and the same one-word answer, asked with another answer guard, another
separator, or an instruction line first. Each applies to both prompt styles."""

from __future__ import annotations

from typing import Any

from lexbench.benchmarks.lambda_.prompts import ANSWER_GUARD
from lexbench.types import Request
from lexbench.wordings import PromptVariant, replace_required, reword

OTHER_GUARD = "Reply with the single word that fills the last line, and nothing else."
INSTRUCTION = "Each line pairs two words related in the same way."


def _guard(item: Any, request: Request) -> Request:
    return reword(request, replace_required(request.prompt, ANSWER_GUARD, OTHER_GUARD, "guard"))


def _arrow(item: Any, request: Request) -> Request:
    text = replace_required(request.prompt, " : ", " -> ", "arrow")
    # The completion style ends at "E :", where the answer goes.
    return reword(request, text[: -len(" :")] + " ->" if text.endswith(" :") else text)


def _instruction(item: Any, request: Request) -> Request:
    return reword(request, f"{INSTRUCTION}\n{request.prompt}")


VARIANTS = (
    PromptVariant("guard", f"the answer guard reworded: {OTHER_GUARD!r}", _guard),
    PromptVariant("arrow", "pairs written 'a -> b' instead of 'a : b'", _arrow),
    PromptVariant("instruction", f"an instruction line first: {INSTRUCTION!r}", _instruction),
)
