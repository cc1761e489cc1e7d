"""What the OpenAI-compatible backend sends for each request kind, and how it reads the
answers: one `Call` per HTTP prompt (a loglikelihood request makes one per continuation).

* `generate`: `/completions` (or `/chat/completions` with `--api chat`, and always for a
  request that carries chat messages). `stop_at_word_end` cannot be sent to a server, so
  the reply is cut after its first whole word on arrival (`max_new_tokens` still caps it).
* `rank`: one generated token with `logprobs` (completions) or `top_logprobs` (chat). A
  server returns token texts, not ids, so `RankedToken.token_id` is -1; a server may return
  fewer than `top_k`, and a gold token outside the returned list has rank > len(ranked).
* `loglikelihood`: `/completions` with `echo` + `logprobs`, which returns the log-probability
  of every prompt token; the continuation's tokens are found by their character offsets
  (`openai.echo`).

Calls to `/completions` whose bodies differ only in the prompt share a `batch_key`: the
sender may put several of them in one request (the completions API takes a list of prompts).
Each call's `parse` reads one `choice`; `usage` is given only when the request carried that
prompt alone (a batched answer counts tokens for all its prompts together), so a batched
generate call asks for `logprobs: 1` and counts the tokens it gets back.

What a hosted API refuses in these bodies is learned and adapted to when they are sent
(`openai.adapt`), not here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from lexbench.models.base import UnsupportedRequest
from lexbench.models.openai.call import CHAT, COMPLETIONS, BatchShapeError, Call
from lexbench.models.openai.echo import echo_body, loglikelihood_parser, split_context
from lexbench.text import cut_at_stop
from lexbench.types import Decoding, RankedToken, Request, Response

# Generations longer than this are sent one prompt per request: a batch holds all its
# concurrency slots until its longest answer ends, which idles a server on long outputs.
MAX_BATCHED_NEW_TOKENS = 64

RankTargets = Callable[[Sequence[str], Sequence[str], bool], tuple[int | None, ...]]


# ------------------------------------------------------------------------------ reading replies


_WORD_CHAR = re.compile(r"[^\W_]", re.UNICODE)


def cut_after_first_word(text: str) -> str:
    """`text` up to and including the character that ends its first whole word (the
    `stop_at_word_end` protocol, applied on arrival since servers cannot stop there).

    >>> [cut_after_first_word(t) for t in (" large and small", " x-ray.", " lar")]
    [' large ', ' x-ray.', ' lar']
    """
    match = _WORD_CHAR.search(text)
    if match is None:
        return text
    for position in range(match.start(), len(text)):
        char = text[position]
        if _WORD_CHAR.match(char):
            continue
        if char in "-'" and position + 1 < len(text) and _WORD_CHAR.match(text[position + 1]):
            continue
        return text[: position + 1]
    return text


# ------------------------------------------------------------------------------ planning


def endpoint_of(request: Request, api: str) -> str:
    return CHAT if (api == "chat" or request.chat) else COMPLETIONS


def _base_body(model: str, request: Request, endpoint: str) -> dict[str, Any]:
    if endpoint == CHAT:
        messages = (
            [{"role": role, "content": content} for role, content in request.messages]
            if request.messages
            else [{"role": "user", "content": request.prompt}]
        )
        return {"model": model, "messages": messages}
    return {"model": model, "prompt": request.prompt}


def _batch_key(endpoint: str, body: dict[str, Any], max_tokens: int) -> tuple[Any, ...] | None:
    """Equal for completions bodies that differ only in their prompt; None: send alone."""
    if endpoint != COMPLETIONS or max_tokens > MAX_BATCHED_NEW_TOKENS:
        return None
    return tuple(sorted((k, repr(v)) for k, v in body.items() if k != "prompt"))


@lru_cache(maxsize=1024)
def _sampling(decoding: Decoding) -> tuple[tuple[str, Any], ...]:
    """The body entries a decoding sends (memoised: a benchmark shares one decoding)."""
    entries: list[tuple[str, Any]] = [
        ("max_tokens", decoding.max_new_tokens),
        ("temperature", decoding.temperature if not decoding.greedy else 0.0),
    ]
    if not decoding.greedy and decoding.top_p < 1.0:
        entries.append(("top_p", decoding.top_p))
    if not decoding.greedy and decoding.top_k:
        entries.append(("top_k", decoding.top_k))  # vLLM, SGLang, llama.cpp extension
    if decoding.stop:
        entries.append(("stop", list(decoding.stop)))
    if decoding.seed is not None:
        entries.append(("seed", decoding.seed))
    return tuple(entries)


@lru_cache(maxsize=1024)
def _generate_key(model: str, decoding: Decoding) -> tuple[Any, ...] | None:
    return _batch_key(
        COMPLETIONS, {"model": model, **dict(_sampling(decoding))}, decoding.max_new_tokens
    )


# A batched answer counts tokens for all its prompts together: each prompt's own count
# comes from its tokens (logprobs=1 is served wherever logprobs are; 0 is not everywhere).
_BATCHED_GENERATE = {"logprobs": 1}


def plan_generate(model: str, request: Request, api: str) -> Call:
    endpoint = endpoint_of(request, api)
    decoding = request.decoding
    body = _base_body(model, request, endpoint)
    body.update(_sampling(decoding))
    stop, word_end, request_id = decoding.stop, decoding.stop_at_word_end, request.id
    chat = endpoint == CHAT

    def parse(choice: dict[str, Any], usage: dict[str, Any] | None) -> Response:
        text = (choice["message"].get("content") or "") if chat else choice["text"]
        if not isinstance(text, str):
            raise TypeError(f"reply text is {type(text).__name__}, not a string")
        if usage is not None:
            tokens = int(usage.get("completion_tokens") or 0)
        else:
            logprobs = choice.get("logprobs") or {}
            if not isinstance(logprobs.get("tokens"), list):
                raise BatchShapeError("a batched answer without per-prompt tokens")
            tokens = len(logprobs["tokens"])
        if stop:
            text = cut_at_stop(text, stop)
        if word_end:
            text = cut_after_first_word(text)
        return Response(request_id=request_id, text=text, generated_tokens=tokens)

    return Call(
        endpoint,
        body,
        parse,
        _generate_key(model, decoding) if endpoint == COMPLETIONS else None,
        _BATCHED_GENERATE,
    )


def plan_rank(
    model: str, request: Request, api: str, base_url: str, rank_targets: RankTargets
) -> Call:
    endpoint = endpoint_of(request, api)
    body = _base_body(model, request, endpoint)
    body.update({"max_tokens": 1, "temperature": 0.0})
    if endpoint == CHAT:
        body.update({"logprobs": True, "top_logprobs": request.top_k})
    else:
        body["logprobs"] = request.top_k
    top_k, targets, request_id = request.top_k, request.targets, request.id
    chat = endpoint == CHAT

    def parse(choice: dict[str, Any], usage: dict[str, Any] | None) -> Response:
        logprobs = choice.get("logprobs")
        if not logprobs:
            raise UnsupportedRequest(
                f"{base_url}/{endpoint} returned no logprobs for model {model!r}; "
                "rank requests need a server that returns top log-probabilities"
            )
        if chat:
            entries = [
                (e["token"], float(e["logprob"])) for e in logprobs["content"][0]["top_logprobs"]
            ]
        else:
            entries = [(str(t), float(v)) for t, v in logprobs["top_logprobs"][0].items()]
        entries.sort(key=lambda e: -e[1])  # stable: equal scores keep server order
        ranked = tuple(RankedToken(-1, text, value) for text, value in entries[:top_k])
        # A completion continues "... is like", so the answer's first token starts a
        # word; a chat reply's first token has no space before it.
        ranks = rank_targets([t.text for t in ranked], targets, not chat)
        return Response(request_id=request_id, ranked=ranked, target_ranks=ranks)

    return Call(endpoint, body, parse, _batch_key(endpoint, body, 1))


def plan_loglikelihood(model: str, request: Request, api: str, base_url: str) -> list[Call]:
    if endpoint_of(request, api) != COMPLETIONS:
        raise UnsupportedRequest(
            f"request {request.id}: loglikelihood needs the completions endpoint with "
            f"echo + logprobs; chat endpoints return no prompt log-probabilities "
            f"(use --api completions)"
        )
    if not request.continuations:
        raise ValueError(f"request {request.id}: loglikelihood request has no continuations")
    calls = []
    for continuation in request.continuations:
        if not continuation:
            raise ValueError(f"request {request.id}: a continuation is empty")
        context, moved = split_context(request.prompt, continuation)
        prompt = context + moved
        body = echo_body(model, prompt)
        calls.append(
            Call(
                COMPLETIONS,
                body,
                loglikelihood_parser(base_url, model, prompt, len(context)),
                _batch_key(COMPLETIONS, body, 1),
            )
        )
    return calls


def combine(request: Request, values: Sequence[Any]) -> Response:
    """The response of a request from the values of its calls."""
    if request.kind != "loglikelihood":
        return values[0]
    return Response(
        request_id=request.id,
        loglikelihoods=tuple(v for v, _ in values),
        continuation_tokens=tuple(n for _, n in values),
    )
