"""`lexbench report`: the files it writes and what is inside them (no browser needed)."""

from __future__ import annotations

import base64
import json
import re

import pytest
from test_report_runs import INJECTION, make_lambda_run, write_graded_run

from lexbench.cli import main
from lexbench.report.build import build_report
from lexbench.report.registry import GenericReporter, reporter_for
from lexbench.report.runs import load_run


@pytest.fixture(scope="module")
def run_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {
        "lambda": [
            make_lambda_run(root, "model-a", 1, 0.7, fail_ids=("antonym-0003",)),
            make_lambda_run(root, "model-b", 2, 0.3),
        ],
        "scan": [
            write_graded_run(root / "s1", "lm-a", [1.0, 0.5, 0.25, 1.0, 0.2, 0.5] * 3),
            write_graded_run(root / "s2", "lm-b", [0.5, 0.5, 1.0, 0.25, 0.2, 0.1] * 3),
        ],
    }


@pytest.fixture(scope="module")
def report(run_folders, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    files = build_report([*run_folders["lambda"], *run_folders["scan"]], out)
    return files, files.html.read_text(encoding="utf-8"), files.markdown.read_text(encoding="utf-8")


def embedded_samples(page: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="lexbench-samples">(.*?)</script>', page, re.S
    )
    assert match is not None
    return json.loads(match.group(1))


def test_page_is_self_contained(report):
    files, page, _ = report
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    images = re.findall(r'<img class="report-figure" src="data:image/png;base64,([^"]+)"', page)
    # LAMBDA: per-relation bars + one length scatter per run; SCAN: each run's figures/ PNG.
    assert len(images) == 5 == len(files.figures)
    for data in images:
        assert base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n")
    assert all(
        path.is_file() and path.parent == files.html.parent / "figures" for path in files.figures
    )


def test_lambda_summary_is_the_papers_table_from_results(report, run_folders):
    _, page, markdown = report
    results = json.loads((run_folders["lambda"][0] / "results.json").read_text())
    synonym = results["per_relation"]["synonym"]
    cell = (
        f"{100 * synonym['accuracy']:.1f} [{100 * synonym['wald']['low']:.1f}, "
        f"{100 * synonym['wald']['high']:.1f}]"
    )
    assert "| run | n | synonym | antonym | derivation | **overall** |" in markdown
    lambda_part = markdown.split("## LAMBDA", 1)[1]  # after the leaderboard at the top
    row = next(line for line in lambda_part.splitlines() if line.startswith("| model-a | 29 |"))
    assert cell in row
    assert '<th style="text-align:right">synonym</th>' in page
    assert "Spearman" in page and "Error taxonomy" in page


def test_comparisons_are_included_per_benchmark(report):
    _, page, markdown = report
    assert markdown.count("### Leaderboard") == 2
    assert "exact McNemar" in markdown and "paired permutation" in markdown
    assert "<h3>Paired comparisons</h3>" in page


def test_generic_benchmark_shows_its_report_md_and_figures(report):
    _, page, markdown = report
    assert type(reporter_for("ranked")) is GenericReporter  # no reporter registered
    assert "<th>type</th>" in page and '<th style="text-align:right">MRR</th>' in page
    assert "&lt;b&gt;raw html&lt;/b&gt;" in page and "<code>code|bar</code>" in page
    assert "MRR by type" in page and "#### RANKED (lm-a)" in markdown
    assert "mean score" in markdown  # graded values: mean score with bootstrap CI
    for link in re.findall(r"!\[[^\]]*\]\((figures/[^)]+)\)", markdown):
        assert (report[0].html.parent / link).is_file()


def test_samples_are_embedded_escaped_and_round_trip(report, run_folders):
    _, page, _ = report
    assert "<script>window.__pwned" not in page
    payload = embedded_samples(page)
    assert [r["label"] for r in payload["runs"]] == ["model-a", "model-b", "lm-a", "lm-b"]
    assert len(payload["samples"]) == 30 + 30 + 18 + 18
    outputs = [s["output"] for _, s in payload["samples"] if "output" in s]
    assert any(INJECTION in o for o in outputs)
    original = load_run(run_folders["lambda"][0]).samples
    assert payload["samples"][0][1] == original[0]
    assert payload["runs"][0]["fields"] == {
        "group": "relation",
        "prompt": "prompt",
        "output": "output",
        "answer": "answer",
        "gold": "gold",
    }


def test_large_runs_are_capped_with_a_note(run_folders, tmp_path):
    files = build_report(run_folders["lambda"], tmp_path / "capped", max_samples=7)
    page = files.html.read_text()
    payload = embedded_samples(page)
    assert [r["shown"] for r in payload["runs"]] == [7, 7]
    assert "Showing 14 of 60 samples" in page
    again = build_report(run_folders["lambda"], tmp_path / "again", max_samples=7)
    assert embedded_samples(again.html.read_text()) == payload  # seeded subset


def test_report_is_deterministic(run_folders, tmp_path):
    first = build_report(run_folders["lambda"], tmp_path / "one")
    second = build_report(run_folders["lambda"], tmp_path / "two")
    assert first.html.read_text() == second.html.read_text()
    assert first.markdown.read_text() == second.markdown.read_text()


def test_runs_without_shared_items_get_a_note_not_a_test(tmp_path):
    x = write_graded_run(tmp_path / "p", "lm-a", [1.0, 0.5], ids=["a1", "a2"])
    y = write_graded_run(tmp_path / "q", "lm-b", [1.0, 0.5], ids=["b1", "b2"])
    files = build_report([x, y], tmp_path / "out")
    markdown = files.markdown.read_text()
    for label in ("lm-a", "lm-b"):
        assert (
            f"Run {label} is left out of the paired comparisons: it shares no scored item "
            "with any other run." in markdown
        )
    assert "### Paired comparisons" not in markdown


def test_cli_writes_the_report(run_folders, tmp_path, capsys):
    root = run_folders["lambda"][0].parents[2]  # a directory holding run folders
    assert main(["report", str(root), "-o", str(tmp_path / "cli"), "--max-samples", "5"]) == 0
    assert "report.html" in capsys.readouterr().out
    assert (tmp_path / "cli" / "report.html").is_file() and (
        tmp_path / "cli" / "report.md"
    ).is_file()
    assert main(["report", str(tmp_path / "nothing-here"), "-o", str(tmp_path / "x")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_lambda_run_tables_from_results_json_equal_the_runs_report_md(run_folders):
    # results.json is stored with sorted keys; the reporter restores the reading order, so
    # the tables regenerated from it are exactly those `evaluate` printed.
    reporter = reporter_for("lambda")
    for folder in run_folders["lambda"]:
        run = load_run(folder)
        regenerated = reporter.run_markdown(run)
        assert regenerated.startswith(f"# {run.label}\n")
        assert regenerated.split("\n", 1)[1] == run.report_markdown.split("\n", 1)[1]


def test_browser_columns_prefer_a_parsed_answer_over_answer():
    from lexbench.report.sample_browser import column_fields

    lambda_like = [
        {"id": "x", "relation": "synonym", "prompt": "p", "output": "o", "answer": "a", "gold": "g"}
    ]
    assert column_fields(lambda_like) == {
        "group": "relation",
        "prompt": "prompt",
        "output": "output",
        "answer": "answer",
        "gold": "gold",
    }
    # SetLexSem: `answer` is the expected set and `parsed_answer` the model's.
    setlexsem_like = [
        {
            "id": "y",
            "operation": "union",
            "prompt": "p",
            "output": "o",
            "answer": [1, 2],
            "parsed_answer": [1],
        }
    ]
    assert column_fields(setlexsem_like) == {
        "group": "operation",
        "prompt": "prompt",
        "output": "output",
        "answer": "parsed_answer",
        "gold": "answer",
    }
