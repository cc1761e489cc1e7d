"""A plan's paired comparisons between models keep going when one model's run cannot be
compared (issue 43): its every request failed, and `--allow-failures` was given. The other
models are compared as `lexbench report` compares them, the run left out is named with the
reason, and the plan exits 0; each comparison's JSON is strict (null, never NaN)."""

from __future__ import annotations

import json

import pytest

from lexbench.cli import main


@pytest.fixture
def work(tmp_path, monkeypatch, scripted_backend):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_model_whose_every_request_failed_is_named_and_the_others_compared(work, capsys):
    argv = ["run", "lambda", "--model", "scripted:a,scripted:wrong,scripted:down"]
    argv += ["--limit", "2", "--no-progress", "--no-cache", "--allow-failures"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("Leaderboard") == 1 and "\n## Leaderboard\n\n### lambda\n" in out
    assert (
        "note: lambda: Run down (limit=2) is left out of the paired comparisons: every "
        "request failed (6 of 6), so nothing of the model's can be compared." in out
    )
    tests = out.split("## Paired comparisons", 1)[1]
    row = next(line for line in tests.splitlines() if line.startswith("| a (limit=2) |"))
    assert "| wrong (limit=2) | accuracy | 6 |" in row
    (written,) = sorted((work / "runs" / "lambda" / "compare").glob("*.json"))
    assert written.name == "scripted-a--scripted-wrong.json"
    text = written.read_text()
    assert "NaN" not in text and "Infinity" not in text
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in {written}"))


def test_without_allow_failures_the_plan_still_exits_4_after_writing_every_run(work, capsys):
    argv = ["run", "lambda", "--model", "scripted:a,scripted:down", "--limit", "2"]
    assert main([*argv, "--no-progress", "--no-cache"]) == 4
    captured = capsys.readouterr()
    assert "all 6 requests failed" in captured.err
    assert "left out of the paired comparisons" in captured.out


def test_plan_lines_write_a_builder_option_as_the_user_wrote_it(work, capsys):
    """`--option KEY=VALUE` (any plugin benchmark's builder options) is named in the plan's
    lines as written, not as the parsed pair (`--option '('"'"'count'"'"', 6)'`)."""
    from lexbench import plugins

    if "hypernyms" not in {spec.name for spec in plugins.benchmarks()}:
        pytest.skip("the example plugin is not installed (pip install -e examples/...)")
    argv = ["run", "hypernyms", "--model", "scripted:a,scripted:b", "--limit", "2"]
    argv += ["--option", "count=4", "--option", "seed=3"]
    assert main([*argv, "--no-progress", "--no-cache"]) == 0
    err = capsys.readouterr().err
    first = next(line for line in err.splitlines() if "[1/2]" in line)
    assert first == (
        "lexbench: [1/2] hypernyms · scripted:a · --limit 2 --option count=4 --option seed=3 "
        "· wording: paper"
    ), first
