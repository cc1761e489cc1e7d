"""Tiny models the fine-tuning tests train (no test here: helpers other test_finetune_*
modules import). All are built on the spot, offline, in a few seconds:

* a tiny random BERT masked LM whose vocabulary holds the SCAN template and every word of
  the BATS-layout fixture (so each answer is one token);
* a tiny random BERT encoder with the packaged all-MiniLM-L6-v2 tokenizer (E-KAR QA);
* a tiny random Llama causal LM with SmolLM2's tokenizer (explanation generator).
"""

from __future__ import annotations

import re
from pathlib import Path

BATS_MINI = Path(__file__).parents[1] / "fixtures" / "bats_mini"
EKAR_EN = Path(__file__).parents[1] / "fixtures" / "ekar" / "english"
TEMPLATE_WORDS = ["if", "is", "like", "then", ",", "."]


def bats_words() -> list[str]:
    words: set[str] = set()
    for file in BATS_MINI.rglob("*.txt"):
        words.update(w for w in re.split(r"[\t/\n]+", file.read_text(encoding="utf-8")) if w)
    return sorted(words)


def build_tiny_bert_mlm(folder: Path) -> Path:
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *TEMPLATE_WORDS, *bats_words()])
        + "\n",
        encoding="utf-8",
    )
    tokenizer = BertTokenizer(str(vocab), do_lower_case=True)
    tokenizer.save_pretrained(str(folder))
    import torch

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertForMaskedLM(config).save_pretrained(str(folder))
    return folder


def build_tiny_encoder(folder: Path) -> Path:
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from lexbench.metrics.similarity import packaged_minilm_folder

    tokenizer = AutoTokenizer.from_pretrained(str(packaged_minilm_folder()))
    tokenizer.save_pretrained(str(folder))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(str(folder))
    return folder


def build_tiny_causal(folder: Path) -> Path:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf

    source, _ = dequantised_cache(packaged_smollm2_gguf(), "float32")
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    tokenizer.save_pretrained(str(folder))
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(str(folder))
    return folder


def weights(folder: Path) -> dict:
    """Every tensor of the folder's safetensors files, by name (for exact comparisons)."""
    from safetensors.torch import load_file

    out = {}
    for file in sorted(Path(folder).glob("*.safetensors")):
        out.update({f"{file.name}:{k}": v for k, v in load_file(str(file)).items()})
    return out


def same_weights(first: Path, second: Path) -> bool:
    import torch

    a, b = weights(first), weights(second)
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
