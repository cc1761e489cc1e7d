"""Causes named for hosted models (issue 43.3): an unset key variable is said before any
request, naming it (exit 2), for every provider and for `openai:` at OpenAI's own URL, while
a server the user named needs none; a failed connection names where its URL came from (the
provider's default, an override variable, --base-url); a provider's model keeps its prefix
in every name a reader sees, with the run folder's hash unchanged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, free_port
from lexbench.cli import main
from lexbench.models.providers import PROVIDERS
from lexbench.models.registry import load_model
from lexbench.types import Decoding, Request


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(lifetime=300) as running:
        yield running


@pytest.fixture
def no_keys(monkeypatch):
    """No key variable and no URL override set: each provider at its own URL."""
    for provider in PROVIDERS.values():
        monkeypatch.delenv(provider.key_env, raising=False)
        monkeypatch.delenv(provider.url_env, raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _ask(model):
    request = Request(id="q", kind="generate", prompt="a :", decoding=Decoding(max_new_tokens=2))
    try:
        return model.generate([request])[0]
    finally:
        model.close()


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "error: " in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("prefix", sorted(PROVIDERS))
def test_an_unset_key_is_said_before_anything_runs(prefix, no_keys, capsys, tmp_path):
    """Was a run of failed requests, a report full of nan and "check --base-url"."""
    provider = PROVIDERS[prefix]
    out = tmp_path / "runs"
    argv = ["run", "lambda", "--model", f"{prefix}:some/model", "--limit", "2"]
    assert main([*argv, "--no-cache", "--no-progress", "--out", str(out)]) == 2
    line = _one_error_line(capsys)
    assert f"the environment variable {provider.key_env} is not set" in line
    assert f"export {provider.key_env}=YOUR_KEY" in line
    assert not out.exists()  # nothing made, nothing sent
    with pytest.raises(ValueError, match=f"{provider.key_env} is not set"):
        load_model(f"{prefix}:some/model")  # the API says the same


def test_every_model_of_a_plan_is_checked_before_the_first_runs(
    no_keys, monkeypatch, capsys, tmp_path
):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    out = tmp_path / "runs"
    argv = ["run", "lambda", "--model", "openai:a,groq:b", "--limit", "1", "--out", str(out)]
    assert main(argv) == 2
    assert "--model groq:b: the environment variable GROQ_API_KEY is not set" in _one_error_line(
        capsys
    )
    assert not out.exists()  # openai:a did not run first


def test_a_server_the_user_named_needs_no_key(no_keys, server, monkeypatch):
    """A local vLLM or llama.cpp server takes no key: never refused for lack of one."""
    assert _ask(load_model("openai:m", {"base_url": server.url, "timeout": 5})).error is None
    assert _ask(load_model("together:m", {"base_url": server.url, "timeout": 5})).error is None
    monkeypatch.setenv("LEXBENCH_GROQ_BASE_URL", server.url)  # an override: a proxy, a mirror
    assert _ask(load_model("groq:m", {"timeout": 5})).error is None
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    assert _ask(load_model("openai:m", {"timeout": 5})).error is None


def test_a_key_set_to_nothing_is_unset(no_keys, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "")
    with pytest.raises(ValueError, match="MISTRAL_API_KEY is not set"):
        load_model("mistral:m")


def _unreachable() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there


def test_a_connection_failure_names_the_providers_default_url(no_keys, monkeypatch):
    url = _unreachable()
    monkeypatch.setitem(PROVIDERS, "together", replace(PROVIDERS["together"], base_url=url))
    monkeypatch.setenv("TOGETHER_API_KEY", "k")
    error = _ask(load_model("together:m", {"timeout": 5})).error or ""
    assert f"cannot connect to {url}, together:'s default URL (no --base-url given)" in error
    assert "check --base-url" not in error


def test_a_connection_failure_names_the_override_variable(no_keys, monkeypatch):
    url = _unreachable()
    monkeypatch.setenv("LEXBENCH_GROQ_BASE_URL", url)
    error = _ask(load_model("groq:m", {"timeout": 5})).error or ""
    assert f"cannot connect to {url}: check $LEXBENCH_GROQ_BASE_URL, which set it" in error
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    error = _ask(load_model("openai:m", {"timeout": 5})).error or ""
    assert "check $OPENAI_BASE_URL, which set it" in error


def test_a_connection_failure_names_base_url_when_given(no_keys, monkeypatch):
    url = _unreachable()
    monkeypatch.setenv("LEXBENCH_GROQ_BASE_URL", "http://127.0.0.1:9/v1")  # --base-url wins
    error = _ask(load_model("groq:m", {"base_url": url, "timeout": 5})).error or ""
    assert f"cannot connect to {url}: check --base-url (no server answers there" in error


def _folders(out: Path) -> list[Path]:
    return sorted(p.parent for p in out.rglob("config.json"))


def test_a_provider_model_keeps_its_prefix_everywhere_and_its_hash(
    no_keys, server, monkeypatch, capsys, tmp_path
):
    """The leaderboard showed `meta-llama/...` for `together:meta-llama/...`. Now config.json's
    name, the report, the leaderboard and compare say `together:m`; what is sent and the
    fingerprint stay `m`, so the run folder's hash is the one the same model at the same URL
    had before (`openai:m --api chat`), under the folder `together-m` instead of `m`."""
    monkeypatch.setenv("LEXBENCH_TOGETHER_BASE_URL", server.url)
    out = tmp_path / "runs"
    common = ["--limit", "3", "--no-cache", "--no-progress", "--out", str(out)]
    assert main(["run", "scan", "--model", "together:m", *common]) == 0
    argv = ["run", "scan", "--model", "openai:m", "--base-url", server.url, "--api", "chat"]
    assert main([*argv, *common]) == 0
    bare, prefixed = _folders(out)
    assert (bare.parent.name, prefixed.parent.name) == ("m", "together-m")
    assert bare.name == prefixed.name  # the same identity, the same hash
    config = json.loads((prefixed / "config.json").read_text())
    assert config["model"]["name"] == "together:m" and config["model"]["model"] == "m"
    capsys.readouterr()
    assert main(["leaderboard", str(out)]) == 0
    assert "| together:m " in capsys.readouterr().out
    assert main(["compare", str(prefixed), str(bare)]) == 0
    assert "together:m" in capsys.readouterr().out
    assert main(["report", str(out), "-o", str(tmp_path / "report")]) == 0
    assert "together:m" in (tmp_path / "report" / "report.md").read_text()
    model = load_model("together:m", {"timeout": 5})
    request = Request(id="q", kind="generate", prompt="a :", decoding=Decoding(max_new_tokens=2))
    (call,) = model._plan(request)
    assert (model.name, call.body["model"]) == ("together:m", "m")  # the server is asked for m
    model.close()
