"""The KV-cached `loglikelihood` of the transformers backend gives the numbers of scoring
each full sequence on its own (within float tolerance)."""

from __future__ import annotations

import math

import pytest

from lexbench.models.hf_decode import nonempty_context
from lexbench.types import Request

pytestmark = pytest.mark.slow


def full_sequence_loglikelihood(model, context: str, continuation: str) -> tuple[float, int]:
    """The reference: context + continuation as one unpadded sequence, one forward pass."""
    import torch

    head, tail = model.split_tokens(context, continuation)
    head = nonempty_context(model.tokenizer, head)
    ids = torch.tensor([head + tail])
    with torch.inference_mode():
        logits = model.model(input_ids=ids).logits.float()
    logprobs = torch.log_softmax(logits[0, :-1], dim=-1)
    targets = ids[0, 1:]
    picked = logprobs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return float(picked[-len(tail) :].sum()), len(tail)


REQUESTS = [
    Request(
        id="tea",
        kind="loglikelihood",
        prompt="tea : teapot : teacup ::",
        continuations=(
            " passenger : bus : taxi",
            " magazine : bookshelf : reading room",
            " talents : school : enterprise",
            " textbooks : bookstore : printing factory",
        ),
    ),
    Request(
        id="short",
        kind="loglikelihood",
        prompt="hot : cold ::",
        continuations=(" up : down", " x", " big : large"),
    ),
    Request(
        id="space",
        kind="loglikelihood",
        prompt="The capital of France is ",
        continuations=("Paris", "a city called Lyon"),
    ),
    Request(
        id="zh",
        kind="loglikelihood",
        prompt="茶：茶壶：茶杯，相当于",
        continuations=("乘客：公交车：出租车", "人才：学校：企业"),
    ),
    Request(id="empty", kind="loglikelihood", prompt="", continuations=(" hello world",)),
]


@pytest.fixture(scope="module")
def reference(smollm2):
    """Full-sequence scores of every (request, continuation), computed once."""
    return {
        (request.id, continuation): full_sequence_loglikelihood(
            smollm2, request.prompt, continuation
        )
        for request in REQUESTS
        for continuation in request.continuations
    }


# batch_size 2: contexts split over batches and each context's continuations over chunks;
# 16: every context in one left-padded batch.
@pytest.mark.parametrize("batch_size", [2, 16])
def test_cached_scores_match_full_sequences(smollm2, reference, batch_size):
    from dataclasses import replace

    options = smollm2.options
    smollm2.options = replace(options, batch_size=batch_size)
    try:
        requests = REQUESTS if batch_size == 16 else list(reversed(REQUESTS))
        responses = smollm2.loglikelihood(requests)
    finally:
        smollm2.options = options
    assert [r.request_id for r in responses] == [r.id for r in requests]
    worst = 0.0
    for request, response in zip(requests, responses):
        assert len(response.loglikelihoods) == len(request.continuations)
        for continuation, value, count in zip(
            request.continuations, response.loglikelihoods, response.continuation_tokens
        ):
            expected, tokens = reference[(request.id, continuation)]
            assert count == tokens
            assert value < 0 and math.isfinite(value)
            assert value == pytest.approx(expected, rel=1e-4, abs=1e-3), (request.id, continuation)
            worst = max(worst, abs(value - expected))
    print(f"batch_size={batch_size}: largest difference from full sequences {worst:.2e}")


def test_empty_continuation_is_an_error(smollm2):
    with pytest.raises(ValueError, match="empty"):
        smollm2.loglikelihood(
            [Request(id="e", kind="loglikelihood", prompt="a b", continuations=("",))]
        )
