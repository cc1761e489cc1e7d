"""E-KAR's fine-tuned baselines on the fixtures: the classifier (packaged all-MiniLM-L6-v2)
as a model kind run by the E-KAR benchmark, the explanation generator (tiny causal and
seq2seq models), and Acc(Δ) end to end.

The classifier check is a sanity check, stated as such: trained and scored on the same
validation problems (12 in the fixture), it must beat chance (1 in 4) by a wide margin;
it says nothing about generalisation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_finetune_fixtures import EKAR_EN, build_tiny_causal, build_tiny_encoder

from lexbench.benchmarks.ekar import finetune_explain as ekar_generator
from lexbench.benchmarks.ekar import finetune_qa as ekar_qa

FAST = {"batch_size": 4, "logging_steps": 1, "device": "cpu"}


def validation_size() -> int:
    from lexbench.benchmarks.ekar.splits import load_split

    return len(load_split("en", "validation", data=EKAR_EN).items)


@pytest.fixture(autouse=True)
def _leave_torch_as_found():
    import torch

    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)


@pytest.fixture(scope="module")
def minilm_classifier(tmp_path_factory) -> Path:
    output = tmp_path_factory.mktemp("ekar-qa") / "classifier"
    ekar_qa.finetune_ekar_qa(
        "all-minilm-l6-v2",
        output=output,
        data=EKAR_EN,
        train_split="validation",
        eval_split="validation",
        max_length=48,
        config=ekar_qa.paper_config(max_steps=9, eval_every=9, learning_rate=1e-4, **FAST),
        progress=False,
    )
    return output


def test_classifier_beats_chance_on_its_own_training_data(minilm_classifier, tmp_path):
    """Sanity check only: training data = evaluation data."""
    from lexbench.benchmarks.ekar.benchmark import run_ekar
    from lexbench.models.registry import load_model

    with load_model(f"ekar-classifier:{minilm_classifier}") as model:
        run = run_ekar(
            model,
            data=EKAR_EN,
            split="validation",
            normalisation="sum",
            out=tmp_path / "runs",
            progress=False,
        )
    overall = run.results["overall"]
    assert overall["n"] == validation_size() and overall["accuracy"] > 0.5
    config = json.loads((run.folder.path / "config.json").read_text())
    assert config["model"]["lineage"]["experiment"] == "ekar-qa"
    assert config["model"]["lineage"]["base_model"]["spec"] == "all-minilm-l6-v2"

    table = ekar_qa.ekar_qa_table(
        minilm_classifier, split="validation", data=EKAR_EN, out=tmp_path / "tables"
    )
    rows = table["results"]["by_meta_relation"]
    assert list(rows)[:5] == ["R1", "R2", "R3", "R4", "R5"]
    assert sum(r["n"] for r in rows.values()) == validation_size()
    assert table["results"]["overall"]["accuracy"] == overall["accuracy"]
    assert "Lineage of the fine-tuned model" in table["report"]


def test_classifier_answers_loglikelihood_requests_with_a_softmax(minilm_classifier):
    import math

    from lexbench.models.registry import load_model
    from lexbench.types import Request

    with load_model(f"ekar-classifier:{minilm_classifier}", {"batch_size": 2}) as model:
        responses = model.loglikelihood(
            [
                Request(
                    id="a",
                    kind="loglikelihood",
                    prompt="wool : sweater ::",
                    continuations=(" leather : shoe", " sheep : grass", " winter : cold"),
                ),
                Request(
                    id="b",
                    kind="loglikelihood",
                    prompt="hot : cold ::",
                    continuations=(" big : small", " cat : dog"),
                ),
            ]
        )
        with pytest.raises(ValueError, match="two or more"):
            model.loglikelihood(
                [Request(id="c", kind="loglikelihood", prompt="x", continuations=(" y",))]
            )
    assert [len(r.loglikelihoods) for r in responses] == [3, 2]
    for response in responses:
        assert math.isclose(sum(math.exp(v) for v in response.loglikelihoods), 1.0, rel_tol=1e-5)
        assert set(response.continuation_tokens) == {1}


def test_causal_generator_learns_the_explanation_only():
    from transformers import AutoTokenizer

    from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf

    tokenizer = AutoTokenizer.from_pretrained(
        str(dequantised_cache(packaged_smollm2_gguf(), "float32")[0])
    )
    row = ekar_generator.causal_row(
        tokenizer, "query = a : b </s> generate the explanation of Q", "a is made of b."
    )
    prompt_length = row["labels"].count(-100)
    assert prompt_length > 0 and row["input_ids"][prompt_length:] == row["labels"][prompt_length:]
    assert row["labels"][-1] == tokenizer.eos_token_id


def test_accdelta_end_to_end(tmp_path):
    generator = tmp_path / "generator"
    ekar_generator.finetune_ekar_explain(
        f"hf:{build_tiny_causal(tmp_path / 'tiny-causal')}",
        output=generator,
        data=EKAR_EN,
        config=ekar_generator.paper_config(max_steps=2, eval_every=2, learning_rate=1e-3, **FAST),
        progress=False,
    )
    qa = tmp_path / "qa"
    ekar_qa.finetune_ekar_qa(
        str(build_tiny_encoder(tmp_path / "tiny-encoder")),
        output=qa,
        data=EKAR_EN,
        input_format="explanations",
        train_split="validation",
        max_length=96,
        config=ekar_qa.paper_config(max_steps=6, eval_every=6, learning_rate=1e-3, **FAST),
        progress=False,
    )
    table = ekar_accdelta_table(generator, qa, tmp_path)
    accuracy = table["results"]["accuracy"]
    assert set(accuracy) == {"none", "generated", "gold"}
    n = validation_size()
    assert all(row["n"] == n for row in accuracy.values())
    for row in accuracy.values():
        assert row["delta"] == pytest.approx(accuracy["gold"]["accuracy"] - row["accuracy"])
    metrics = table["results"]["eg_metrics"]
    assert metrics["E_Q"]["rouge2_f1"]["n"] == n and metrics["E_A"]["rouge2_f1"]["n"] == 4 * n
    samples = [
        json.loads(line) for line in (table["folder"] / "samples.jsonl").read_text().splitlines()
    ]
    assert set(samples[0]["generated"]) == {"Q", "A", "B", "C", "D"}
    lineage = json.loads((generator / "lexbench-lineage.json").read_text())
    assert lineage["model_kind"] == "hf" and lineage["hyperparameters"]["seq2seq"] is False
    with pytest.raises(ValueError, match="not an Acc"):
        ekar_accdelta_table(generator, generator, tmp_path)


def ekar_accdelta_table(generator: Path, qa: Path, tmp_path: Path) -> dict:
    from lexbench.benchmarks.ekar.finetune_accdelta import accdelta_table

    return accdelta_table(
        generator,
        qa,
        split="validation",
        data=EKAR_EN,
        max_new_tokens=6,
        use_similarity=False,
        out=tmp_path / "runs",
    )


def test_seq2seq_generator_trains_and_writes_explanations(tmp_path):
    import torch
    from transformers import AutoTokenizer, BartConfig, BartForConditionalGeneration

    from lexbench.metrics.similarity import packaged_minilm_folder

    base = tmp_path / "tiny-bart"
    tokenizer = AutoTokenizer.from_pretrained(str(packaged_minilm_folder()))
    tokenizer.save_pretrained(str(base))
    torch.manual_seed(0)
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        decoder_start_token_id=tokenizer.cls_token_id,
    )
    BartForConditionalGeneration(config).save_pretrained(str(base))
    result = ekar_generator.finetune_ekar_explain(
        f"hf:{base}",
        output=tmp_path / "eg",
        data=EKAR_EN,
        mode="easy",
        config=ekar_generator.paper_config(max_steps=2, eval_every=2, **FAST),
        progress=False,
    )
    assert result.lineage["model_kind"] == "seq2seq"
    assert result.lineage["hyperparameters"]["mode"] == "easy"
    generator = ekar_generator.load_generator(f"hf:{tmp_path / 'eg'}", for_training=False)
    assert generator.seq2seq
    prompt = "query = a : b </s> generate the explanation of A"
    texts = ekar_generator.generate_explanations(generator, [prompt], max_new_tokens=4)
    assert len(texts) == 1 and isinstance(texts[0], str)
