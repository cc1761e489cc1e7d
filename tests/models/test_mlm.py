"""The masked-LM backend on a tiny randomly initialised BERT built here (no real BERT ships
offline): rank at the mask position, batching, errors, and SCAN through it."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from lexbench.models.mlm import MASK_PLACEHOLDER, MaskedLM, MLMOptions  # noqa: E402
from lexbench.models.registry import load_model  # noqa: E402
from lexbench.types import Request  # noqa: E402

WORDS = [
    "if",
    "is",
    "like",
    "then",
    "atom",
    "solar",
    "system",
    "nucleus",
    "sun",
    "electron",
    "planet",
    "mind",
    "computer",
    "memory",
    "ram",
    "war",
    "argument",
    "soldier",
    ",",
    ".",
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    folder = tmp_path_factory.mktemp("tiny-bert")
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = BertTokenizer(str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    BertForMaskedLM(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def model(tiny_bert):
    return load_model(f"mlm:{tiny_bert}", {"batch_size": 2})


def _manual_top(model: MaskedLM, prompt: str, k: int) -> list[int]:
    text = prompt.replace(MASK_PLACEHOLDER, model.tokenizer.mask_token)
    encoded = model.tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        logits = model.model(**encoded).logits[0]
    position = int((encoded["input_ids"][0] == model.tokenizer.mask_token_id).nonzero()[0, 0])
    return torch.topk(logits[position], k).indices.tolist()


def test_rank_matches_a_manual_forward_pass_and_is_batch_independent(model):
    prompts = [
        "If atom is like solar system, then nucleus is like [MASK].",
        "If mind is like computer, then memory is like [MASK].",
        "war is like [MASK].",
    ]
    requests = [Request(id=str(i), kind="rank", prompt=p, top_k=5) for i, p in enumerate(prompts)]
    batched = model.rank(requests)  # batch_size 2: mixed lengths, padding
    assert [r.request_id for r in batched] == ["0", "1", "2"]
    for prompt, response in zip(prompts, batched):
        assert [t.token_id for t in response.ranked] == _manual_top(model, prompt, 5)
        logprobs = [t.logprob for t in response.ranked]
        assert logprobs == sorted(logprobs, reverse=True) and all(lp < 0 for lp in logprobs)
    alone = model.rank(requests[2:])
    assert [t.token_id for t in alone[0].ranked] == [t.token_id for t in batched[2].ranked]


def test_the_mask_goes_between_prompt_and_suffix_or_where_the_prompt_puts_it(model):
    # The causal LM's rank request (text before the answer, text after it) is answered at
    # the mask placed between them: the same ranking as the explicit [MASK] prompt.
    plain = Request(
        id="a",
        kind="rank",
        prompt="If mind is like computer, then memory is like",
        answer_suffix=".",
        top_k=5,
        targets=("ram",),
    )
    explicit = Request(
        id="b", kind="rank", top_k=5, prompt="If mind is like computer, then memory is like [MASK]."
    )
    first, second = model.rank([plain, explicit])
    assert [t.token_id for t in first.ranked] == [t.token_id for t in second.ranked]
    assert len(first.target_ranks) == 1 and second.target_ranks == ()
    with pytest.raises(ValueError, match="at most one"):
        model.rank([Request(id="x", kind="rank", prompt="[MASK] and [MASK]")])


def test_unknown_option_and_identity(tiny_bert, model):
    with pytest.raises(ValueError, match="do not apply to the mlm backend"):
        load_model(f"mlm:{tiny_bert}", {"chat_template": True})
    fingerprint = model.fingerprint()
    assert fingerprint["backend"] == "mlm" and fingerprint["weights_sha256"]
    assert isinstance(model, MaskedLM) and model.options == MLMOptions(batch_size=2)


def test_scan_through_the_masked_backend(model, shared_data, tmp_path):
    from lexbench import api
    from lexbench.run.store import read_run

    evaluation = api.run(
        "scan",
        model,
        data=shared_data / "scan" / "SCAN_dataset.csv",
        limit=1,  # the first analogy of each of the 65 concept mappings
        shots=1,
        out=tmp_path / "runs",
        progress=False,
        use_cache=False,
    )
    config, samples, results = read_run(evaluation.folder.path)
    assert config["benchmark"]["request_kind"] == "rank" and config["model"]["kinds"] == ["rank"]
    assert len(samples) == 65 and results["overall"]["n"] == 65
    for row in samples:
        assert row["prompt"].endswith("is like") and "[MASK]" not in row["prompt"]
        assert row["prompt"].count("If ") == 2  # one shot, then the query
        keys = [
            model.tokenizer(" " + w, add_special_tokens=False)["input_ids"][0]
            for w in row["targets"]
        ]
        ranked_ids = [t[0] for t in row["ranked"]]
        assert row["target_ranks"] == [
            ranked_ids.index(k) + 1 if k in ranked_ids else None for k in keys
        ]
        hits = [p for p, t in enumerate(ranked_ids, 1) if t in keys]
        assert row["value"] == (1 / hits[0] if hits else 0.0)
