"""Wordings of the analogy template besides SCAN's "If a is like b, then c is like d."
(`--prompt-variant`), for SCAN and the classic sets: "a is to b as c is to d", the
separator form "a : b :: c : d", and an instruction line first. Shots are reworded with
the query, and the answer is still the next word (ranking) or the same choice
(multiple choice)."""

from __future__ import annotations

import re
from typing import Any

from lexbench.types import Request
from lexbench.wordings import PromptVariant, reword

INSTRUCTION = "Complete the analogy."
# "If a is like b, then c is like" (a shot goes on " d."); the lazy groups stop at the
# template's own words, which no analogy term contains.
_TEMPLATE = re.compile(r"If (.+?) is like (.+?), then (.+?) is like")
_CHOICE = re.compile(r"^ (.+?) is like (.+)\.$")


def _retemplate(name: str, query: str, stem: str, choice: str) -> Any:
    def rewrite(item: Any, request: Request) -> Request:
        if request.kind == "loglikelihood":  # SAT: "If a is like b, then" + " c is like d."
            head = re.fullmatch(r"(.*)If (.+?) is like (.+?), then", request.prompt, re.S)
            if head is None:
                raise ValueError(f"prompt variant {name!r}: unexpected prompt {request.prompt!r}")
            prompt = head.group(1) + stem.format(head.group(2), head.group(3))
            continuations = []
            for text in request.continuations:
                found = _CHOICE.match(text)
                if found is None:
                    raise ValueError(f"prompt variant {name!r}: unexpected choice {text!r}")
                continuations.append(" " + choice.format(found.group(1), found.group(2)))
            return replace_request(request, prompt, tuple(continuations))
        if _TEMPLATE.search(request.prompt) is None:
            raise ValueError(f"prompt variant {name!r}: unexpected prompt {request.prompt!r}")
        return reword(request, _TEMPLATE.sub(lambda m: query.format(*m.groups()), request.prompt))

    return rewrite


def replace_request(request: Request, prompt: str, continuations: tuple[str, ...]) -> Request:
    from dataclasses import replace

    return replace(request, prompt=prompt, continuations=continuations)


def _instruction(item: Any, request: Request) -> Request:
    return reword(request, f"{INSTRUCTION}\n{request.prompt}")


# Query forms end where the answer goes; a SAT stem is the query form without its last
# slot ("a is to b as"), its choices the rest (" c is to d.").
VARIANTS = (
    PromptVariant(
        "as",
        "'a is to b as c is to d'",
        _retemplate("as", "{0} is to {1} as {2} is to", "{0} is to {1} as", "{0} is to {1}."),
    ),
    PromptVariant(
        "colons",
        "the separator form 'a : b :: c : d'",
        _retemplate("colons", "{0} : {1} :: {2} :", "{0} : {1} ::", "{0} : {1}."),
    ),
    PromptVariant("instruction", f"an instruction line first: {INSTRUCTION!r}", _instruction),
)
