"""Output a user can trust (issue 38.5): a run whose requests all failed is flagged in the
report, the leaderboard and compare; runs that differ only by their server are labelled by
it; no "nan" and no bound outside [0, 1] for a proportion; SCAN's graded value is "MRR@10"."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from test_report_runs import make_lambda_run

from lexbench.report.build import build_report
from lexbench.report.compare import compare_runs
from lexbench.report.compare_format import format_ci, format_num, format_pct, to_markdown
from lexbench.report.leaderboard import leaderboards
from lexbench.report.leaderboard import to_markdown as board_markdown
from lexbench.report.runs import LoadedRun, failure_flag, label_runs, load_runs
from lexbench.stats import Interval


def test_a_run_whose_every_request_failed_is_flagged_everywhere(tmp_path: Path) -> None:
    ids = [f"{r}-{i:04d}" for r in ("synonym", "antonym", "derivation") for i in range(4)]
    good = make_lambda_run(tmp_path, "good", seed=1, accuracy=0.5, per_relation=4)
    dead = make_lambda_run(tmp_path, "dead", seed=1, accuracy=0.5, per_relation=4, fail_ids=ids)
    runs = load_runs([good, dead])
    flags = {run.model_name: failure_flag(run) for run in runs}
    assert flags["good"] == ""
    assert flags["dead"].startswith("every request failed (")
    board = board_markdown(leaderboards(runs))
    dead_row = next(line for line in board.splitlines() if line.startswith("| dead"))
    assert "every request failed" in dead_row and "| flag |" in board
    with pytest.raises(ValueError, match=r"run 'dead' .*: every request failed \(12 of 12\)"):
        compare_runs(runs, resamples=50)
    report = build_report([good, dead], tmp_path / "report")
    text = report.markdown.read_text(encoding="utf-8")
    assert "**Warning:** run dead (lambda): every request failed" in text


def test_some_failed_requests_are_counted() -> None:
    run = LoadedRun(Path("/r/x"), {}, [], {"run": {"requests": 40, "failed": 3}}, "", "x")
    assert failure_flag(run) == "3 of 40 requests failed"
    assert failure_flag(LoadedRun(Path("/r/y"), {}, [], {}, "", "y")) == ""


def _served(url: str, folder: str) -> LoadedRun:
    config: dict[str, Any] = {
        "benchmark": {"name": "scan", "split": "all"},
        "model": {"name": "m", "backend": "openai", "model": "m", "base_url": url, "kinds": []},
    }
    return LoadedRun(Path(folder), config, [], {"benchmark": "scan"}, "", "")


def test_runs_that_differ_only_by_server_are_labelled_by_it() -> None:
    runs = label_runs(
        [
            _served("http://127.0.0.1:8080/v1", "/r/9f1c2a"),
            _served("http://127.0.0.1:8081/v1", "/r/03bd77"),
        ]
    )
    labels = [run.label for run in runs]
    assert labels == [
        "m (defaults) [base_url=http://127.0.0.1:8080/v1]",
        "m (defaults) [base_url=http://127.0.0.1:8081/v1]",
    ]  # not the bare folder names (config hashes) they had


def test_no_nan_and_proportions_stay_in_their_range() -> None:
    assert format_pct(math.nan) == "n/a" and format_num(math.nan) == "n/a"
    wide = Interval(0.02, -0.03, 1.04, 20, "bootstrap")
    assert format_ci(wide, format_pct, proportion=True) == "[0.0, 100.0]"
    # A difference may be negative: not clipped.
    assert format_ci(wide, format_pct) == "[-3.0, 104.0]"


def _scan_run(name: str, values: list[float]) -> LoadedRun:
    rows = [
        {"id": f"i{k}", "correct": v == 1.0, "value": v, "prompt": f"q{k}", "type": "science"}
        for k, v in enumerate(values)
    ]
    mrr = sum(values) / len(values)
    block = {"n": len(values), "estimate": mrr, "se": 0.01, "low": mrr - 0.1, "high": mrr + 0.1}
    results = {
        "benchmark": "scan",
        "overall": {"n": len(values), "scored": len(values), "mrr": block},
    }
    config = {"benchmark": {"name": "scan"}, "model": {"name": name}}
    return LoadedRun(Path(f"/r/{name}"), config, rows, results, "", name)


def test_scans_graded_value_is_called_mrr() -> None:
    runs = [_scan_run("a", [1.0, 0.5, 0.0, 0.25]), _scan_run("b", [0.5, 0.5, 1.0, 0.0])]
    comparison = compare_runs(runs, resamples=50, paper=[])
    assert comparison.value_name == "MRR@10"
    page = to_markdown(comparison)
    assert "| MRR@10 |" in page and "| score |" not in page
    assert "MRR@10: paired permutation test" in page


def test_the_leaderboard_shows_accuracy_in_percent_like_compare(tmp_path: Path) -> None:
    # One convention (docs/comparing-and-reporting.md): accuracy in percent, one decimal.
    runs = load_runs([make_lambda_run(tmp_path, "half", seed=1, accuracy=0.5, per_relation=4)])
    (row,) = leaderboards(runs)["lambda"]
    cells = row.cells()
    assert cells["accuracy %"] == f"{100 * row.estimate:.1f}"
    assert cells["95% interval"] == f"[{100 * row.low:.1f}, {100 * row.high:.1f}]"
    assert "accuracy" not in cells


def test_a_spread_interval_of_accuracies_stays_within_zero_and_one() -> None:
    # Three fresh sets at 0%, 0% and 6%: mean ± t·SE would reach below 0.
    from lexbench.robustness.spread import _summary

    summary = _summary([0.0, 0.0, 0.06], 0.02, [0.0, 0.0, 0.06])
    assert summary["low"] == 0.0 and 0.0 < summary["high"] <= 1.0
    assert _summary([1.0, 0.94, 1.0], 1.0, [1.0, 0.94, 1.0])["high"] == 1.0
