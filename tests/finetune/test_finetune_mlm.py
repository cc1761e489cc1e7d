"""SCAN's BATS fine-tuning on a tiny random masked LM: the whole path (split, Trainer, best
checkpoint, output folder as `mlm:DIR` with its lineage, Table 4), seeded determinism, and
kill -9 mid-training followed by a resume that ends exactly where an uninterrupted run ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_finetune_fixtures import BATS_MINI, build_tiny_bert_mlm, same_weights

from lexbench.benchmarks.scan.finetune import finetune_scan_bats, masked_example, paper_config

SETTINGS = {
    "max_steps": 24,
    "eval_every": 4,
    "batch_size": 8,
    "learning_rate": 1e-3,
    "logging_steps": 2,
    "eval_batch_size": 16,
    "device": "cpu",
}


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory) -> Path:
    return build_tiny_bert_mlm(tmp_path_factory.mktemp("tiny-mlm"))


@pytest.fixture(autouse=True)
def _leave_torch_as_found():
    import torch

    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)


def _train(model: Path, output: Path, **overrides):
    return finetune_scan_bats(
        f"mlm:{model}",
        data=BATS_MINI,
        output=output,
        config=paper_config(**{**SETTINGS, **overrides}),
        validation_limit=8,
        progress=False,
    )


def test_masked_example_labels_the_mask_with_the_answers_first_token(tiny_mlm):
    from transformers import AutoTokenizer

    from lexbench.benchmarks.analogies.sets import Analogy

    tokenizer = AutoTokenizer.from_pretrained(str(tiny_mlm))
    item = Analogy(id="x", a="cat", b="cats", c="car", d="cars")
    answer = masked_example(tokenizer, item, "answer")
    position = answer["input_ids"].index(tokenizer.mask_token_id)
    assert answer["labels"][position] == tokenizer.convert_tokens_to_ids("cars")
    assert all(label == -100 for i, label in enumerate(answer["labels"]) if i != position)
    sequence = masked_example(tokenizer, item, "sequence")
    assert sequence["labels"][position] == answer["labels"][position]
    assert [lab for i, lab in enumerate(sequence["labels"]) if i != position] == [
        t for i, t in enumerate(sequence["input_ids"]) if i != position
    ]


def test_fine_tuned_folder_runs_as_mlm_with_its_lineage(tiny_mlm, tmp_path, shared_data):
    from lexbench.benchmarks.scan.finetune_table import scan_bats_table
    from lexbench.models.registry import load_model

    result = _train(tiny_mlm, tmp_path / "tuned")
    losses = result.outcome.train_losses()
    assert losses[-1] < losses[0]
    lineage = result.lineage
    assert lineage["best_validation"]["metric"] == "mrr"
    assert lineage["best_validation"]["step"] in range(4, 25, 4)
    assert lineage["data"]["counts"]["test"] == {"pairs": 24, "analogies": 48}
    assert lineage["hyperparameters"]["learning_rate"] == 1e-3
    assert not (tmp_path / "tuned" / "checkpoints" / "checkpoint-25").exists()
    with load_model(f"mlm:{tmp_path / 'tuned'}") as model:
        described = model.describe()
    assert described["lineage"]["best_validation"] == lineage["best_validation"]
    assert described["lineage"]["base_model"]["spec"] == f"mlm:{tiny_mlm}"

    table = scan_bats_table(
        tmp_path / "tuned",
        scan=shared_data / "scan" / "SCAN_dataset.csv",
        scan_limit=30,
        resamples=2000,
        unpaired_resamples=2000,
        out=tmp_path / "runs",
        progress=False,
    )
    tests = table["results"]["tests"]
    assert tests["BATS test"]["n"] == 48 and tests["SCAN"]["n"] == 30
    assert 0.0 <= tests["BATS test"]["p_items"] <= 1.0
    assert 1 / 2001 <= tests["BATS test"]["p_unpaired"] <= 1.0  # the paper's test
    assert "p (paper, unpaired)" in table["report"]
    config = json.loads((table["folder"] / "config.json").read_text())
    assert config["models"]["after"]["lineage"]["experiment"] == "scan-bats"
    assert "Lineage of the fine-tuned model" in table["report"]


def test_seeded_runs_are_identical_and_a_killed_run_resumes_to_the_same_end(tiny_mlm, tmp_path):
    first = _train(tiny_mlm, tmp_path / "first")
    second = _train(tiny_mlm, tmp_path / "second")
    assert same_weights(tmp_path / "first", tmp_path / "second")
    assert first.outcome.train_losses() == second.outcome.train_losses()

    output = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "lexbench.cli",
        "finetune",
        "scan-bats",
        "--model",
        f"mlm:{tiny_mlm}",
        "--data",
        str(BATS_MINI),
        "--output",
        str(output),
        "--validation-limit",
        "8",
        "--no-progress",
        "--max-steps",
        "24",
        "--eval-every",
        "4",
        "--batch-size",
        "8",
        "--learning-rate",
        "1e-3",
        "--logging-steps",
        "2",
        "--eval-batch-size",
        "16",
        "--device",
        "cpu",
    ]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    checkpoint = output / "checkpoints" / "checkpoint-8" / "trainer_state.json"
    deadline = time.monotonic() + 240
    # Kill once checkpoint-8 is whole: a kill mid-write of its trainer_state.json rightly
    # sends the resume back to checkpoint-4 (the rule under test), which this test cannot
    # then tell from a resume that ignored checkpoint-8.
    while not _readable_json(checkpoint) and process.poll() is None:
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "training ended before it could be killed"
    assert not (output / "lexbench-lineage.json").exists()

    resumed = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming from" in resumed.stdout
    lineage = json.loads((output / "lexbench-lineage.json").read_text())
    step = int(Path(lineage["resumed_from"]).name.split("-")[1])
    assert 8 <= step < 24
    assert same_weights(output, tmp_path / "first")
    history = [row["loss"] for row in lineage["history"] if "loss" in row]
    assert history == first.outcome.train_losses()


def _readable_json(path: Path) -> bool:
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return True


def test_checkpoints_of_another_configuration_are_not_resumed(tiny_mlm, tmp_path, capsys):
    from lexbench.cli import main

    args = [
        "finetune",
        "scan-bats",
        "--model",
        f"mlm:{tiny_mlm}",
        "--data",
        str(BATS_MINI),
        "--output",
        str(tmp_path / "out"),
        "--validation-limit",
        "4",
        "--no-progress",
        "--max-steps",
        "2",
        "--eval-every",
        "2",
        "--batch-size",
        "4",
        "--device",
        "cpu",
    ]
    assert main(args) == 0
    assert main([*args, "--learning-rate", "2e-3"]) == 2
    assert (
        "holds checkpoints of another run (differs in: hyperparameters)" in capsys.readouterr().err
    )
    assert main([*args, "--learning-rate", "2e-3", "--restart"]) == 0
