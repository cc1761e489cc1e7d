"""LAMBDA through the whole pipeline: scripted model (fast) and the real SmolLM2 (slow)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark, limit_per_relation, rescore
from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
from lexbench.benchmarks.lambda_.taxonomy import ERROR_CLASSES
from lexbench.run.evaluate import evaluate
from lexbench.run.store import read_run
from mock_model import ScriptedModel


@pytest.fixture(scope="module")
def small_items(wordnet_index):
    return generate_items(wordnet_index, LambdaConfig(per_relation=10))


def _oracle(items):
    """Right on even items (the gold word), echoes the query on odd ones."""
    by_id = {i.id: i for i in items}

    def reply(request):
        item = by_id[request.id]
        return f" {item.gold}\n" if int(item.id[-4:]) % 2 == 0 else f" {item.query}"

    return reply


def test_evaluate_writes_a_complete_run_folder(small_items, wordnet_index, tmp_path, tmp_cache):
    model = ScriptedModel(_oracle(small_items))
    bench = LambdaBenchmark(dataset=small_items, index=wordnet_index)
    run = evaluate(bench, model, out_root=tmp_path, cache=tmp_cache, progress=False)
    config, samples, results = read_run(run.folder.path)
    assert results["overall"]["n"] == 30 and results["overall"]["correct"] == 15
    assert results["per_relation"]["antonym"]["accuracy"] == 0.5
    assert results["error_taxonomy"]["synonym"] == {"identity_echo": 5}
    assert {s["error_class"] for s in samples} == {"correct", "identity_echo"}
    assert all({"id", "correct", "value", "prompt", "output"} <= set(s) for s in samples)
    assert config["benchmark"]["protocol"] == "paper"
    assert config["model"]["backend"] == "scripted"
    assert "versions" in config
    report = run.folder.report_path.read_text()
    assert "| **overall** | 30 | 50.0 |" in report
    # Rerunning the same evaluation asks the model nothing and gives identical results.
    again = ScriptedModel(_oracle(small_items))
    second = evaluate(bench, again, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert again.sent == []
    assert second.folder == run.folder
    assert second.results["overall"] == results["overall"]
    assert second.stats.cached == 30


def test_failed_requests_are_recorded_not_scored(small_items, wordnet_index, tmp_path, tmp_cache):
    model = ScriptedModel(_oracle(small_items), fail_on=lambda r: r.id.endswith("3"))
    bench = LambdaBenchmark(dataset=small_items, index=wordnet_index)
    run = evaluate(bench, model, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert run.results["failed_requests"] == 3
    assert run.results["overall"]["n"] == 27
    _, samples, _ = read_run(run.folder.path)
    failed = [s for s in samples if s["error_class"] == "request_failed"]
    assert len(failed) == 3 and all(s["error"] == "scripted failure" for s in failed)
    # Failures are not cached: the next run asks for exactly those again.
    retry = ScriptedModel(_oracle(small_items))
    evaluate(bench, retry, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert sorted(r.id for r in retry.sent) == sorted(s["id"] for s in failed)


def test_rescore_reproduces_the_verdicts(small_items, wordnet_index, tmp_path):
    model = ScriptedModel(_oracle(small_items))
    run = evaluate(
        LambdaBenchmark(dataset=small_items, index=wordnet_index),
        model,
        out_root=tmp_path,
        cache=None,
        progress=False,
    )
    _, samples, _ = read_run(run.folder.path)
    scores = rescore(samples, wordnet_index)
    assert [s.correct for s in scores] == [row["correct"] for row in samples]
    assert [s.error_class for s in scores] == [row["error_class"] for row in samples]


def test_limit_takes_the_first_items_of_each_relation(small_items):
    limited = limit_per_relation(small_items, 2)
    assert [i.id for i in limited] == [
        "synonym-0000",
        "synonym-0001",
        "antonym-0000",
        "antonym-0001",
        "derivation-0000",
        "derivation-0001",
    ]


@pytest.mark.slow
def test_smollm2_end_to_end_from_the_command_line(tmp_path):
    """The real embedded model on a small slice, as a user runs it; then a cached rerun."""
    command = [
        sys.executable,
        "-m",
        "lexbench.cli",
        "run",
        "lambda",
        "--limit",
        "4",
        "--prompt-style",
        "completion",
        "--out",
        str(tmp_path / "runs"),
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--no-progress",
    ]
    first = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "| **overall** | 12 |" in first.stdout
    assert "Wilson 95%" in first.stdout and "Error taxonomy" in first.stdout
    folder = first.stdout.strip().splitlines()[-1].removeprefix("run folder: ")
    samples = [
        json.loads(line) for line in Path(f"{folder}/samples.jsonl").read_text().splitlines()
    ]
    assert len(samples) == 12
    # Greedy, max_new_tokens=2: at most two tokens, and every verdict is a known class.
    assert all(s["generated_tokens"] <= 2 for s in samples)
    assert {s["error_class"] for s in samples} <= {"correct", *ERROR_CLASSES}
    # A few real outputs of the packaged model (greedy, float32), pinned with their verdicts.
    by_id = {s["id"]: s for s in samples}
    assert [
        (by_id[i]["query"], by_id[i]["output"], by_id[i]["error_class"])
        for i in ("antonym-0003", "synonym-0000", "synonym-0001", "antonym-0001")
    ] == [
        ("forward", " backward\n", "correct"),
        ("originator", " originator", "identity_echo"),
        ("consequently", " as a", "format_failure"),
        ("flexibleness", " flexibility\n", "surface_misfire"),
    ]
    second = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "(12 from cache, 0 sent, 0 failed)" in second.stdout
    results = json.loads(Path(f"{folder}/results.json").read_text())
    assert results["overall"]["correct"] == sum(1 for s in samples if s["correct"])


@pytest.mark.slow
def test_word_protocol_decodes_whole_words(smollm2, small_items, wordnet_index, tmp_path):
    items = limit_per_relation(small_items, 2)
    bench = LambdaBenchmark(
        dataset=items, index=wordnet_index, protocol="word", prompt_style="completion"
    )
    run = evaluate(bench, smollm2, out_root=tmp_path, cache=None, progress=False)
    _, samples, _ = read_run(run.folder.path)
    from test_hf_generate import greedy_first_word

    # Each output is the greedy text cut where its first whole word is complete (or at the
    # 8-token cap), computed independently one token budget at a time.
    assert [s["output"] for s in samples] == greedy_first_word(
        smollm2, [s["prompt"] for s in samples]
    )
    assert all(s["generated_tokens"] <= 8 for s in samples)
