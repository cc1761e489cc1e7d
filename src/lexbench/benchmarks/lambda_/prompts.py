"""LAMBDA's prompt and decoding: the two-shot prompt (`E : ?` as the paper prints it, or
ending at `E :` with `--prompt-style completion`), the answer guard, and the decoding of each
protocol (`paper`: a fixed budget of two new tokens; `word`: up to the first whole word).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lexbench.benchmarks.lambda_.items import LambdaItem
from lexbench.types import Decoding

PROTOCOLS = ("paper", "word", "phrase")


PROMPT_STYLES = ("paper", "completion")


# The answer-only guard. Strict on purpose: no reasoning, no relation named.
ANSWER_GUARD = "Answer with exactly one word that completes the last line. Do not explain."


# "word" protocol: decode until the first whole word ends, but never more than this.
WORD_PROTOCOL_MAX_TOKENS = 8
# "phrase" protocol (beyond the paper): room for a multi-word answer; the scorer reads the
# first line that has a word.
PHRASE_PROTOCOL_MAX_TOKENS = 16


def prompt_text(item: LambdaItem, style: str = "paper") -> str:
    """The prompt.

    `paper`: the two support lines, the query line `E : ?` and the answer-only guard, as
    published (section 2.3 and the script's `"question": f"{E} : ?"`). `completion`: the
    guard first and the query line `E :` last, so the prompt ends exactly where the answer
    goes and a base or small LM's continuation is the answer; the paper's `?` placeholder
    would ask such a model to continue after a question mark instead.
    """
    (a, b), (c, d) = item.support
    if style == "paper":
        return f"{a} : {b}\n{c} : {d}\n{item.query} : ?\n{ANSWER_GUARD}\n"
    if style == "completion":
        return f"{ANSWER_GUARD}\n{a} : {b}\n{c} : {d}\n{item.query} :"
    raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")


@dataclass(frozen=True)
class Sampling:
    """Sampled decoding for the paper's robustness check (temperature 0.1 and 0.2).

    `samples` independent samples per item; sample k is decoded with seed `seed + k`, so each
    is its own cached request. Greedy (temperature 0) is the paper's protocol and the default.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    samples: int = 1

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if self.greedy and (self.samples > 1 or self.top_p < 1.0):
            raise ValueError(
                "--samples > 1 and --top-p < 1 need --temperature > 0 (greedy "
                "decoding gives the same answer every time)"
            )

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    @property
    def seeds(self) -> tuple[int | None, ...]:
        return (None,) if self.greedy else tuple(self.seed + k for k in range(self.samples))

    def to_dict(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "seeds": list(self.seeds),
            "samples": self.samples,
        }


GREEDY = Sampling()


def decoding_for(protocol: str, sampling: Sampling = GREEDY, seed: int | None = None) -> Decoding:
    """`paper`: greedy, max_new_tokens=2 as published. `word`: greedy until the first whole
    word is complete (two tokens cut long words short). `sampling` swaps greedy for seeded
    sampling (the seed goes into the request, so each sample has its own cache entry)."""
    if protocol == "paper":
        base = Decoding(max_new_tokens=2, temperature=0.0)
    elif protocol == "word":
        base = Decoding(
            max_new_tokens=WORD_PROTOCOL_MAX_TOKENS, temperature=0.0, stop_at_word_end=True
        )
    elif protocol == "phrase":
        base = Decoding(max_new_tokens=PHRASE_PROTOCOL_MAX_TOKENS, temperature=0.0)
    else:
        raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    if sampling.greedy:
        return base
    return replace(
        base,
        temperature=sampling.temperature,
        top_p=sampling.top_p,
        seed=sampling.seeds[0] if seed is None else seed,
    )
