"""Log-probabilities of a continuation, read from a prompt the server echoes.

A loglikelihood request is answered through `/completions` with `echo` + `logprobs`: the
server returns the log-probability of every prompt token and its character offset, and the
continuation's tokens are found by those offsets (`continuation_logprobs`). The boundary
between context and continuation moves as the transformers backend moves it
(`split_context`). A server that echoes nothing usable raises `echo_unsupported`; one that
echoes wrong values is found out before its first loglikelihood request (`openai.preflight`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lexbench.models.base import UnsupportedRequest


def split_context(context: str, continuation: str) -> tuple[str, str]:
    """(context without trailing spaces, those spaces + continuation): a tokenizer joins a
    space to the word after it, so the boundary moves as the transformers backend moves it."""
    stripped = context.rstrip(" ")
    return stripped, context[len(stripped) :] + continuation


def continuation_logprobs(
    token_logprobs: Sequence[float | None],
    text_offset: Sequence[int],
    boundary: int,
    prompt_length: int,
) -> list[float]:
    """The log-probabilities of the tokens that carry continuation text.

    Tokens are located by their character offsets in the echoed prompt: a token belongs to
    the continuation when it ends after `boundary` (a token straddling the boundary counts,
    as its probability covers continuation text) and starts inside the prompt (tokens at or
    after `prompt_length` were generated, not echoed).
    """
    if len(token_logprobs) != len(text_offset):
        raise ValueError("token_logprobs and text_offset differ in length")
    picked: list[float] = []
    for index, start in enumerate(text_offset):
        if start >= prompt_length:
            break
        end = text_offset[index + 1] if index + 1 < len(text_offset) else prompt_length
        end = min(end, prompt_length)
        if end > boundary or start >= boundary:
            value = token_logprobs[index]
            if value is None:
                raise ValueError(
                    "the first prompt token has no log-probability; the "
                    "continuation needs a non-empty context"
                )
            picked.append(float(value))
    if not picked:
        raise ValueError("no echoed token covers the continuation")
    return picked


def echo_body(model: str, prompt: str) -> dict[str, Any]:
    """The completions body that echoes `prompt` with its tokens' log-probabilities and
    offsets (one generated token: max_tokens=0 is refused by some servers; it is dropped)."""
    return {
        "model": model,
        "prompt": prompt,
        "max_tokens": 1,
        "temperature": 0.0,
        "echo": True,
        "logprobs": 1,
    }


def echo_unsupported(base_url: str, model: str) -> UnsupportedRequest:
    return UnsupportedRequest(
        f"{base_url}/completions does not echo the prompt with log-probabilities for model "
        f"{model!r} (echo + logprobs); loglikelihood requests need a server that does "
        "(vLLM and SGLang do; OpenAI's hosted chat models do not)"
    )


def echoed_logprobs(
    choice: dict[str, Any], prompt: str, base_url: str, model: str, *, tokens: bool = False
) -> dict[str, Any]:
    """The `logprobs` of a choice that echoes `prompt` with character offsets (and, with
    `tokens`, the tokens' text); `echo_unsupported` when the server's reply has none."""
    logprobs = choice.get("logprobs")
    text = choice.get("text")
    if (
        not logprobs
        or not isinstance(text, str)
        or not text.startswith(prompt)
        or not logprobs.get("text_offset")
        or (tokens and not logprobs.get("tokens"))
    ):
        raise echo_unsupported(base_url, model)
    return logprobs


def loglikelihood_parser(
    base_url: str, model: str, prompt: str, boundary: int
) -> Callable[[dict[str, Any], dict[str, Any] | None], tuple[float, int]]:
    """How a continuation's call reads its echoed choice: (the sum of the continuation's
    token log-probabilities, how many tokens it has)."""

    def parse(choice: dict[str, Any], usage: dict[str, Any] | None) -> tuple[float, int]:
        logprobs = echoed_logprobs(choice, prompt, base_url, model)
        values = continuation_logprobs(
            logprobs["token_logprobs"], logprobs["text_offset"], boundary, len(prompt)
        )
        return sum(values), len(values)

    return parse
