"""The end every fine-tuning run shares (`lexbench.finetune.finish`): the main process saves
the merged model and its lineage, any other process of `accelerate launch` writes nothing,
and the E-KAR classifier merges the LoRA adapters of its encoder like any peft model.
(The three trainers through it, end to end: test_finetune_ekar, _mlm, _smollm2.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_finetune_fixtures import build_tiny_encoder

from lexbench.benchmarks.scan.finetune import paper_config
from lexbench.finetune.finish import TrainedModel, finish
from lexbench.finetune.lora import LoraSettings
from lexbench.finetune.trainer import TrainingOutcome


def _outcome(main_process: bool) -> TrainingOutcome:
    return TrainingOutcome(
        best_metric="mrr",
        best_value=0.5,
        best_step=4,
        global_step=8,
        resumed_from=None,
        history=[{"step": 4, "eval_mrr": 0.5}],
        main_process=main_process,
    )


def _record(saved: list[Path]) -> TrainedModel:
    def save(model: object, tokenizer: object, folder: Path) -> None:
        saved.append(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "weights.txt").write_text(f"{model} {tokenizer}")

    return TrainedModel(
        experiment="scan-bats",
        base_spec="mlm:base",
        fingerprint={"model": "base", "weights_sha256": "ab"},
        data={"source": "bats"},
        hyperparameters={"learning_rate": 5e-5},
        model_kind="mlm",
        runs_as="mlm",
        split_seed=7,
        save=save,
    )


def test_only_the_main_process_writes(tmp_path):
    saved: list[Path] = []
    config = paper_config()
    result = finish(
        "model",
        "tokenizer",
        _outcome(main_process=False),
        model=_record(saved),
        output=tmp_path / "out",
        config=config,
    )
    assert result.lineage == {} and not saved and not (tmp_path / "out").exists()


def test_the_main_process_saves_and_writes_the_lineage(tmp_path):
    saved: list[Path] = []
    output = tmp_path / "out"
    config = paper_config(lora=LoraSettings(r=4, alpha=8))
    result = finish(
        "model", "tokenizer", _outcome(True), model=_record(saved), output=output, config=config
    )
    assert saved == [output] and (output / "weights.txt").read_text() == "model tokenizer"
    written = json.loads((output / "lexbench-lineage.json").read_text(encoding="utf-8"))
    assert written == result.lineage
    assert list(written)[:3] == ["lexbench_lineage", "experiment", "created"]
    assert list(written)[-3:] == ["spec", "global_step", "resumed_from"]
    assert written["spec"] == f"mlm:{output.resolve()}"
    assert written["base_model"] == {
        "spec": "mlm:base",
        "fingerprint": {"model": "base", "weights_sha256": "ab"},
    }
    assert written["model_kind"] == "mlm" and written["split_seed"] == 7
    assert written["lora"] == {"r": 4, "alpha": 8, "dropout": 0.05, "target_modules": "all-linear"}
    assert written["best_validation"] == {"metric": "mrr", "value": 0.5, "step": 4}


def test_the_classifier_merges_its_encoders_adapters(tmp_path):
    """`merge_lora(classifier)` leaves a plain encoder that answers as the adapted one did."""
    import torch

    from lexbench.finetune.choice_model import ChoiceModel, ChoiceSettings
    from lexbench.finetune.lora import apply_lora, merge_lora

    pytest.importorskip("peft")
    from transformers import AutoModel

    encoder = AutoModel.from_pretrained(str(build_tiny_encoder(tmp_path / "encoder")))
    network = ChoiceModel(encoder, ChoiceSettings(hidden_size=32)).eval()
    ids = torch.tensor([[[101, 2000, 2001, 102], [101, 2002, 2003, 102]]])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        plain = network(input_ids=ids, attention_mask=mask)["logits"]
    network.encoder = apply_lora(network.encoder, LoraSettings(r=2, alpha=4), None)
    network.eval()  # peft adds its dropout layers in training mode
    with torch.no_grad():  # adapters that change the answers, so merging them shows
        for name, parameter in network.encoder.named_parameters():
            if "lora_B" in name:
                parameter.fill_(0.05)
        adapted = network(input_ids=ids, attention_mask=mask)["logits"]
        assert not torch.allclose(adapted, plain)
        merged = merge_lora(network)
        assert merged is network and not hasattr(merged.encoder, "peft_config")
        assert torch.allclose(merged(input_ids=ids, attention_mask=mask)["logits"], adapted)
