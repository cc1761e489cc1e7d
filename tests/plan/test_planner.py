"""The planner above `api.run`: one request per cell, each model loaded once, one line per
cell naming its benchmark, model, settings, item set and wording, one leaderboard per
plan; every `run` shape (`run NAME`, `run all`, `--model A,B`, `--sets K`,
`--prompt-variant`) is a plan."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import scripted_backend
from lexbench import api
from lexbench.cli import main
from lexbench.plan import Condition, expand, run_plan
from lexbench.request import RunRequest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def work(tmp_path, monkeypatch, scripted_backend):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURES / "ekar" / "english", tmp_path / "ekar")
    return tmp_path


def _configs(root: Path, benchmark: str) -> list[dict]:
    return [
        json.loads(p.read_text())
        for p in sorted(root.glob(f"runs/{benchmark}/*/*/config.json"))
        if p.parent.parent.name not in ("compare", "robustness")
    ]


def test_chat_reaches_ekar_when_it_generates_and_is_refused_when_it_scores(work, capsys):
    base = ["run", "ekar", "--data", "ekar", "--limit", "1", "--model", "scripted:a-chat"]
    base += ["--no-progress", "--cache", "c.sqlite"]
    assert main([*base, "--method", "generate", "--chat-template"]) == 0
    assert main([*base, "--task", "explain", "--no-similarity", "--chat-template"]) == 0
    configs = _configs(work, "ekar") + _configs(work, "ekar-explain")
    assert [c["chat"] for c in configs] == [True, True]
    capsys.readouterr()
    assert main([*base, "--chat-template"]) == 2  # log-likelihood: nothing generated
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lexbench: error: --chat-template: E-KAR's")


def test_scan_conditions_refuse_chat_in_one_line_before_any_run(work, capsys):
    argv = ["run", "scan", "--limit", "1", "--shots", "0", "1", "--model", "scripted:a-chat"]
    assert main([*argv, "--chat-template", "--no-progress", "--no-cache"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("lexbench: error: --chat-template: it ranks next words")
    assert not (work / "runs").exists()


def test_run_all_with_two_models_and_fresh_sets_is_one_plan(work, capsys, monkeypatch):
    loads = []
    real_load = scripted_backend.load
    monkeypatch.setattr(scripted_backend, "load", lambda n, o: loads.append(n) or real_load(n, o))
    argv = ["run", "all", "--model", "scripted:a,scripted:b", "--sets", "2", "--limit", "1"]
    argv += ["--only", "lambda", "scan", "--no-progress", "--cache", "c.sqlite"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert loads == ["a", "b"]  # each model opened once for all its cells
    for model in ("a", "b"):
        (spread,) = work.glob(f"runs/lambda/{model}/robustness/sets-*.json")
        assert len(json.loads(spread.read_text())["members"]) == 3
        assert not list(work.glob(f"runs/scan/{model}/robustness/*"))  # fixed data
    assert "scan reads fixed data: its one item set, no fresh sets" in captured.out
    assert captured.out.count("| benchmark |") <= 2 and captured.out.count("Leaderboard") <= 1
    assert "[8/8] scan · scripted:b · wording: paper" in captured.err
    assert "item set: fresh set 2" in captured.err
    names = sorted(p.name for p in (work / "runs" / "lambda" / "compare").glob("*.md"))
    assert names == [
        "scripted-a--scripted-b-fresh-set-1.md",
        "scripted-a--scripted-b-fresh-set-2.md",
        "scripted-a--scripted-b-published-seed.md",
    ]


def test_plan_lines_name_the_prompt_style_and_the_wording_apart(work, capsys):
    argv = ["run", "lambda", "--model", "scripted:a,scripted:b", "--limit", "1"]
    argv += ["--prompt-style", "completion", "--no-progress", "--no-cache"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    first = "[1/2] lambda · scripted:a · --limit 1 --prompt-style completion · wording: paper"
    assert first in captured.err
    assert "about" in captured.err.splitlines()[-1] or "[2/2]" in captured.err
    assert captured.out.count("## Leaderboard") == 1


def test_a_system_prompt_is_the_chat_formats_system_turn_and_its_own_run(work):
    base = RunRequest(
        "lambda", model="scripted:a-chat", limit=1, progress=False, cache=Path("c.sqlite")
    )
    plain = api.run(replace_request(base, chat=True))
    steered = api.run(replace_request(base, system_prompt="Answer with one word."))
    assert plain.folder.path != steered.folder.path
    config = json.loads(steered.folder.config_path.read_text())
    assert config["chat"] is True and config["system_prompt"] == "Answer with one word."
    assert config["request"]["system_prompt"] == "Answer with one word."
    line = json.loads(steered.folder.samples_path.read_text().splitlines()[0])
    assert line["responses"][0]["request_id"]
    with pytest.raises(ValueError, match="--no-chat-template sends plain prompts"):
        api.run(replace_request(base, system_prompt="x", chat=False))


def replace_request(request: RunRequest, **changes) -> RunRequest:
    from dataclasses import replace

    return replace(request, **changes)


def test_expand_checks_before_loading_and_keeps_model_major_order(scripted_backend):
    cells = expand(
        [Condition("", RunRequest("lambda", limit=1))], ["scripted:a", "scripted:b"], sets=1
    ).cells
    assert [(c.model, c.step) for c in cells] == [
        ("scripted:a", "published seed"),
        ("scripted:a", "fresh set 1"),
        ("scripted:b", "published seed"),
        ("scripted:b", "fresh set 1"),
    ]
    assert [c.request.item_seed for c in cells] == [None, 1, None, 1]
    with pytest.raises(ValueError, match="reads fixed data"):
        expand([Condition("", RunRequest("scan"))], ["scripted:a"], sets=1)
    with pytest.raises(ValueError, match="1 to 1000"):
        expand([Condition("", RunRequest("lambda"))], ["scripted:a"], sets=100_000_000)
    with pytest.raises(ValueError, match="no prompt variant"):
        expand([Condition("", RunRequest("lambda"))], ["scripted:a"], wording="shout")


def test_run_plan_runs_each_cell_through_api_run(work):
    plan = expand(
        [Condition("", RunRequest("lambda", limit=1, progress=False, use_cache=False))],
        ["scripted:a"],
        wording="all",
    )
    outcome = run_plan(plan)
    assert [d.cell.step for d in outcome.ran] == ["paper", "guard", "arrow", "instruction"]
    (spread,) = outcome.spreads
    assert spread.path.is_file() and spread.record["kind"] == "prompts"
    os.remove(spread.path)


def test_each_cells_progress_line_shows_the_plans_position_and_time_left(work, capsys):
    # Issue 43: a plan said "[i/N]" once per cell; between those lines, the cell's own
    # progress line now carries the plan's position and, after a cell, its time left.
    argv = ["run", "lambda", "--model", "scripted:a,scripted:b", "--limit", "1"]
    argv += ["--prompt-style", "completion", "--no-cache"]
    assert main(argv) == 0
    bars = [line for line in capsys.readouterr().err.splitlines() if line.startswith("lambda: ")]
    first = [line for line in bars if "plan 1/2" in line]
    second = [line for line in bars if "plan 2/2" in line]
    assert first and second and len(first) + len(second) == len(bars), bars
    assert all(line.endswith(", plan 1/2]") for line in first)  # no cell done: no pace yet
    assert all(", plan 2/2, about " in line and line.endswith(" left]") for line in second)


def test_the_plans_time_left_counts_down_while_a_cell_runs(monkeypatch):
    from lexbench import plan as planner

    now = [100.0]
    monkeypatch.setattr(planner.time, "monotonic", lambda: now[0])
    cells = expand(
        [Condition("", RunRequest("lambda", limit=1, progress=False, use_cache=False))],
        ["a", "b", "c", "d"],
    ).cells
    outcome = planner.Outcome(planner.Plan(cells=cells))
    outcome.skipped += [(cells[0], "x"), (cells[1], "y")]  # two cells done in 60 s
    pace = planner._pace(cells[2], started=40.0, outcome=outcome)
    assert pace is not None and pace() == "plan 3/4, about 1 min 00 s left"
    now[0] = 120.0
    assert pace() == "plan 3/4, about 40 s left"
    now[0] = 200.0  # this cell is slower than the others: the next one still needs 30 s
    assert pace() == "plan 3/4, about 30 s left"
    (alone,) = expand(
        [Condition("", RunRequest("lambda", limit=1, progress=False, use_cache=False))], ["a"]
    ).cells
    assert planner._pace(alone, 0.0, planner.Outcome(planner.Plan(cells=(alone,)))) is None
