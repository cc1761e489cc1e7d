"""Fine-tuning data and bookkeeping, no model: SCAN's BATS split, lineage files, settings."""

from __future__ import annotations

import json
import zipfile

import pytest
from test_finetune_fixtures import BATS_MINI

from lexbench.benchmarks.scan.bats_split import (
    paper_split,
    paper_split_positions,
    read_relations,
    split_sizes,
)
from lexbench.benchmarks.scan.finetune import template_parts
from lexbench.finetune.checkpoints import last_complete_checkpoint
from lexbench.finetune.lineage import (
    LINEAGE_FILE,
    build_lineage,
    describe_lineage,
    path_sha256,
    read_lineage,
    write_lineage,
)
from lexbench.finetune.settings import TrainConfig


def test_fixture_reads_like_bats():
    relations = read_relations(BATS_MINI)
    assert len(relations) == 8
    assert {r.category for r in relations} == {
        "1_Inflectional_morphology",
        "2_Derivational_morphology",
        "3_Encyclopedic_semantics",
        "4_Lexicographic_semantics",
    }
    assert all(len(r.pairs) == 16 for r in relations)
    hypernyms = next(r for r in relations if r.name == "L01 [hypernyms - animals]")
    assert hypernyms.pairs[0] == ("cat", ("feline", "mammal", "animal"))


def test_split_sizes_follow_pandas_rounding():
    assert split_sizes(50) == (35, 8, 7)  # real BATS files
    assert split_sizes(16) == (11, 2, 3)  # the fixture (round(2.5) is 2)


def test_each_word_pair_is_in_one_split_only():
    relations = read_relations(BATS_MINI)
    split = paper_split(relations, seed=101)
    for relation in relations:
        seen = [
            pair
            for name in ("train", "validation", "test")
            for pair in split.pairs[name][relation.name]
        ]
        assert sorted(seen) == sorted(relation.pairs)  # all pairs, none twice
    for name, items in split.analogies.items():
        members = {(w, t[0]) for pairs in split.pairs[name].values() for w, t in pairs}
        for item in items:  # built within the split
            assert (item.a, item.b) in members and (item.c, item.d) in members
    assert split.counts() == {
        "train": {"pairs": 88, "analogies": 880},
        "validation": {"pairs": 16, "analogies": 16},
        "test": {"pairs": 24, "analogies": 48},
    }
    other = paper_split(relations, seed=7)
    assert other.pairs["test"] != split.pairs["test"]


def test_split_reproduces_the_paper_codes_pandas_draws():
    pandas = pytest.importorskip("pandas")
    for count in (16, 50):
        frame = pandas.DataFrame({"line": range(count)})
        train = frame.sample(frac=0.7, random_state=101)
        rest = frame[~frame.index.isin(train.index)]
        dev = rest.sample(frac=0.5, random_state=102)
        test = rest[~rest.index.isin(dev.index)]
        ours = paper_split_positions(count, 101)
        assert ours["train"] == sorted(train["line"])
        assert ours["validation"] == sorted(dev["line"])
        assert ours["test"] == sorted(test["line"])


def test_zip_and_folder_are_the_same_data(tmp_path):
    archive = tmp_path / "bats.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        for file in sorted(BATS_MINI.rglob("*.txt")):
            handle.write(file, str(file.relative_to(BATS_MINI)))
    assert read_relations(archive) == read_relations(BATS_MINI)
    folder_copy = tmp_path / "copy"
    for file in BATS_MINI.rglob("*.txt"):
        target = folder_copy / file.relative_to(BATS_MINI)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file.read_bytes())
    assert path_sha256(archive) == path_sha256(folder_copy)
    (folder_copy / "1_Inflectional_morphology" / "I01 [noun - plural_reg].txt").write_text(
        "a\tb\nc\td\ne\tf\n"
    )
    assert path_sha256(archive) != path_sha256(folder_copy)


def test_bad_relation_files_are_named(tmp_path):
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "R1 [x - y].txt").write_text("one\ttwo\nthree\n")
    with pytest.raises(ValueError, match=r"R1 \[x - y\]\.txt:2"):
        read_relations(tmp_path)
    with pytest.raises(FileNotFoundError, match="no BATS"):
        read_relations(tmp_path / "missing")


def test_template_parts_are_the_scan_template():
    assert template_parts("atom", "solar system", "nucleus") == (
        "If atom is like solar system, then nucleus is like",
        ".",
    )


def test_lineage_round_trip_and_description(tmp_path):
    lineage = build_lineage(
        experiment="scan-bats",
        base_model={"spec": "m", "fingerprint": {"model": "m"}},
        data={"source": "d", "sha256": "ab"},
        split_seed=101,
        hyperparameters={"learning_rate": 5e-5},
        model_kind="hf",
        best_validation={"metric": "mrr", "value": 0.5, "step": 4},
        history=[{"loss": 1.0, "step": 1}],
    )
    write_lineage(tmp_path, lineage)
    assert read_lineage(tmp_path) == json.loads(json.dumps(lineage))
    assert {"torch", "transformers", "peft", "accelerate"} <= set(lineage["libraries"])
    described = describe_lineage(tmp_path)
    assert described["best_validation"] == {"metric": "mrr", "value": 0.5, "step": 4}
    assert described["split_seed"] == 101 and "history" not in described
    assert described["file"].endswith(LINEAGE_FILE) and len(described["file_sha256"]) == 64
    assert describe_lineage(tmp_path / "elsewhere") is None
    assert describe_lineage("HuggingFaceTB/SmolLM2-135M-Instruct (x.gguf)") is None
    (tmp_path / LINEAGE_FILE).write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        read_lineage(tmp_path)


def test_train_config_rejects_bad_settings():
    with pytest.raises(ValueError, match="CUDA_VISIBLE_DEVICES=1"):
        TrainConfig(learning_rate=1e-4, batch_size=2, epochs=1, seed=0, device="cuda:1")
    with pytest.raises(ValueError, match="eval_every"):
        TrainConfig(learning_rate=1e-4, batch_size=2, epochs=1, seed=0, eval_every=0)
    with pytest.raises(ValueError, match="learning rate"):
        TrainConfig(learning_rate=0, batch_size=2, epochs=1, seed=0)


def test_a_checkpoint_cut_short_is_passed_over(tmp_path):
    for step in (2, 4, 6):
        (tmp_path / f"checkpoint-{step}").mkdir()
    (tmp_path / "checkpoint-2" / "trainer_state.json").write_text("{}")
    (tmp_path / "checkpoint-4" / "trainer_state.json").write_text("{}")
    (tmp_path / "checkpoint-6" / "trainer_state.json").write_text('{"trunc')
    assert last_complete_checkpoint(tmp_path) == str(tmp_path / "checkpoint-4")
    assert last_complete_checkpoint(tmp_path / "checkpoint-6") is None


def test_table_of_a_folder_without_lineage_is_an_error(tmp_path, capsys):
    from lexbench.cli import main

    assert main(["finetune", "table", str(tmp_path)]) == 2
    assert "no lexbench-lineage.json" in capsys.readouterr().err
