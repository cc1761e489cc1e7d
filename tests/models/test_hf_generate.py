"""The transformers backend's own decoding loop against transformers' `generate`."""

import json
import os

import pytest
import torch

from lexbench.hashing import sha256_file
from lexbench.models.hf_decode import choose_next_tokens, shared_prefix_length
from lexbench.models.hf_files import dequantised_cache
from lexbench.types import Decoding, Request


def test_shared_prefix_length():
    assert shared_prefix_length([[1] * 10 + [2], [1] * 10 + [3, 4]]) == 10
    assert shared_prefix_length([[1] * 10 + [2], [1] * 10 + [3]], minimum=11) == 0
    # every prompt keeps at least one token of its own
    assert shared_prefix_length([[1] * 9, [1] * 12], minimum=1) == 8
    assert shared_prefix_length([[5, 6], [7, 8]]) == 0


def test_dequantised_cache_survives_a_copy_with_a_new_mtime(tmp_path, monkeypatch):
    # A second venv's copy of the same GGUF has another mtime: the cached safetensors are
    # reused after a rehash instead of being de-quantised again; changed bytes are not.
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "tiny.gguf"
    source.write_bytes(b"GGUF stand-in bytes")
    folder = tmp_path / "cache" / "models" / "tiny-float32"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    stat = source.stat()
    (folder / "lexbench-source.json").write_text(
        json.dumps(
            {
                "identity": {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns - 10**9},
                "sha256": sha256_file(source),
                "source": "/elsewhere/tiny.gguf",
            }
        )
    )
    assert dequantised_cache(source, "float32") == (folder, sha256_file(source))
    meta = json.loads((folder / "lexbench-source.json").read_text())
    assert meta["identity"]["mtime_ns"] == stat.st_mtime_ns and meta["source"] == str(source)

    source.write_bytes(b"other bytes, same cache name")
    os.utime(source, ns=(stat.st_mtime_ns + 10**9, stat.st_mtime_ns + 10**9))

    class Rebuilding(Exception):
        pass

    def refuse_to_rebuild(*args, **kwargs):
        raise Rebuilding

    # Changed bytes must be de-quantised again, not served from the stale cache.
    monkeypatch.setattr("transformers.AutoTokenizer.from_pretrained", refuse_to_rebuild)
    with pytest.raises(Rebuilding):
        dequantised_cache(source, "float32")


def test_choose_next_tokens_greedy_and_filtered_sampling():
    logits = torch.tensor([[0.0, 5.0, 1.0, -1.0], [3.0, 0.0, 0.0, 0.0]])
    assert choose_next_tokens(logits, Decoding(), None).tolist() == [1, 0]
    generator = torch.Generator().manual_seed(0)
    # top_k=1 leaves only the argmax, whatever the temperature
    top1 = Decoding(temperature=5.0, top_k=1)
    for _ in range(20):
        assert choose_next_tokens(logits, top1, generator).tolist() == [1, 0]
    # a tiny nucleus keeps only the most likely token too
    nucleus = Decoding(temperature=1.0, top_p=0.05)
    assert choose_next_tokens(logits, nucleus, generator).tolist() == [1, 0]


PROMPTS = [
    "Answer with exactly one word that completes the last line. Do not explain.\nhot : cold\nlarge : small\nhappy :",
    "Answer with exactly one word that completes the last line. Do not explain.\ndog : puppy\ncat : kitten\ncow :",
    "Answer with exactly one word that completes the last line. Do not explain.\nsing : singer\nwrite : writer\npaint :",
]


def _reference(model, prompt, max_new_tokens):
    encoded = model.tokenizer(prompt, return_tensors="pt")
    with torch.inference_mode():
        out = model.model.generate(
            **encoded,
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=model.tokenizer.pad_token_id,
        )
    tokens = [
        t
        for t in out[0, encoded["input_ids"].shape[1] :].tolist()
        if t != model.tokenizer.eos_token_id
    ]
    return model.tokenizer.decode(tokens, skip_special_tokens=True)


@pytest.mark.slow
def test_batched_prefix_cached_greedy_matches_generate(smollm2):
    decoding = Decoding(max_new_tokens=5)
    requests = [
        Request(id=str(i), kind="generate", prompt=p, decoding=decoding)
        for i, p in enumerate(PROMPTS)
    ]
    encoded = smollm2._encode(PROMPTS)
    assert shared_prefix_length(encoded) >= 8  # the shared instruction is reused from cache
    ours = [r.text for r in smollm2.generate(requests)]
    assert ours == [_reference(smollm2, p, 5) for p in PROMPTS]


@pytest.mark.slow
def greedy_first_word(model, prompts, cap=8):
    """Independently: greedy text after k = 1..cap tokens; the first k at which a whole word
    is complete (else the cap) is where the word protocol must stop."""
    from lexbench.models.hf_decode import first_word_complete

    done: dict[int, str] = {}
    for k in range(1, cap + 1):
        texts = [
            r.text
            for r in model.generate(
                [
                    Request(
                        id=f"k{k}-{i}",
                        kind="generate",
                        prompt=p,
                        decoding=Decoding(max_new_tokens=k),
                    )
                    for i, p in enumerate(prompts)
                ]
            )
        ]
        for i, text in enumerate(texts):
            if i not in done and (first_word_complete(text) or k == cap):
                done[i] = text
    return [done[i] for i in range(len(prompts))]


def test_word_end_and_stop_strings(smollm2):
    word = Decoding(max_new_tokens=8, stop_at_word_end=True)
    stop = Decoding(max_new_tokens=8, stop=("\n",))
    requests = [
        Request(id=f"w{i}", kind="generate", prompt=p, decoding=word) for i, p in enumerate(PROMPTS)
    ]
    requests += [
        Request(id=f"s{i}", kind="generate", prompt=p, decoding=stop) for i, p in enumerate(PROMPTS)
    ]
    responses = smollm2.generate(requests)
    plain = [
        r.text
        for r in smollm2.generate(
            [
                Request(id=f"p{i}", kind="generate", prompt=p, decoding=Decoding(max_new_tokens=8))
                for i, p in enumerate(PROMPTS)
            ]
        )
    ]
    words = [r.text for r in responses if r.request_id.startswith("w")]
    assert words == greedy_first_word(smollm2, PROMPTS)
    for response in responses:
        assert response.generated_tokens <= 8
    for i, response in enumerate(r for r in responses if r.request_id.startswith("s")):
        # The stop string cuts the same greedy text, and is not kept.
        assert response.text == plain[i].split("\n")[0]


@pytest.mark.slow
def test_seeded_sampling_is_reproducible(smollm2):
    sampled = Decoding(max_new_tokens=6, temperature=0.9, top_p=0.9, top_k=40, seed=11)
    requests = [
        Request(id=str(i), kind="generate", prompt=p, decoding=sampled)
        for i, p in enumerate(PROMPTS)
    ]
    first = [r.text for r in smollm2.generate(requests)]
    second = [r.text for r in smollm2.generate(requests)]
    assert first == second
