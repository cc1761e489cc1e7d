"""Hosted APIs (issue 18): a 400 that asks for `max_completion_tokens`, refuses a sampling
parameter or caps the log-probabilities is adapted to once, said in one line and recorded;
a chat-only model on the completions endpoint is a permanent error that says --api chat."""

from __future__ import annotations

import pytest

from fake_openai_server import FakeOpenAIServer, split_tokens
from lexbench.models.base import PermanentModelError
from lexbench.models.openai.adapt import Adaptations, learn_from_refusal
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.types import Decoding, Request

MAX_TOKENS_REFUSAL = (
    "Unsupported parameter: 'max_tokens' is not supported with this model. "
    "Use 'max_completion_tokens' instead."
)
TEMPERATURE_REFUSAL = (
    "Unsupported value: 'temperature' does not support 0.0 with this model. "
    "Only the default (1) value is supported."
)


def model_for(server: FakeOpenAIServer, **options) -> OpenAIModel:
    options = {"timeout": 5, "max_concurrency": 1, "max_retries": 0, **options}
    return OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, **options))


def generate(prompt: str, tokens: int = 2) -> Request:
    return Request(
        id=prompt, kind="generate", prompt=prompt, decoding=Decoding(max_new_tokens=tokens)
    )


def test_learn_from_refusal_reads_openai_and_vllm_messages():
    adaptations = Adaptations()
    body = {
        "model": "m",
        "messages": [],
        "max_tokens": 2,
        "temperature": 0.0,
        "seed": 3,
        "logprobs": True,
        "top_logprobs": 50,
    }
    assert "max_completion_tokens" in learn_from_refusal(
        MAX_TOKENS_REFUSAL, body, "chat/completions", adaptations
    )
    assert "not greedy" in learn_from_refusal(
        TEMPERATURE_REFUSAL, body, "chat/completions", adaptations
    )
    assert "at most 20" in learn_from_refusal(
        "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got "
        "50 instead.",
        body,
        "chat/completions",
        adaptations,
    )
    assert (
        learn_from_refusal(
            "Unrecognized request argument supplied: seed", body, "chat/completions", adaptations
        )
        is not None
    )
    sent = adaptations.apply(body, "chat/completions")
    assert sent == {
        "model": "m",
        "messages": [],
        "max_completion_tokens": 2,
        "logprobs": True,
        "top_logprobs": 20,
    }
    assert body["max_tokens"] == 2  # the planned body is left alone
    # vLLM's wording for completions logprobs, and refusals nothing can fix.
    completions = Adaptations()
    assert learn_from_refusal(
        "Requested sample logprobs of 50, which is greater than max allowed: 20",
        {"logprobs": 50},
        "completions",
        completions,
    )
    assert completions.logprobs_cap == {"completions": 20}
    for message in (
        "This model's maximum context length is 2048 tokens",
        "Unsupported parameter: 'messages'",
        "prompt must be a string",
    ):
        assert learn_from_refusal(message, body, "chat/completions", Adaptations()) is None


def test_max_completion_tokens_is_adapted_to_once(capsys):
    with FakeOpenAIServer(refuse={"max_tokens": MAX_TOKENS_REFUSAL}, lifetime=30) as server:
        model = model_for(server, api="chat")
        out = model.generate([generate("first :"), generate("second :", 1)])
        log = server.entries()
    assert [r.error for r in out] == [None, None]
    assert out[1].text == split_tokens(server.reply("second :"))[0]  # max 1 token honoured
    assert [e.outcome for e in log] == ["400", "ok", "ok"]  # refused once
    assert model.retry_count == 0
    err = capsys.readouterr().err
    assert err.count("wants 'max_completion_tokens'") == 1
    assert model.describe()["adaptations"] == {"token_parameter": "max_completion_tokens"}


def test_a_refused_temperature_is_dropped_and_said_to_be_not_greedy(capsys):
    with FakeOpenAIServer(refuse={"temperature": TEMPERATURE_REFUSAL}, lifetime=30) as server:
        model = model_for(server)
        out = model.generate([generate("a :"), generate("b :")])
    assert [r.error for r in out] == [None, None]
    err = capsys.readouterr().err
    assert "refuses 'temperature'" in err and "not greedy" in err
    assert model.describe()["adaptations"] == {"dropped_parameters": ["temperature"]}
    assert any("not greedy" in note for note in model.describe()["server_notes"])


def test_chat_rank_is_capped_at_the_servers_most_top_logprobs(capsys):
    request = Request(id="r", kind="rank", prompt="happy : sad\nlarge :", top_k=50)
    with FakeOpenAIServer(max_logprobs=5, lifetime=30) as server:
        model = model_for(server, api="chat")
        out = model.rank([request])[0]
    assert out.error is None and len(out.ranked) == 5
    assert "at most 5 log-probabilities" in capsys.readouterr().err
    assert model.describe()["adaptations"] == {"logprobs_cap": {"chat/completions": 5}}


def test_chat_only_model_on_completions_says_use_api_chat():
    with FakeOpenAIServer(chat_only=True, lifetime=30) as server:
        with pytest.raises(PermanentModelError, match=r"HTTP 404.*use --api chat"):
            model_for(server).generate([generate("x :")])
        # Through chat it answers, and SCAN-style rank requests fall back to the strict
        # prefix rule since no echo can say how the server tokenises.
        model = model_for(server, api="chat", max_concurrency=2)
        ranked = model.rank(
            [Request(id="r", kind="rank", prompt="x", top_k=20, targets=("large", "la"))]
        )[0]
    assert ranked.error is None
    assert model.describe()["rank_target_rule"].startswith("strict prefix")


def test_a_400_nothing_can_fix_stops_the_run():
    def too_long(prompt: str, attempt: int) -> str | None:
        return "400"

    with (
        FakeOpenAIServer(
            faults=too_long, error_message="maximum context length exceeded", lifetime=30
        ) as server,
        pytest.raises(PermanentModelError, match=r"HTTP 400.*maximum context length"),
    ):
        model_for(server).generate([generate("x :")])
