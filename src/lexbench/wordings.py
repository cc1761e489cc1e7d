"""Prompt wordings: a benchmark declares them (`BenchmarkSpec.prompt_variants`), the paper's
prompt first and unchanged, then rewordings that keep the task and the answer format.

A variant rewrites each request of the built benchmark, given its item; the paper variant
is no wrapper at all, so a default run's config.json, folder hash and cache keys stay
byte for byte what they were. Another wording adds `prompt_variant` to the benchmark's
config (so it lands in its own run folder) and changes the prompt text (so its requests
are cached apart).

This module sits below the contract module (`lexbench.contract`) and `api`: it knows
a benchmark only as something with a name and declared wordings (`Declares`).

    >>> from lexbench.types import Request
    >>> v = PromptVariant("shout", "upper case", lambda item, r: reword(r, r.prompt.upper()))
    >>> v.rewrite(None, Request(id="1", kind="generate", prompt="a : b")).prompt
    'A : B'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from lexbench.types import Request

#: The name of the published wording; every benchmark has it, first.
PAPER = "paper"
#: `--prompt-variant all`: every declared wording, the paper's first.
ALL = "all"


@dataclass(frozen=True)
class PromptVariant:
    """One wording: `rewrite(item, request) -> request` from the paper's request."""

    name: str
    description: str
    rewrite: Callable[[Any, Request], Request]


class Declares(Protocol):
    """What the wordings need of a benchmark's entry (a `BenchmarkSpec` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def prompt_variants(self) -> Callable[[], Sequence[PromptVariant]] | None: ...


def reword(request: Request, prompt: str) -> Request:
    """The request with its prompt text replaced (everything else kept)."""
    return replace(request, prompt=prompt)


def replace_required(text: str, old: str, new: str, variant: str) -> str:
    """`text` with every occurrence of `old` replaced by `new` (as `str.replace`: LAMBDA's
    arrow wording rewrites each " : " of the prompt), refusing in one line when `old` is
    absent (a variant must never silently leave the paper's wording in place)."""
    if old not in text:
        raise ValueError(
            f"prompt variant {variant!r}: the prompt lacks {old!r}, the part it rewords "
            f"(prompt begins {text[:60]!r})"
        )
    return text.replace(old, new)


def declared_variants(spec: Declares) -> list[PromptVariant]:
    """The benchmark's wordings, the paper's first; a benchmark that declares none has the
    paper's alone."""
    paper = PromptVariant(PAPER, "the paper's prompt, unchanged", lambda item, request: request)
    if spec.prompt_variants is None:
        return [paper]
    declared = list(spec.prompt_variants())
    names = [v.name for v in declared]
    if len(set(names)) != len(names) or PAPER in names or ALL in names:
        raise ValueError(
            f"{spec.name}: prompt variant names must be unique and not {PAPER!r} or "
            f"{ALL!r}, got {names}"
        )
    return [paper, *declared]


def chosen_variants(spec: Declares, requested: str) -> list[PromptVariant]:
    """`requested` (a name or `all`) as the list of wordings to run, checked."""
    known = declared_variants(spec)
    if requested == ALL:
        return known
    for variant in known:
        if variant.name == requested:
            return [variant]
    raise ValueError(
        f"{spec.name} has no prompt variant {requested!r}; choose from "
        f"{', '.join(v.name for v in known)} or {ALL}"
    )


class VariantBenchmark:
    """A built benchmark asked in another wording: every part is the benchmark's own but
    `config` (which names the wording) and `requests` (reworded)."""

    def __init__(self, inner: Any, variant: PromptVariant):
        self._inner = inner
        self._variant = variant

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def config(self) -> dict[str, Any]:
        return {
            **self._inner.config(),
            "prompt_variant": self._variant.name,
            "prompt_variant_description": self._variant.description,
        }

    def requests(self, item: Any) -> list[Request]:
        out = []
        for request in self._inner.requests(item):
            if request.kind == "analogy":
                raise ValueError(
                    f"prompt variant {self._variant.name!r}: this run asks word vectors "
                    f"(typed analogy queries), which have no prompt to reword; run it with "
                    f"a language model or with --prompt-variant {PAPER}"
                )
            out.append(self._variant.rewrite(item, request))
        return out


def one_variant(spec: Declares, name: str) -> PromptVariant:
    """The wording `name` of one run, checked (before any model is loaded)."""
    if name == ALL:
        raise ValueError(f"one run takes one wording; `{ALL}` is a loop over them (the command)")
    return chosen_variants(spec, name)[0]


def apply_variant(spec: Declares, built: Any, name: str) -> Any:
    """`built` asked in wording `name` (the paper's: `built` itself, untouched)."""
    variant = one_variant(spec, name)
    return built if variant.name == PAPER else VariantBenchmark(built, variant)
