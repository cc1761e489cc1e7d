"""A short fine-tune of the packaged SmolLM2-135M on the BATS-layout fixture (LoRA, a few
steps: the few-hundred-step run is a documented command, the README, Fine-tuning experiments): the training
loss falls, and SCAN's Table 4 reports a measurable change of BATS-test MRR with the
paired permutation test. Slow: SmolLM2 steps take seconds each on a CPU."""

from __future__ import annotations

import json

import pytest
from test_finetune_fixtures import BATS_MINI

from lexbench.benchmarks.scan.finetune import finetune_scan_bats, paper_config
from lexbench.finetune.lora import LoraSettings

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _leave_torch_as_found():
    import torch

    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)


def test_short_smollm2_fine_tune_lowers_loss_and_moves_bats_mrr(tmp_path, shared_data):
    from lexbench.benchmarks.scan.finetune_table import scan_bats_table
    from lexbench.models.registry import load_model

    output = tmp_path / "smollm2-bats"
    result = finetune_scan_bats(
        "smollm2-135m",
        data=BATS_MINI,
        output=output,
        validation_limit=8,
        progress=False,
        config=paper_config(
            max_steps=4,
            eval_every=4,
            batch_size=4,
            learning_rate=1e-3,
            logging_steps=1,
            device="cpu",
            lora=LoraSettings(r=8, alpha=16),
        ),
    )
    losses = result.outcome.train_losses()
    assert len(losses) == 4 and losses[-1] < losses[0]
    assert result.lineage["lora"]["r"] == 8
    assert result.lineage["base_model"]["fingerprint"]["weights_sha256"]

    with load_model(f"hf:{output}") as model:
        assert model.describe()["lineage"]["experiment"] == "scan-bats"

    table = scan_bats_table(
        output,
        scan=shared_data / "scan" / "SCAN_dataset.csv",
        scan_limit=20,
        resamples=5000,
        unpaired_resamples=5000,
        out=tmp_path / "runs",
        progress=False,
    )
    bats = table["results"]["tests"]["BATS test"]
    assert bats["n"] == 48
    assert abs(bats["after"] - bats["before"]) > 0.01  # measurably moved
    assert 0.0 < bats["p_items"] <= 1.0
    config = json.loads((table["folder"] / "config.json").read_text())
    assert config["models"]["before"]["name"] == "smollm2-135m"
    assert config["models"]["after"]["lineage"]["lora"]["r"] == 8
