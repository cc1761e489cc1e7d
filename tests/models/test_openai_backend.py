"""The OpenAI-compatible backend: retry policy, rate limiting, text helpers, options, and
the request/response mapping of each kind against the local fake server."""

from __future__ import annotations

import asyncio
import email.utils
import random

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.models.base import UnsupportedRequest
from lexbench.models.openai.backend import OpenAIModel, load
from lexbench.models.openai.echo import continuation_logprobs, split_context
from lexbench.models.openai.options import OpenAIOptions
from lexbench.models.openai.plan import cut_after_first_word
from lexbench.models.openai.retry import (
    RateLimiter,
    backoff_delay,
    is_permanent_status,
    is_retryable_status,
    parse_retry_after,
    retry_delay,
)
from lexbench.models.registry import load_model
from lexbench.types import Decoding, Request

# ------------------------------------------------------------------------------ retry policy


def test_parse_retry_after_seconds_dates_and_junk():
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 0.25 ") == 0.25
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None
    assert parse_retry_after("soon") is None
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0, abs=1.0)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_backoff_grows_exponentially_within_jitter_bounds_and_caps():
    rng = random.Random(0)
    for attempt in range(10):
        ceiling = min(30.0, 0.5 * 2**attempt)
        for _ in range(50):
            delay = backoff_delay(attempt, rng)
            assert ceiling / 2 <= delay <= ceiling
    # Jitter: not every draw is the same.
    assert len({round(backoff_delay(3, rng), 6) for _ in range(20)}) > 1


def test_retry_after_is_honoured_never_shortened():
    rng = random.Random(1)
    for _ in range(50):
        delay = retry_delay(0, 4.0, rng)
        assert 4.0 <= delay <= 4.4
    assert retry_delay(0, 0.0, rng) == 0.0
    # Without Retry-After: backoff.
    assert 0.25 <= retry_delay(0, None, rng) <= 0.5
    # An absurd Retry-After is capped rather than waited for a day.
    assert retry_delay(0, 86400.0, rng) <= 660.0


def test_status_classes():
    for status in (429, 500, 502, 503, 504, 408):
        assert is_retryable_status(status) and not is_permanent_status(status)
    for status in (400, 401, 403, 404, 422):
        assert is_permanent_status(status) and not is_retryable_status(status)
    assert not is_retryable_status(413) and not is_permanent_status(413)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_rate_limiter_spaces_starts_evenly():
    clock = FakeClock()
    limiter = RateLimiter(120, clock=clock)  # one start every 0.5 s
    waits = [limiter.reserve() for _ in range(4)]  # four arrive at once
    assert waits == [0.0, 0.5, 1.0, 1.5]
    clock.now += 10  # idle time is not banked
    assert limiter.reserve() == 0.0
    assert limiter.reserve() == 0.5


def test_rate_limiter_without_limit_never_waits_but_honours_pause():
    clock = FakeClock()
    limiter = RateLimiter(None, clock=clock)
    assert [limiter.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]
    limiter.pause_for(2.0)
    assert limiter.reserve() == 2.0
    clock.now += 3
    assert limiter.reserve() == 0.0


def test_rate_limiter_acquire_sleeps_for_its_slot():
    limiter = RateLimiter(60 * 50)  # 50 per second: 20 ms apart

    async def three() -> None:
        for _ in range(3):
            await limiter.acquire()

    asyncio.run(three())
    # The fourth start is booked after the three taken (plus the time they took).
    assert limiter.reserve() > 0.0


# ------------------------------------------------------------------------------ text helpers


def test_cut_after_first_word():
    assert cut_after_first_word(" large and small") == " large "
    assert cut_after_first_word("\n\nsmall.\nmore") == "\n\nsmall."
    assert cut_after_first_word(" x-ray machine") == " x-ray "
    assert cut_after_first_word(" don't go") == " don't "
    assert cut_after_first_word(" unfinish") == " unfinish"
    assert cut_after_first_word("  ...") == "  ..."


def test_split_context_moves_trailing_spaces():
    assert split_context("the cat ", "sat") == ("the cat", " sat")
    assert split_context("Q: a", " b") == ("Q: a", " b")


def test_continuation_logprobs_by_offsets():
    # prompt "the cat sat" + generated " down": tokens the| cat| sat| down
    values = [None, -1.0, -2.0, -3.0]
    offsets = [0, 3, 7, 11]
    assert continuation_logprobs(values, offsets, boundary=7, prompt_length=11) == [-2.0]
    assert continuation_logprobs(values, offsets, boundary=3, prompt_length=11) == [-1.0, -2.0]
    # A token straddling the boundary counts (it carries continuation text).
    assert continuation_logprobs(values, offsets, boundary=5, prompt_length=11) == [-1.0, -2.0]
    with pytest.raises(ValueError, match="non-empty context"):
        continuation_logprobs(values, offsets, boundary=0, prompt_length=11)
    with pytest.raises(ValueError, match="differ in length"):
        continuation_logprobs(values, offsets[:2], boundary=3, prompt_length=11)


# ------------------------------------------------------------------------------ options


def test_options_are_validated_with_clear_messages():
    with pytest.raises(ValueError, match="base-url"):
        OpenAIOptions(base_url="127.0.0.1:8000")
    with pytest.raises(ValueError, match="--api"):
        OpenAIOptions(api="responses")
    with pytest.raises(ValueError, match="max-concurrency"):
        OpenAIOptions(max_concurrency=0)
    with pytest.raises(ValueError, match="requests-per-minute"):
        OpenAIOptions(requests_per_minute=0)
    with pytest.raises(ValueError, match="api-key-env"):
        OpenAIOptions(api_key_env="sk-123 secret")
    with pytest.raises(ValueError, match="do not apply to the openai backend"):
        load("m", {"base_url": "http://127.0.0.1:1/v1", "dtype": "float32"})
    with pytest.raises(ValueError, match="prompts_per_request"):
        OpenAIOptions(prompts_per_request=0)
    # Prompts per request: max_concurrency // 8 in 1..16 unless given, never above it.
    assert [OpenAIOptions(max_concurrency=c).batch_size() for c in (1, 8, 16, 32, 128, 1024)] == [
        1,
        1,
        2,
        4,
        16,
        16,
    ]
    assert OpenAIOptions(max_concurrency=4, prompts_per_request=64).batch_size() == 4


def test_registry_options_and_fingerprint_never_hold_the_key(monkeypatch):
    monkeypatch.setenv("MY_SERVER_KEY", "sk-very-secret-123")
    model = load_model(
        "openai:some-model",
        {
            "base_url": "http://127.0.0.1:9/v1/",
            "api_key_env": "MY_SERVER_KEY",
            "api": "chat",
            "max_concurrency": 3,
            "timeout": 5.0,
        },
    )
    assert isinstance(model, OpenAIModel)
    assert model.fingerprint() == {
        "backend": "openai",
        "model": "some-model",
        "base_url": "http://127.0.0.1:9/v1",
        "api": "chat",
        "rank_targets": "first-token-v2",
    }
    assert "sk-very-secret-123" not in repr(model.describe())
    assert model.describe()["api_key_set"] is True
    assert model.chunk_size() >= 64 * 3


# ------------------------------------------------------------------------------ against the fake


@pytest.fixture
def server():
    with FakeOpenAIServer(lifetime=60) as running:
        yield running


def _model(server: FakeOpenAIServer, **options) -> OpenAIModel:
    return OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, timeout=5, **options))


def test_generate_completions_cuts_words_and_stops(server):
    model = _model(server)
    word = Request(
        id="w",
        kind="generate",
        prompt="a : b\nc :",
        decoding=Decoding(max_new_tokens=8, stop_at_word_end=True),
    )
    plain = Request(
        id="p", kind="generate", prompt="a : b\nc :", decoding=Decoding(max_new_tokens=8)
    )
    stop = Request(
        id="s",
        kind="generate",
        prompt="a : b\nc :",
        decoding=Decoding(max_new_tokens=8, stop=("\n",)),
    )
    short = Request(
        id="t", kind="generate", prompt="a : b\nc :", decoding=Decoding(max_new_tokens=1)
    )
    out = model.generate([word, plain, stop, short])
    full = server.reply("a : b\nc :")  # " WORD\nmore words here"
    assert [r.request_id for r in out] == ["w", "p", "s", "t"]
    assert out[0].text == full.split("\n")[0] + "\n"
    assert out[1].text == full
    assert out[2].text == full.split("\n")[0]
    assert out[3].text == full.split("\n")[0] and out[3].generated_tokens == 1
    sent = [e.path for e in server.entries()]
    assert sent == ["/v1/completions"] * 4


def test_generate_chat_sends_messages(server):
    model = _model(server, api="chat")
    request = Request(
        id="c", kind="generate", prompt="hello there", decoding=Decoding(max_new_tokens=1)
    )
    messages = Request(
        id="m", kind="generate", chat=True, messages=(("system", "be brief"), ("user", "hi"))
    )
    out = model.generate([request, messages])
    assert out[0].text == server.reply("hello there").split("\n")[0]
    assert out[1].text.startswith(server.reply("hi").split("\n")[0])
    assert {e.path for e in server.entries()} == {"/v1/chat/completions"}
    assert sorted(e.prompt for e in server.entries()) == ["hello there", "hi"]


def test_rank_completions_and_chat_return_sorted_top_k(server):
    prompt = "happy : sad\nlarge :"
    for api in ("completions", "chat"):
        out = _model(server, api=api).rank([Request(id="r", kind="rank", prompt=prompt, top_k=4)])
        ranked = out[0].ranked
        assert len(ranked) == 4
        assert ranked[0].text == server.reply(prompt).split("\n")[0]
        assert [t.logprob for t in ranked] == sorted((t.logprob for t in ranked), reverse=True)
        assert all(t.token_id == -1 for t in ranked)


def test_rank_returns_what_the_server_has_when_fewer_than_k(server):
    from fake_openai_server import VOCABULARY, default_reply, split_tokens

    out = _model(server).rank([Request(id="r", kind="rank", prompt="x", top_k=50)])
    # The fake knows its reply's first token and its vocabulary, nothing more: all of it
    # comes back (best first), and a gold token outside these has rank > len.
    first = split_tokens(default_reply("x"))[0]
    expected = [first] + [f" {w}" for w in VOCABULARY if f" {w}" != first]
    assert [t.text for t in out[0].ranked] == expected


def test_loglikelihood_sums_continuation_tokens(server):
    from fake_openai_server import pseudo_logprob

    request = Request(
        id="l", kind="loglikelihood", prompt="the cat ", continuations=("sat down", "ran")
    )
    out = _model(server).loglikelihood([request])[0]
    assert out.continuation_tokens == (2, 1)
    assert out.loglikelihoods[0] == pytest.approx(pseudo_logprob(" sat") + pseudo_logprob(" down"))
    assert out.loglikelihoods[1] == pytest.approx(pseudo_logprob(" ran"))


def test_loglikelihood_unsupported_is_a_clear_error(server):
    request = Request(id="l", kind="loglikelihood", prompt="a", continuations=(" b",))
    with pytest.raises(UnsupportedRequest, match="--api completions"):
        _model(server, api="chat").loglikelihood([request])
    assert server.entries() == []  # refused before sending anything
    with (
        FakeOpenAIServer(echo_supported=False, lifetime=30) as no_echo,
        pytest.raises(UnsupportedRequest, match="echo"),
    ):
        _model(no_echo).loglikelihood([request])


def test_loglikelihood_refuses_a_server_whose_echo_disagrees_with_itself():
    request = Request(id="l", kind="loglikelihood", prompt="the cat ", continuations=("sat",))
    with FakeOpenAIServer(echo_misaligned=True, lifetime=30) as server:
        model = _model(server)
        with pytest.raises(UnsupportedRequest, match="disagree"):
            model.loglikelihood([request])
        # Only the two probe requests went out, no loglikelihood request.
        assert [e.prompt for e in server.entries()] == [
            "the cat",
            "the cat" + server.reply("the cat").split("\n")[0],
        ]


def test_echo_check_runs_once_per_model(server):
    model = _model(server)
    for n in range(3):
        model.loglikelihood(
            [
                Request(
                    id=f"l{n}", kind="loglikelihood", prompt=f"ctx {n}", continuations=(" a", " b")
                )
            ]
        )
    # 2 probe requests, then 2 continuations for each of the 3 requests.
    assert len(server.entries()) == 2 + 3 * 2


def test_api_key_goes_only_in_the_header(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-header-only-999")
    _model(server).generate([Request(id="g", kind="generate", prompt="x")])
    assert server.headers_seen[-1]["authorization"] == "Bearer sk-header-only-999"
    monkeypatch.delenv("OPENAI_API_KEY")
    _model(server).generate([Request(id="g", kind="generate", prompt="y")])
    assert "authorization" not in server.headers_seen[-1]


def test_answer_each_reports_every_response_once_in_any_order(server):
    model = _model(server, max_concurrency=4)
    requests = [Request(id=f"q{i}", kind="generate", prompt=f"prompt {i}") for i in range(20)]
    seen: list[int] = []
    out = model.answer_each(requests, lambda position, response: seen.append(position))
    assert sorted(seen) == list(range(20))
    assert [r.request_id for r in out] == [r.id for r in requests]


def test_works_inside_a_running_event_loop(server):
    model = _model(server)

    async def inside() -> str:
        return model.generate([Request(id="g", kind="generate", prompt="z")])[0].text

    assert asyncio.run(inside()) == server.reply("z")
