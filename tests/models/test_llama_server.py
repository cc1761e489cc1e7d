"""Integration: the openai backend against a REAL OpenAI-compatible server on 127.0.0.1,
llama-cpp-python's server serving the packaged SmolLM2 GGUF (started by the fixture).

Skips (with the reason) only when llama_cpp is not importable; with
LEXBENCH_REQUIRE_SERVER=1 (CI) it fails instead of skipping.
"""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

from fake_openai_server import LlamaServer
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.types import Decoding, Request

REQUIRE_SERVER = os.environ.get("LEXBENCH_REQUIRE_SERVER") == "1"
ALIAS = "smollm2-135m"
PROMPTS = (
    "happy : unhappy\nlarge : small\nancient :",
    "dog : puppy\ncat : kitten\nhorse :",
    "hot : cold\nup : down\nleft :",
)


@pytest.fixture(scope="module")
def llama_server():
    if importlib.util.find_spec("llama_cpp") is None:
        reason = (
            "llama_cpp is not importable: pip install 'llama-cpp-python[server]' to run "
            "the real-server integration tests"
        )
        if REQUIRE_SERVER:
            pytest.fail(f"LEXBENCH_REQUIRE_SERVER=1 but {reason}")
        pytest.skip(reason)
    from lexbench.models.hf_files import packaged_smollm2_gguf

    with LlamaServer(packaged_smollm2_gguf(), alias=ALIAS) as server:
        yield server


def model(server: LlamaServer, **options) -> OpenAIModel:
    return OpenAIModel(
        ALIAS,
        OpenAIOptions(
            base_url=server.url, max_concurrency=2, timeout=120, max_retries=2, **options
        ),
    )


def test_greedy_generation_is_deterministic_and_matches_the_top_ranked_token(llama_server):
    backend = model(llama_server)
    asked = [
        Request(id=f"g{i}", kind="generate", prompt=p, decoding=Decoding(max_new_tokens=1))
        for i, p in enumerate(PROMPTS)
    ]
    first = backend.generate(asked)
    again = backend.generate(asked)
    assert [r.text for r in first] == [r.text for r in again]
    assert all(r.error is None and r.text for r in first)
    ranked = backend.rank(
        [Request(id=f"r{i}", kind="rank", prompt=p, top_k=5) for i, p in enumerate(PROMPTS)]
    )
    for generated, top in zip(first, ranked):
        assert len(top.ranked) == 5
        values = [t.logprob for t in top.ranked]
        assert values == sorted(values, reverse=True) and all(v <= 0 for v in values)
        # Greedy decoding picks the most likely token.
        assert generated.text == top.ranked[0].text


def test_chat_generate_and_rank(llama_server):
    backend = model(llama_server, api="chat")
    reply = backend.generate(
        [
            Request(
                id="c",
                kind="generate",
                prompt="Name one colour.",
                decoding=Decoding(max_new_tokens=4),
            )
        ]
    )[0]
    assert reply.error is None and reply.text.strip()
    top = backend.rank([Request(id="r", kind="rank", prompt="Name one colour.", top_k=3)])[0]
    assert 1 <= len(top.ranked) <= 3


def test_loglikelihood_by_echo_is_right_or_refused_clearly(llama_server):
    """llama-cpp-python 0.3 echoes each prompt token's log-probability one position late;
    the backend's echo check must refuse it with a clear error rather than return wrong
    numbers. A server that gets echo right must agree with its own ranked log-probabilities."""
    from lexbench.models.base import UnsupportedRequest

    backend = model(llama_server)
    prompt = PROMPTS[0]
    top = backend.rank([Request(id="r", kind="rank", prompt=prompt, top_k=3)])[0].ranked
    asked = Request(
        id="l",
        kind="loglikelihood",
        prompt=prompt,
        continuations=(top[0].text, top[1].text, " modern times"),
    )
    try:
        scored = backend.loglikelihood([asked])[0]
    except UnsupportedRequest as refused:
        import llama_cpp

        assert "disagree with its own next-token log-probabilities" in str(refused)
        assert llama_cpp.__version__.startswith("0.3.")  # the version known to be wrong
        return
    # A one-token continuation's log-likelihood is that token's next-token log-probability.
    assert scored.continuation_tokens[:2] == (1, 1)
    assert scored.loglikelihoods[0] == pytest.approx(top[0].logprob, abs=1e-2)
    assert scored.loglikelihoods[1] == pytest.approx(top[1].logprob, abs=1e-2)
    assert scored.continuation_tokens[2] >= 2


def test_lambda_run_through_the_server(llama_server, tmp_path, wordnet_index):
    from lexbench import api

    run = api.run(
        "lambda",
        model(llama_server),
        per_relation=2,
        out=tmp_path / "runs",
        cache=tmp_path / "cache.sqlite",
        progress=False,
    )
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    assert len(samples) == 6 and all(s["error"] is None for s in samples)
    assert all(s["output"] for s in samples)
    config = json.loads(run.folder.config_path.read_text())
    assert (
        config["model"]["backend"] == "openai" and config["model"]["base_url"] == llama_server.url
    )
    assert run.results["run"]["failed"] == 0


@pytest.mark.slow
def test_server_and_in_process_next_token_distributions_are_close(llama_server, smollm2):
    """Same weights two ways: llama.cpp computing on the Q4_1 blocks, transformers on the
    de-quantised float32 copy. Same tokenizer, so the top tokens are the same strings, and
    their log-probabilities agree within the quantised arithmetic's error."""
    asked = [Request(id=f"r{i}", kind="rank", prompt=p, top_k=3) for i, p in enumerate(PROMPTS)]
    served = model(llama_server).rank(asked)
    local = smollm2.rank(asked)
    for a, b in zip(served, local):
        assert a.ranked[0].text == b.ranked[0].text
        assert a.ranked[0].logprob == pytest.approx(b.ranked[0].logprob, abs=0.35)


@pytest.mark.slow
def test_scan_google_and_pairs_through_the_server_rank_like_the_in_process_model(
    llama_server, smollm2, tmp_path
):
    """The contract's proof on a real server: the ranking sets run through `openai:` and
    their target ranks come from the server's own first tokens (learned by echo), so they
    agree with the in-process transformers backend's token ids wherever the two top-10
    lists agree (they differ only by Q4_1 vs float32 arithmetic)."""
    from lexbench import api

    pairs = tmp_path / "capitals.txt"
    pairs.write_text("france\tparis\ngermany\tberlin\nitaly\trome\n")
    sets = (
        ("scan", {"limit": 12}),
        ("google", {"limit_per_relation": 1}),
        ("pairs", {"data": pairs}),
    )
    served = model(llama_server)
    for name, options in sets:
        through_server = api.run(
            name, served, out=tmp_path / "server", use_cache=False, progress=False, **options
        )
        in_process = api.run(
            name, smollm2, out=tmp_path / "local", use_cache=False, progress=False, **options
        )
        config = json.loads(through_server.folder.config_path.read_text())
        assert config["model"]["rank_target_rule"].startswith("exact"), config["model"]
        assert through_server.results["run"]["failed"] == 0
        from lexbench.models.targets import first_token_id

        a = {
            r["id"]: r
            for r in map(json.loads, through_server.folder.samples_path.read_text().splitlines())
        }
        b = {
            r["id"]: r
            for r in map(json.loads, in_process.folder.samples_path.read_text().splitlines())
        }
        assert a.keys() == b.keys() and len(a) >= 3
        for key, row in a.items():
            # The server's ranks are where its list holds each target's first token, as the
            # transformers tokenizer spells it: the token-id rule, in strings.
            texts = [t[1] for t in row["ranked"]]
            firsts = [
                smollm2.tokenizer.decode([first_token_id(smollm2.tokenizer, w)])
                for w in row["targets"]
            ]
            assert row["target_ranks"] == [
                texts.index(f) + 1 if f in texts else None for f in firsts
            ], (name, key, texts, firsts)
        agree = sum(a[k]["value"] == b[k]["value"] for k in a)
        assert agree >= len(a) // 2, (name, agree, len(a))  # measured on SCAN: 407/449
