"""Hosted models by name: `PREFIX:MODEL` is the openai backend at the provider's URL with
its key variable; each URL is overridable from the environment (here: the fake server). A
URL where no server answers fails within seconds, in one line naming it and --base-url."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, free_port
from lexbench.cli import main
from lexbench.models.providers import PROVIDERS, providers_markdown
from lexbench.models.registry import load_model, split_spec
from lexbench.types import Decoding, Request

DOCS = Path(__file__).parents[2] / "docs" / "models.md"


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(lifetime=120) as running:
        yield running


def _ask(model):
    asked = [
        Request(id="q", kind="generate", prompt="a : b\nc :", decoding=Decoding(max_new_tokens=2))
    ]
    return model.generate(asked)[0]


@pytest.mark.parametrize("prefix", sorted(PROVIDERS))
def test_each_provider_prefix_reaches_its_url_with_its_key(prefix, server, monkeypatch):
    provider = PROVIDERS[prefix]
    monkeypatch.setenv(provider.url_env, server.url)
    monkeypatch.setenv(provider.key_env, f"key-of-{prefix}")
    assert split_spec(f"{prefix}:some-model") == ("openai", "some-model")
    model = load_model(f"{prefix}:some-model", {"timeout": 5})
    try:
        assert model.options.base_url == server.url
        assert model.options.api_key_env == provider.key_env
        assert model.options.api == provider.api
        answer = _ask(model)
        assert answer.error is None and answer.text
    finally:
        model.close()


def test_options_given_win_over_the_provider_defaults(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    model = load_model("groq:m", {"base_url": server.url, "api": "completions"})
    try:
        assert (model.options.base_url, model.options.api) == (server.url, "completions")
        assert model.options.api_key_env == "GROQ_API_KEY"
    finally:
        model.close()


def test_openai_prefix_needs_no_base_url_and_honours_openai_base_url(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")  # OpenAI's own URL needs one (said at load)
    monkeypatch.delenv("LEXBENCH_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = load_model("openai:gpt-x", {})
    assert model.options.base_url == "https://api.openai.com/v1"
    model.close()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    model = load_model("openai:gpt-x", {"timeout": 5})
    try:
        assert _ask(model).error is None
    finally:
        model.close()


def test_the_docs_table_is_the_providers_table():
    assert providers_markdown() in DOCS.read_text(encoding="utf-8")


def test_a_refused_connection_fails_at_once_naming_the_url_and_base_url(monkeypatch):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    model = load_model("openai:m", {"base_url": url, "max_retries": 6})
    start = time.monotonic()
    try:
        asked = [
            Request(
                id=f"q{i}", kind="generate", prompt=f"a{i} :", decoding=Decoding(max_new_tokens=2)
            )
            for i in range(20)
        ]
        answers = model.generate(asked)
        retried = model.retry_counts().total
    finally:
        model.close()
    assert time.monotonic() - start < 5  # not after 6 retries with backoff each
    assert retried == 0
    for answer in answers:
        assert answer.error is not None
        assert f"cannot connect to {url}: check --base-url" in answer.error


def test_an_unknown_host_fails_at_once_from_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    # .invalid never resolves (RFC 2606): the name lookup fails at once, offline or not.
    url = "http://no-such-host.invalid/v1"
    start = time.monotonic()
    argv = ["run", "lambda", "--model", "openai:m", "--base-url", url, "--limit", "1"]
    code = main([*argv, "--no-progress", "--no-cache", "--out", str(tmp_path)])
    assert time.monotonic() - start < 30
    err = capsys.readouterr().err
    assert code == 4, err  # every request failed (docs/guarantees.md), the folder written
    (line,) = [x for x in err.splitlines() if "requests failed" in x]
    assert re.search(r"cannot connect to http://no-such-host\.invalid/v1: check --base-url", line)


def test_a_dropped_connection_stays_a_retry(monkeypatch):
    """A server that takes the connection and drops it may recover: retried, not refused."""
    with FakeOpenAIServer(
        lifetime=60, faults=lambda prompt, attempt: "drop" if attempt == 1 else None
    ) as flaky:
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        model = load_model("openai:m", {"base_url": flaky.url, "timeout": 5, "max_retries": 3})
        try:
            answer = _ask(model)
        finally:
            model.close()
    assert answer.error is None and model.retry_counts().total >= 1
