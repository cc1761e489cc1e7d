"""E-KAR's wordings besides the paper's (`--prompt-variant`), in E-KAR's own family: the
instruction reworded, another separator between a tuple's terms, and a preamble line; each
in the item's language, for the lettered prompt and the log-likelihood context alike (the
candidates' continuations take the same separator)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lexbench.benchmarks.ekar.prompts import INSTRUCTIONS, tuple_text
from lexbench.types import Request
from lexbench.wordings import PromptVariant, replace_required, reword

OTHER_INSTRUCTIONS = {
    "en": "Pick the candidate whose terms relate to each other as the query's terms do.",
    "zh": "请选出词语之间的关系与题干最为相似的一项。",
}
SEPARATORS = {"en": " / ", "zh": "、"}
PREAMBLES = {"en": "This is an analogy question.", "zh": "这是一道类比推理题。"}


def _instruction(item: Any, request: Request) -> Request:
    language = item.language
    text = replace_required(
        request.prompt, INSTRUCTIONS[language], OTHER_INSTRUCTIONS[language], "instruction"
    )
    return reword(request, text)


def _separator(item: Any, request: Request) -> Request:
    language = item.language

    def swap(text: str) -> str:
        for terms in (item.query, *item.choices):
            text = text.replace(tuple_text(terms, language), SEPARATORS[language].join(terms))
        return text

    prompt = swap(request.prompt)
    if prompt == request.prompt:
        raise ValueError("prompt variant 'separator': the prompt shows no term tuple to reword")
    return replace(
        request, prompt=prompt, continuations=tuple(swap(c) for c in request.continuations)
    )


def _preamble(item: Any, request: Request) -> Request:
    return reword(request, f"{PREAMBLES[item.language]}\n{request.prompt}")


VARIANTS = (
    PromptVariant("instruction", "the instruction reworded (same task)", _instruction),
    PromptVariant(
        "separator", "terms joined by ' / ' (Chinese: '、') instead of ' : '", _separator
    ),
    PromptVariant("preamble", "a line first: 'This is an analogy question.'", _preamble),
)
