"""`lexbench compare` end to end: real run folders in, CSV/Markdown/LaTeX/JSON out."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from test_report_runs import make_lambda_run, write_graded_run

from lexbench.cli import main
from lexbench.run.files import read_jsonl


@pytest.fixture
def lambda_pair(tmp_path):
    return (
        make_lambda_run(tmp_path, "model-a", 1, 0.7, fail_ids=("antonym-0003",)),
        make_lambda_run(tmp_path, "model-b", 2, 0.3),
    )


def test_json_p_values_match_scipy_on_the_run_files(lambda_pair, capsys):
    a, b = lambda_pair
    assert main(["compare", str(a), str(b), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (pair,) = result["comparisons"]
    # Recompute from the files: shared ids, both scorable, discordant counts.
    rows_a = {r["id"]: r for r in read_jsonl(a / "samples.jsonl")}
    rows_b = {r["id"]: r for r in read_jsonl(b / "samples.jsonl")}
    ids = sorted(
        i
        for i in rows_a.keys() & rows_b.keys()
        if rows_a[i]["correct"] is not None and rows_b[i]["correct"] is not None
    )
    assert pair["used"] == len(ids) == 29 and pair["shared"] == 30
    only_a = sum(1 for i in ids if rows_a[i]["correct"] and not rows_b[i]["correct"])
    only_b = sum(1 for i in ids if rows_b[i]["correct"] and not rows_a[i]["correct"])
    assert (pair["only_a"], pair["only_b"]) == (only_a, only_b) and only_a + only_b > 0
    assert pair["p_value"] == pytest.approx(
        scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue, rel=1e-9
    )
    difference = pair["difference"]
    assert difference["estimate"] == pytest.approx((only_a - only_b) / len(ids))
    assert difference["low"] <= difference["estimate"] <= difference["high"]
    assert [s["label"] for s in result["leaderboard"]] == ["model-a", "model-b"]


def test_graded_runs_permutation_p_matches_scipy(tmp_path, capsys):
    rng = np.random.default_rng(11)
    values_a = np.round(1.0 / rng.integers(1, 5, 50), 6)
    values_b = np.round(1.0 / rng.integers(1, 7, 50), 6)
    a = write_graded_run(tmp_path / "x", "lm-a", values_a.tolist())
    b = write_graded_run(tmp_path / "y", "lm-b", values_b.tolist())
    resamples = 20_000
    assert (
        main(
            [
                "compare",
                str(a),
                str(b),
                "--format",
                "json",
                "--resamples",
                str(resamples),
                "--seed",
                "4",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    score = next(c for c in result["comparisons"] if c["metric"] == "score")
    assert score["test"] == "paired permutation"
    expected = scipy_stats.permutation_test(
        (values_a, values_b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        random_state=4,
    ).pvalue
    p = (score["p_value"] + expected) / 2
    sd = math.sqrt((p * (1 - p) + 4 * (p / 2) * (1 - p / 2)) / resamples)
    assert abs(score["p_value"] - expected) <= 5 * sd + 2 / resamples
    accuracy = next(c for c in result["comparisons"] if c["metric"] == "accuracy")
    assert accuracy["test"] == "exact McNemar"
    assert result["leaderboard"][0]["score"]["method"] == "bootstrap"


def test_exports_csv_markdown_latex(lambda_pair, tmp_path, capsys):
    a, b = lambda_pair
    out = tmp_path / "exports"
    assert main(["compare", str(a), str(b), "-o", str(out / "cmp.csv")]) == 0
    with open(out / "cmp.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1 and rows[0]["test"] == "exact McNemar" and float(rows[0]["p_value"]) <= 1
    with open(out / "cmp.leaderboard.csv", newline="") as handle:
        board = list(csv.DictReader(handle))
    assert [r["run"] for r in board] == ["model-a", "model-b"] and board[0]["rank"] == "1"

    assert main(["compare", str(a), str(b), "-o", str(out / "cmp.md")]) == 0
    markdown = (out / "cmp.md").read_text()
    assert "## Leaderboard (lambda)" in markdown and "| model-a |" in markdown
    assert "exact McNemar" in markdown

    assert main(["compare", str(a), str(b), "--format", "latex", "-o", str(out / "cmp.tex")]) == 0
    latex = (out / "cmp.tex").read_text()
    assert latex.count(r"\begin{tabular}") == 2 and r"\toprule" in latex
    assert "accuracy \\%" in latex and "model-a" in latex
    capsys.readouterr()

    assert main(["compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Leaderboard (lambda)") and "exact McNemar" in text


def test_runs_of_different_benchmarks_are_refused(lambda_pair, tmp_path, capsys):
    scan = write_graded_run(tmp_path / "s", "lm", [1.0, 0.5, 0.25])
    assert main(["compare", str(lambda_pair[0]), str(scan)]) == 2
    error = capsys.readouterr().err
    assert "cannot compare runs of different benchmarks (lambda, ranked)" in error
    assert str(scan) in error


def test_unknown_suffix_and_disjoint_items_are_clear_errors(lambda_pair, tmp_path, capsys):
    a, b = lambda_pair
    assert main(["compare", str(a), str(b), "-o", str(tmp_path / "out.xlsx")]) == 2
    assert "pass --format" in capsys.readouterr().err
    x = write_graded_run(tmp_path / "p", "lm-a", [1.0, 0.5], ids=["a1", "a2"])
    y = write_graded_run(tmp_path / "q", "lm-b", [1.0, 0.5], ids=["b1", "b2"])
    assert main(["compare", str(x), str(y)]) == 2
    assert "share no sample ids" in capsys.readouterr().err


def test_baseline_by_folder_compares_each_run_against_it(
    lambda_pair, tmp_path, capsys, monkeypatch
):
    a, b = lambda_pair
    c = make_lambda_run(tmp_path, "model-c", 3, 0.5)
    monkeypatch.chdir(b.parent)  # a relative path names the baseline
    assert (
        main(["compare", str(a), str(b), str(c), "--baseline", f"./{b.name}", "--format", "json"])
        == 0
    )
    pairs = [(p["a"], p["b"]) for p in json.loads(capsys.readouterr().out)["comparisons"]]
    assert pairs == [("model-b", "model-a"), ("model-b", "model-c")]
