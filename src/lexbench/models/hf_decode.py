"""Decoding helpers of the transformers backend: where a first whole word ends, the prefix
prompts share (computed once), the KV cache's tensors, the next-token choice (greedy,
or sampled with temperature, top-k and top-p from a seeded generator), and the decoding
loop of one batch."""

from __future__ import annotations

import copy
import inspect
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from lexbench.text import cut_at_stop

_WORD_CHAR = re.compile(r"[^\W_]", re.UNICODE)


def first_word_complete(text: str) -> bool:
    """True once `text` holds a whole word followed by a boundary.

    Leading whitespace and punctuation are skipped; the word ends at the first character
    that is neither a letter/digit nor an inner hyphen or apostrophe.

    >>> first_word_complete(" lar"), first_word_complete(" large\\n"), first_word_complete(" x-ray ")
    (False, True, True)
    """
    match = _WORD_CHAR.search(text)
    if match is None:
        return False
    rest = text[match.start() :]
    for position, char in enumerate(rest):
        if _WORD_CHAR.match(char):
            continue
        if char in "-'":
            if position + 1 == len(rest):
                return False  # "x-" may still become "x-ray" with the next token
            if _WORD_CHAR.match(rest[position + 1]):
                continue
        return True
    return False


def cache_keyword(model: Any) -> str:
    """The name under which `model`'s forward takes the KV cache: `cache` where transformers
    has renamed it (5.x, which warns twice on every run at the old name: a FutureWarning
    and a log line), else `past_key_values`. Passing the name the installed version
    expects silences exactly that warning and no other."""
    parameters = inspect.signature(type(model).forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def output_cache(output: Any) -> Any:
    """The KV cache a forward pass returned, read by its current name (reading the old
    `past_key_values` attribute logs the deprecation warning on transformers 5.x)."""
    if "cache" in output:
        return output["cache"]
    return output.past_key_values


def cache_tensors(cache: Any) -> list[tuple[Any, Any]]:
    """(keys, values) per layer of a transformers KV cache (the Cache object of
    transformers >= 4.56 with `.layers`, or the legacy tuple of tuples)."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return [(layer.keys, layer.values) for layer in layers]
    return [(k, v) for k, v, *_ in cache]


def shared_prefix_length(sequences: Sequence[Sequence[int]], minimum: int = 8) -> int:
    """Length of the token prefix every sequence shares, leaving each at least one token
    of its own; 0 when shorter than `minimum` (too short to be worth a cache copy)."""
    if not sequences:
        return 0
    first = sequences[0]
    limit = min(len(s) for s in sequences) - 1
    length = 0
    while length < limit and all(s[length] == first[length] for s in sequences):
        length += 1
    return length if length >= minimum else 0


def choose_next_tokens(logits: Any, decoding: Any, generator: Any) -> Any:
    """Greedy argmax, or a sample after temperature, top-k and top-p (nucleus) filtering."""
    import torch

    if decoding.greedy:
        return logits.argmax(dim=-1)
    scores = logits.float() / decoding.temperature
    if decoding.top_k and decoding.top_k > 0:
        kth = torch.topk(scores, min(decoding.top_k, scores.shape[-1]), dim=-1).values[:, -1:]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    if 0.0 < decoding.top_p < 1.0:
        ordered, order = torch.sort(scores, descending=True, dim=-1)
        cumulative = torch.softmax(ordered, dim=-1).cumsum(dim=-1)
        # Drop tokens once the mass before them already reaches top_p (keep at least one).
        drop = (cumulative - torch.softmax(ordered, dim=-1)) >= decoding.top_p
        ordered = ordered.masked_fill(drop, float("-inf"))
        scores = torch.full_like(scores, float("-inf")).scatter(-1, order, ordered)
    probabilities = torch.softmax(scores, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)


def nonempty_context(tokenizer: Any, head: list[int]) -> list[int]:
    """The first continuation token needs a context to be predicted from: an empty one
    (a tokenizer that adds no BOS, an empty prompt) becomes the BOS or EOS token."""
    if head:
        return head
    token = tokenizer.bos_token_id
    if token is None:
        token = tokenizer.eos_token_id
    if token is None:
        raise ValueError(
            "an empty context cannot be scored: the tokenizer has neither a "
            "BOS nor an EOS token to stand in for it"
        )
    return [token]


def score_tails(
    lm: Any,
    chunk: Sequence[tuple[int, int, int]],
    tails: Sequence[Sequence[list[int]]],
    layers: Sequence[tuple[Any, Any]],
    context_mask: Any,
    context_lengths: Any,
    first_logprobs: Any,
) -> dict[tuple[int, int], float]:
    """Sum of log-probabilities of each continuation in `chunk`, scored against the
    cached keys/values of its context (rows of the context batch) by the backend `lm`."""
    torch = lm._torch
    from transformers import DynamicCache

    context_rows = torch.tensor([row for row, _, _ in chunk], device=lm.device)
    sequences = [tails[r][c] for _, r, c in chunk]
    width = max(len(s) for s in sequences)
    pad = lm.tokenizer.pad_token_id
    tail_ids = torch.full((len(chunk), width), pad, dtype=torch.long)
    tail_mask = torch.zeros((len(chunk), width), dtype=torch.long)
    for i, sequence in enumerate(sequences):
        tail_ids[i, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
        tail_mask[i, : len(sequence)] = 1
    tail_ids, tail_mask = tail_ids.to(lm.device), tail_mask.to(lm.device)
    # Index with a tensor: a copy per row, so the shared context cache is never mutated.
    cache = DynamicCache(
        ddp_cache_data=[(k[context_rows], v[context_rows]) for k, v in layers],
        config=lm.model.config,
    )
    attention = torch.cat([context_mask[context_rows], tail_mask], dim=-1)
    positions = context_lengths[context_rows].unsqueeze(-1) + torch.arange(width, device=lm.device)
    out: dict[tuple[int, int], float] = {}
    with torch.inference_mode():
        total = first_logprobs[context_rows].gather(-1, tail_ids[:, :1]).squeeze(-1)
        if width > 1:
            logits = lm.model(
                input_ids=tail_ids[:, :-1],
                attention_mask=attention[:, :-1],
                position_ids=positions[:, :-1],
                use_cache=True,
                **{cache_keyword(lm.model): cache},
            ).logits.float()
            logprobs = torch.log_softmax(logits, dim=-1)
            picked = logprobs.gather(-1, tail_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
            total = total + (picked * tail_mask[:, 1:]).sum(-1)
    for i, (_, r, c) in enumerate(chunk):
        out[(r, c)] = float(total[i])
    return out


def decode_batch(
    backend: Any,
    suffixes: Sequence[Sequence[int]],
    prefix_cache: Any,
    prefix_length: int,
    decoding: Any,
    on_row: Callable[[int, str, int], None] | None = None,
    on_tokens: Callable[[int], None] | None = None,
) -> list[tuple[str, int]]:
    """Decode one batch of (suffix) prompts with `backend` (an `HFCausalLM`) over its KV
    cache; returns (text, new-token count) per row.

    Progress, for long answers (chain of thought) that keep a batch busy for minutes:
    `on_row(row, text, count)` is called as soon as a row is finished (its answer is final;
    the batch decodes on for the others), and `on_tokens(n)` after every step with the
    tokens it produced."""
    torch = backend._torch
    ids, mask = backend._left_pad(suffixes)
    rows = ids.shape[0]
    cache = None
    if prefix_cache is not None:
        cache = copy.deepcopy(prefix_cache)
        cache.batch_repeat_interleave(rows)
        mask = torch.cat(
            [torch.ones((rows, prefix_length), dtype=mask.dtype, device=mask.device), mask],
            dim=1,
        )
    # Positions count real tokens only, so left padding does not shift them.
    positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, prefix_length:]
    generator = None
    if not decoding.greedy:
        generator = torch.Generator(device=backend.device)
        generator.manual_seed(decoding.seed if decoding.seed is not None else 0)
    eos = backend.tokenizer.eos_token_id
    tokens: list[list[int]] = [[] for _ in range(rows)]
    texts = [""] * rows
    finished = [False] * rows
    watch_text = decoding.stop_at_word_end or bool(decoding.stop)
    reported = [False] * rows
    keyword = cache_keyword(backend.model)

    def final(row: int) -> tuple[str, int]:
        text = backend.tokenizer.decode(tokens[row], skip_special_tokens=True)
        return cut_at_stop(text, decoding.stop), len(tokens[row])

    step_ids = ids
    read = getattr(backend, "_read", None)  # how far the first step is through the prompts
    with torch.inference_mode():
        for step in range(decoding.max_new_tokens):
            reading: AbstractContextManager[Any] = nullcontext()
            if step == 0 and read is not None:
                reading = read.reading(int(mask[:, prefix_length:].sum()))
            with reading:
                output = backend.model(
                    input_ids=step_ids,
                    attention_mask=mask,
                    position_ids=positions,
                    use_cache=True,
                    logits_to_keep=1,
                    **{keyword: cache},
                )
            cache = output_cache(output)
            chosen = choose_next_tokens(output.logits[:, -1, :], decoding, generator)
            produced = 0
            for row, token in enumerate(chosen.tolist()):
                if finished[row]:
                    continue
                if token == eos:
                    finished[row] = True
                    continue
                tokens[row].append(token)
                produced += 1
                if watch_text:
                    texts[row] = backend.tokenizer.decode(tokens[row], skip_special_tokens=True)
                    finished[row] = (
                        decoding.stop_at_word_end and first_word_complete(texts[row])
                    ) or any(marker in texts[row] for marker in decoding.stop)
            if on_tokens is not None and produced:
                on_tokens(produced)
            if on_row is not None and not all(finished):  # the last ones are reported below
                for row in range(rows):
                    if finished[row] and not reported[row]:
                        reported[row] = True
                        on_row(row, *final(row))
            if all(finished):
                break
            step_ids = chosen.unsqueeze(1)
            mask = torch.cat(
                [mask, torch.ones((rows, 1), dtype=mask.dtype, device=mask.device)], dim=1
            )
            positions = positions[:, -1:] + 1
    results = [final(row) for row in range(rows)]
    if on_row is not None:
        for row in range(rows):
            if not reported[row]:
                on_row(row, *results[row])
    return results
