"""What the openai backend sends is pinned: every byte of every request for a fixed set of
requests (generate with odd text and decodings, chat, rank with target learning,
loglikelihood with the echo check), alone and batched, equals what the backend sent before
its request path was made cheaper."""

from __future__ import annotations

import hashlib

import pytest
from test_cache_pinned import REQUESTS

from fake_openai_server import FakeOpenAIServer
from lexbench.models.openai import http as openai_http
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions

# sha256 of the sorted "path body" lines, computed by the backend before the change.
PINNED_WIRE = "93cf15562170f4bc9e9b28dc9053ec77e66ccd902f575923a1a916ac6d454f93"


def test_the_bytes_on_the_wire_are_the_pinned_ones(monkeypatch):
    sent: list[bytes] = []
    inner = openai_http.Connection.post

    async def post(self, path, body):
        sent.append(path.encode() + b" " + body)
        return await inner(self, path, body)

    monkeypatch.setattr(openai_http.Connection, "post", post)
    # The fake server cannot read a lone surrogate (the keys test covers those), and the
    # body of `max_new_tokens=True` is memoised with its equal, 1, by whichever came first.
    wanted = [
        r
        for r in REQUESTS
        if r.kind != "analogy"
        and r.id != "g"
        and "\udcff" not in r.prompt + "".join(r.decoding.stop)
    ]
    with FakeOpenAIServer() as server:
        for per_request in (1, 4):
            model = OpenAIModel(
                "m",
                OpenAIOptions(
                    base_url=server.url,
                    max_concurrency=8 if per_request > 1 else 1,
                    prompts_per_request=per_request,
                ),
            )
            answers = model.answer_each(wanted)
            assert [a.error for a in answers] == [None] * len(wanted)
    assert sum(b'"prompt":[' in line for line in sent) == 3  # batched requests among them
    assert len(sent) == 28
    assert hashlib.sha256(b"\n".join(sorted(sent))).hexdigest() == PINNED_WIRE


@pytest.mark.parametrize("per_request", [1, 4])
def test_answers_arrive_whole_through_the_cheaper_path(per_request):
    """The texts a plain generate run gets back are the server's replies, cut as asked."""
    from fake_openai_server import default_reply, split_tokens
    from lexbench.types import Decoding, Request

    requests = [
        Request(id=f"r{i}", kind="generate", prompt=f"p {i} é", decoding=Decoding(max_new_tokens=2))
        for i in range(40)
    ]
    with FakeOpenAIServer() as server:
        model = OpenAIModel(
            "m",
            OpenAIOptions(base_url=server.url, max_concurrency=16, prompts_per_request=per_request),
        )
        answers = model.answer_each(requests)
    assert [a.request_id for a in answers] == [r.id for r in requests]
    expected = ["".join(split_tokens(default_reply(r.prompt))[:2]) for r in requests]
    assert [a.text for a in answers] == expected
    assert [a.generated_tokens for a in answers] == [2] * len(requests)


def test_the_collector_runs_rarer_in_flight_and_as_before_afterwards():
    import gc

    from lexbench.models.openai.options import IN_FLIGHT_GC_THRESHOLD, fewer_collections
    from lexbench.types import Request

    before = gc.get_threshold()
    seen: list[tuple[int, ...]] = []
    with FakeOpenAIServer() as server:
        model = OpenAIModel("m", OpenAIOptions(base_url=server.url, max_concurrency=4))
        requests = [Request(id=f"r{i}", kind="generate", prompt=f"p{i}") for i in range(5)]
        model.answer_each(requests, lambda position, answer: seen.append(gc.get_threshold()))
    assert seen == [(IN_FLIGHT_GC_THRESHOLD, *before[1:])] * 5
    assert gc.get_threshold() == before
    try:
        gc.set_threshold(0)  # collection off: left off
        with fewer_collections():
            assert gc.get_threshold()[0] == 0
        with fewer_collections():
            gc.set_threshold(123, 4, 5)  # changed meanwhile: kept
        assert gc.get_threshold() == (123, 4, 5)
    finally:
        gc.set_threshold(*before)
