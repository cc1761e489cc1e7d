"""Local weights are identified by their content, remembered per file: bytes changed in
place (same size, same mtime) or a further checkpoint saved into the folder give a new
fingerprint, so every request is sent again and the run goes to a new folder; a second
look at unchanged files reads nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lexbench.models import weights_identity
from lexbench.models.weights_identity import folder_sha256, identity_files, remembered_sha256
from lexbench.run.cache import ResponseCache
from lexbench.run.runner import execute
from lexbench.run.store import run_folder
from lexbench.types import Decoding, Request


def rewrite_same_size(path: Path, offset: int = -4) -> None:
    """Change one byte of `path` in place, keeping its size and its mtime: only the content
    (and the ctime no tool can set back) tells the new file from the old."""
    stat = path.stat()
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    with open(path, "r+b") as handle:  # in place: same inode
        handle.write(data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns


@pytest.fixture
def memo_root(tmp_path, monkeypatch):
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "lexbench-cache"))
    return tmp_path


def test_a_file_is_hashed_once_until_its_bytes_change(memo_root, monkeypatch):
    weights = memo_root / "model.safetensors"
    weights.write_bytes(b"\x00" * 4096)
    calls: list[Path] = []
    real = weights_identity.sha256_file

    def counting(path):
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(weights_identity, "sha256_file", counting)
    first = remembered_sha256(weights)
    assert remembered_sha256(weights) == first and len(calls) == 1  # remembered
    rewrite_same_size(weights)
    second = remembered_sha256(weights)
    assert second != first and len(calls) == 2
    assert second == real(weights)


def test_the_folder_identity_covers_weights_config_and_tokenizer_only(memo_root):
    folder = memo_root / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "checkpoint-500").mkdir()
    for name in ("model.safetensors", "config.json", "vocab.txt", "1_Pooling/config.json"):
        (folder / name).write_text(name)
    (folder / "README.md").write_text("card")
    (folder / "optimizer.pt").write_text("a trainer's state, not the model")
    (folder / "rng_state.pth").write_text("a trainer's state, not the model")
    (folder / ".partial.safetensors").write_text("a writer's temporary file")
    (folder / "checkpoint-500" / "model.safetensors").write_text("not loaded with the folder")
    assert [p.relative_to(folder).as_posix() for p in identity_files(folder)] == [
        "config.json",
        "model.safetensors",
        "vocab.txt",
        "1_Pooling/config.json",
    ]
    before = folder_sha256(folder)
    (folder / "README.md").write_text("another card")
    assert folder_sha256(folder) == before
    for name in ("vocab.txt", "1_Pooling/config.json"):
        rewrite_same_size(folder / name, offset=0)
        assert folder_sha256(folder) != before
        before = folder_sha256(folder)
    (folder / "model-00002-of-00002.safetensors").write_text("a further shard")
    assert folder_sha256(folder) != before


def test_a_damaged_memo_costs_a_rehash_not_a_failure(memo_root):
    weights = memo_root / "w.bin"
    weights.write_bytes(b"abc")
    digest = remembered_sha256(weights)
    memo = memo_root / "lexbench-cache" / "weights" / weights_identity.MEMO_FILE
    memo.write_text("{ not json")
    assert remembered_sha256(weights) == digest


def test_a_cache_that_cannot_be_written_costs_a_rehash_not_a_failure(tmp_path, monkeypatch):
    # Tests run as root, which ignores permissions: a file where the cache root's folder
    # should be refuses every mkdir and write as a read-only cache would.
    blocked = tmp_path / "lexbench-cache"
    blocked.write_text("not a folder")
    monkeypatch.setenv("LEXBENCH_CACHE", str(blocked))
    weights = tmp_path / "w.bin"
    weights.write_bytes(b"abc")
    expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert remembered_sha256(weights) == expected
    assert remembered_sha256(weights) == expected


def test_word_vectors_given_as_a_path_are_keyed_on_their_content(memo_root):
    from lexbench.models.embeddings import load

    vectors = memo_root / "vectors.txt"
    vectors.write_text("cat 0.1 0.2\ndog 0.3 0.4\n")
    before = load(str(vectors), {}).fingerprint()
    vectors.write_text("cat 0.1 0.2\ndog 0.3 0.5\n")  # same size, one number changed
    assert load(str(vectors), {}).fingerprint() != before


@pytest.fixture(scope="module")
def tiny_causal(tmp_path_factory, user_cache_root):
    pytest.importorskip("transformers")
    from test_finetune_fixtures import build_tiny_causal

    return build_tiny_causal(tmp_path_factory.mktemp("tiny-causal") / "model")


def _requests() -> list[Request]:
    prompts = ["A cat is a kind of", "Paris is the capital of", "Red, green and"]
    ranks = [Request(id=f"r{i}", kind="rank", prompt=p, top_k=3) for i, p in enumerate(prompts)]
    decoding = Decoding(max_new_tokens=2)
    generates = [
        Request(id=f"g{i}", kind="generate", prompt=p, decoding=decoding)
        for i, p in enumerate(prompts)
    ]
    return ranks + generates


def _save_another_checkpoint(folder: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    torch.manual_seed(1)
    model = AutoModelForCausalLM.from_config(
        AutoModelForCausalLM.from_pretrained(str(folder)).config
    )
    model.save_pretrained(str(folder))


def test_changed_weights_of_the_same_size_are_asked_everything_again(
    tiny_causal, tmp_path, memo_root
):
    from lexbench.models.hf import HFCausalLM

    folder = tmp_path / "checkpoints"
    import shutil

    shutil.copytree(tiny_causal, folder)
    requests = _requests()
    seen_folders = set()
    with ResponseCache(tmp_path / "responses.sqlite") as cache:
        for change in (None, "bytes", "checkpoint"):
            if change == "bytes":
                rewrite_same_size(folder / "model.safetensors")
            elif change == "checkpoint":
                size = (folder / "model.safetensors").stat().st_size
                _save_another_checkpoint(folder)
                assert (folder / "model.safetensors").stat().st_size == size
            model = HFCausalLM.from_spec(str(folder))
            _, stats = execute(model, requests, cache=cache, progress=False)
            assert (stats.sent, stats.cached) == (len(requests), 0), change
            _, again = execute(model, requests, cache=cache, progress=False)
            assert (again.sent, again.cached) == (0, len(requests))
            identity = {"benchmark": {"name": "b"}, "model": model.fingerprint()}
            seen_folders.add(run_folder(tmp_path / "runs", "b", model.name, identity).path)
    assert len(seen_folders) == 3  # the run folder follows the weights


def test_masked_and_contextual_encoders_follow_their_weights(tmp_path, memo_root):
    pytest.importorskip("transformers")
    from test_finetune_fixtures import build_tiny_bert_mlm, build_tiny_encoder

    from lexbench.benchmarks.ekar.contextual import ContextualTupleModel
    from lexbench.metrics.similarity import SentenceSimilarity
    from lexbench.models.mlm import MaskedLM

    mlm = build_tiny_bert_mlm(tmp_path / "mlm")
    encoder = build_tiny_encoder(tmp_path / "encoder")
    before_mlm = MaskedLM.from_spec(str(mlm)).fingerprint()
    before_encoder = ContextualTupleModel(encoder).fingerprint()
    before_similarity = SentenceSimilarity(encoder).weights_sha256()
    rewrite_same_size(mlm / "model.safetensors")
    rewrite_same_size(encoder / "model.safetensors")
    assert MaskedLM.from_spec(str(mlm)).fingerprint() != before_mlm
    assert ContextualTupleModel(encoder).fingerprint() != before_encoder
    assert SentenceSimilarity(encoder).weights_sha256() != before_similarity


def test_every_file_but_documents_and_trainer_state_is_in_the_identity(memo_root):
    """The rule is a list of what to skip, not of suffixes to keep (issue 37, item 1): a
    chat template, a generation config or a file no list foresaw changes the identity."""
    folder = memo_root / "model"
    folder.mkdir()
    kept = ["chat_template.jinja", "generation_config.json", "model.safetensors", "special.py"]
    for name in [*kept, "README.md", "LICENSE", "card.png", "scaler.pt", ".gitattributes"]:
        (folder / name).write_text(f"{name} content")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: main")
    assert [p.name for p in identity_files(folder)] == kept
    before = folder_sha256(folder)
    for name in ("README.md", "LICENSE", "card.png", ".git/HEAD"):
        (folder / name).write_text("edited by people, read by no loader")
    assert folder_sha256(folder) == before
    for name in kept:
        rewrite_same_size(folder / name, offset=0)
        assert folder_sha256(folder) != before, name
        before = folder_sha256(folder)
    (folder / "added_tokens.json").write_text("{}")
    assert folder_sha256(folder) != before


def test_an_edited_chat_template_is_asked_everything_again(tiny_causal, tmp_path, memo_root):
    """chat_template.jinja edited in place (same size, same mtime): a rerun sends every
    request again instead of taking the old template's answers from the cache."""
    import shutil

    from lexbench.models.hf import HFCausalLM, HFOptions

    folder = tmp_path / "chatty"
    shutil.copytree(tiny_causal, folder)
    template = folder / "chat_template.jinja"
    if not template.is_file():  # transformers before 4.50 kept it in tokenizer_config.json
        tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text())
        template.write_text(tokenizer_config.pop("chat_template"))
        (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    text = template.read_text()
    assert "assistant" in text
    requests = [r for r in _requests() if r.kind == "generate"]
    options = HFOptions(chat_template=True)
    with ResponseCache(tmp_path / "responses.sqlite") as cache:
        model = HFCausalLM.from_spec(str(folder), options)
        _, first = execute(model, requests, cache=cache, progress=False)
        stat = template.stat()
        template.write_text(text.replace("assistant", "assistent"))  # same size
        os.utime(template, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert template.stat().st_size == stat.st_size
        edited = HFCausalLM.from_spec(str(folder), options)
        assert edited._prompt_text(requests[0]) != model._prompt_text(requests[0])
        _, again = execute(edited, requests, cache=cache, progress=False)
    assert (first.sent, again.sent, again.cached) == (len(requests), len(requests), 0)
