"""`report`, `leaderboard` and `compare` show the papers' rows beside comparable runs,
marked "published, not re-run", list the others apart with the difference named, and leave
them all out with `--no-published`; a plugin's own rows show the same way; and, with the
real SmolLM2, the issue's two runs: the paper's prompt beside Table 1, the completion
prompt apart."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from test_report_runs import lambda_items

from lexbench import plugins
from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
from lexbench.cli import main
from lexbench.run.evaluate import evaluate
from mock_model import ScriptedModel

MARK = "published, not re-run"
RELATIONS = ("synonym", "antonym", "derivation")


def answerer(accuracy: float):
    def reply(request) -> str:  # type: ignore[no-untyped-def]
        relation, number = request.id.rsplit("-", 1)
        right = random.Random(request.id).random() < accuracy
        return f" gold{RELATIONS.index(relation)}{int(number)}" if right else " zebra"

    return reply


def lambda_run(root: Path, name: str, prompt_style: str, accuracy: float) -> Path:
    """A run of 10 items per relation (a slice: `--limit 10`), through the real pipeline."""
    bench = LambdaBenchmark(
        dataset=lambda_items(10),
        index=None,
        prompt_style=prompt_style,
        dataset_config={
            "relations": list(RELATIONS),
            "per_relation": 1000,
            "seed": 42,
            "limit_per_relation": 10,
        },
    )
    model = ScriptedModel(answerer(accuracy), name=name)
    return evaluate(bench, model, out_root=root, cache=None, progress=False).folder.path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {
        "paper": lambda_run(root, "model-a", "paper", 0.5),
        "completion": lambda_run(root, "model-b", "completion", 0.2),
    }


@pytest.fixture(autouse=True)
def fresh_registry():
    plugins.reset()
    yield
    plugins.reset()


def test_report_shows_table_1_beside_the_paper_prompt_run(runs, tmp_path, capsys):
    assert main(["report", str(runs["paper"]), str(runs["completion"]), "-o", str(tmp_path)]) == 0
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    section = markdown.split("### Published results (not re-run)", 1)[1]
    assert "| model-a (limit=10) | **this run** | 30 |" in section
    assert (
        "| Human evaluation (one native English speaker) | *published, not re-run* | 300 | 51.3 |"
        in section
    )
    assert (
        "| Llama-4 Maverick-17B | *published, not re-run* | 3,000 | 46.4 | 44.8 | 48.9 | 45.6 |"
        in section
    )
    assert "Read with: model-a (limit=10): n=30 of 3,000." in section
    # The unpaired comparison with the human evaluation's N of 300.
    assert (
        "| model-a (limit=10) | Human evaluation (one native English speaker) (Overall) |"
        in section
    )
    # The completion run: listed apart, the difference named.
    apart = section.split("#### Listed apart: the protocol differs", 1)[1]
    assert (
        "- Table 1 (Overall, Syn, Ant, Der), not comparable with model-b (prompt=completion, limit=10): "
        "The completion prompt (the guard first, ending at 'E :'); the paper used the two-shot "
        "prompt of Section 2.3" in apart
    )
    assert "model-b" not in section.split("#### Listed apart")[0]
    # The leaderboard at the top ranks the published rows among the runs.
    board = markdown.split("## Leaderboard", 1)[1].split("## LAMBDA", 1)[0]
    assert f"| GPT-2 medium | 3000 | 0.3 | [0.2, 0.6] | {MARK}, Table 1 |" in board
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<div class="published table-wrap">' in page and "<em>published, not re-run</em>" in page


def test_report_without_published(runs, tmp_path):
    assert main(["report", str(runs["paper"]), "-o", str(tmp_path), "--no-published"]) == 0
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert MARK not in markdown and MARK not in page and "Published results" not in page


def test_leaderboard_with_and_without_published(runs, tmp_path, capsys):
    assert main(["leaderboard", str(runs["paper"]), str(runs["completion"])]) == 0
    out = capsys.readouterr().out
    assert f"| Llama-4 Maverick-17B | 3000 | 46.4 | [44.6, 48.2] | {MARK}, Table 1 |" in out
    assert "Read with the published rows: model-a (limit=10): n=30 of 3,000." in out
    assert (
        "The published rows of Table 1 Overall are not comparable with model-b "
        "(prompt=completion, limit=10): The completion prompt" in out
    )
    assert main(["leaderboard", str(runs["completion"])]) == 0
    alone = capsys.readouterr().out
    assert (
        "Listed apart, not comparable with model-b (prompt=completion, limit=10) (Table 1 Overall: "
        in alone
    )
    assert "| GPT-2 medium | 3000 |" not in alone  # not ranked beside a run it differs from
    assert main(["leaderboard", str(runs["paper"]), "--no-published"]) == 0
    assert MARK not in capsys.readouterr().out
    assert main(["leaderboard", str(runs["paper"]), "--format", "csv"]) == 0
    assert "lambda,GPT-2 medium,3000,accuracy,0.003," in capsys.readouterr().out


def test_compare_adds_unpaired_rows_and_never_pairs_a_published_one(runs, tmp_path, capsys):
    paths = [str(runs["paper"]), str(runs["completion"])]
    assert main(["compare", *paths, "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    paired = text.split("Paired comparisons", 1)[1].split("## Published results", 1)[0]
    assert MARK not in paired and "Human" not in paired
    assert "unpaired (two-proportion z-test, two-sided" in text
    assert main(["compare", *paths, "--resamples", "200", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert {(c["a"], c["b"]) for c in record["comparisons"]} == {
        ("model-a (limit=10)", "model-b (prompt=completion, limit=10)")
    }
    human = [
        p
        for p in record["published"]
        if p["model"].startswith("Human") and p["column"] == "Overall"
    ]
    assert [(p["run"], p["status"], p["n"]) for p in human] == [
        ("model-a (limit=10)", "matches", 300),
        ("model-b (prompt=completion, limit=10)", "differs", 300),
    ]
    assert human[0]["test"]["published"]["n"] == 300 and human[1]["test"] is None
    assert main(["compare", *paths, "--resamples", "200", "-o", str(tmp_path / "c.csv")]) == 0
    published_csv = (tmp_path / "c.published.csv").read_text(encoding="utf-8")
    assert published_csv.startswith("run,paper,table,column,model,")
    assert main(["compare", *paths, "--resamples", "200", "--format", "latex"]) == 0
    assert "Published accuracies (not re-run)" in capsys.readouterr().out
    for fmt in ("text", "markdown", "json", "latex"):
        assert (
            main(["compare", *paths, "--resamples", "200", "--format", fmt, "--no-published"]) == 0
        )
        out = capsys.readouterr().out
        assert MARK not in out and "not re-run" not in out and '"published"' not in out


PLUGIN_ROWS = """
[paper]
title = "Toy analogies"
venue = "a plugin's own paper"
transcribed = "by the plugin's author"

[settings.shots]
key = "benchmark.shots"
name = "shots"
expect = [2]
default = 2

[[tables]]
table = "Table 9"
caption = "Toy accuracy."
benchmark = "toy-analogies"
metric = "accuracy"
scale = "percent"
protocol = "Two shots, 40 items."
settings = ["shots"]
columns = [{ header = "All", condition = "all", n = 40, run_value = "overall.accuracy", run_n = "overall.n", headline = true }]

[[tables.rows]]
label = "Big model"
model = "Big model"
cells = ["62.5"]
"""


def toy_run(root: Path, shots: int) -> Path:
    folder = root / f"toy-analogies/m/{shots}"
    folder.mkdir(parents=True)
    rows = [{"id": f"i{k}", "correct": k < 10, "value": float(k < 10)} for k in range(40)]
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = {"benchmark": {"name": "toy-analogies", "shots": shots}, "model": {"name": "m"}}
    (folder / "config.json").write_text(json.dumps(config))
    results = {"benchmark": "toy-analogies", "overall": {"accuracy": 0.25, "n": 40}}
    (folder / "results.json").write_text(json.dumps(results))
    (folder / "report.md").write_text("# toy\n")
    return folder


def test_a_plugin_ships_its_own_rows(tmp_path, capsys):
    (tmp_path / "toy_rows.toml").write_text(PLUGIN_ROWS, encoding="utf-8")
    module = tmp_path / "toy_plugin.py"
    module.write_text(
        "from pathlib import Path\n"
        "from lexbench.contract import BenchmarkSpec\n"
        "from lexbench.published import load_published\n"
        "BENCHMARK = BenchmarkSpec('toy-analogies', 'toy', build=lambda model, **o: None,\n"
        "    published=lambda: load_published(Path(__file__).with_name('toy_rows.toml')))\n"
    )
    two, zero = toy_run(tmp_path / "runs", 2), toy_run(tmp_path / "runs", 0)
    assert main(["--include", str(module), "leaderboard", str(two)]) == 0
    out = capsys.readouterr().out
    assert f"| Big model | 40 | 62.5 | [47.0, 75.8] | {MARK}, Table 9 |" in out
    assert (
        main(["--include", str(module), "report", str(two), str(zero), "-o", str(tmp_path / "r")])
        == 0
    )
    markdown = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "From *Toy analogies* (a plugin's own paper); by the plugin's author." in markdown
    assert "| m (shots=2) | **this run** | 40 | 25.0 |" in markdown
    assert "| Big model | *published, not re-run* | 40 | 62.5 |" in markdown
    assert "- Table 9 (All), not comparable with m (shots=0): Shots 0; the paper used shots 2." in (
        markdown
    )
    unpaired = "| m (shots=2) | Big model (All) | 25.0 [14.2, 40.2] | 40 | 62.5 [47.0, 75.8] | 40 |"
    assert unpaired in markdown


def test_a_bad_plugin_file_is_one_line_and_no_published_is_the_way_out(tmp_path, capsys):
    (tmp_path / "toy_rows.toml").write_text(PLUGIN_ROWS.replace('cells = ["62.5"]', "cells = []"))
    module = tmp_path / "toy_plugin.py"
    module.write_text(
        "from pathlib import Path\n"
        "from lexbench.contract import BenchmarkSpec\n"
        "from lexbench.published import load_published\n"
        "BENCHMARK = BenchmarkSpec('toy-analogies', 'toy', build=lambda model, **o: None,\n"
        "    published=lambda: load_published(Path(__file__).with_name('toy_rows.toml')))\n"
    )
    run = toy_run(tmp_path / "runs", 2)
    assert main(["--include", str(module), "leaderboard", str(run)]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error[-1].endswith(
        "toy_rows.toml: tables[0] (Table 9) row 1 (Big model): 0 cells for 1 columns"
    )
    assert main(["--include", str(module), "leaderboard", str(run), "--no-published"]) == 0


@pytest.mark.slow
def test_smollm2_paper_prompt_beside_table_1_completion_apart(tmp_path):
    """The issue's two runs with the real packaged model, as a user types them."""
    base = [sys.executable, "-m", "lexbench.cli", "run", "lambda", "--limit", "2"]
    base += ["--out", str(tmp_path / "runs"), "--no-cache", "--no-progress"]
    for extra in ([], ["--prompt-style", "completion"]):
        subprocess.run(base + extra, capture_output=True, text=True, check=True)
    report = [sys.executable, "-m", "lexbench.cli", "report", str(tmp_path / "runs"), "-o"]
    subprocess.run([*report, str(tmp_path / "out")], capture_output=True, text=True, check=True)
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    section = markdown.split("### Published results (not re-run)", 1)[1]
    assert "| smollm2-135m (limit=2) | **this run** | 6 |" in section
    assert (
        "| Human evaluation (one native English speaker) | *published, not re-run* | 300 |"
        in section
    )
    assert section.count(f"*{MARK}*") == 9  # eight checkpoints and the human evaluation
    assert "Read with: smollm2-135m (limit=2): n=6 of 3,000." in section
    assert (
        "not comparable with smollm2-135m (prompt=completion, limit=2): The completion prompt"
        in section
    )
