"""E-KAR's reporters for `lexbench report`: accuracy per meta-relation with intervals across
runs, each run's tables from results.json, the figure, and the explanation-generation
summary with its skipped metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexbench.benchmarks.ekar.benchmark import EkarBenchmark
from lexbench.benchmarks.ekar.explain import ExplanationBenchmark
from lexbench.benchmarks.ekar.files import read_split
from lexbench.benchmarks.ekar.report import EkarExplanationReporter, EkarReporter
from lexbench.benchmarks.ekar.splits import find_split_file
from lexbench.report.build import build_report
from lexbench.report.registry import reporter_for
from lexbench.report.runs import load_runs
from lexbench.run.evaluate import evaluate
from mock_model import ScriptedModel

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ekar"


def items(split="validation"):
    return read_split(find_split_file(FIXTURES / "english", split), "en")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("ekar-runs")
    dataset = items()
    gold = {i.id: i.answer for i in dataset}
    right = ScriptedModel(reply=lambda r: f"Answer: {gold[r.id]}", name="always-right")
    evaluate(
        EkarBenchmark(dataset=dataset, method="generate"), right, out_root=root, progress=False
    )
    evaluate(
        EkarBenchmark(dataset=dataset, method="generate"),
        ScriptedModel(reply=lambda r: "B", name="always-b"),
        out_root=root,
        progress=False,
    )
    evaluate(
        ExplanationBenchmark(dataset=dataset[:2]),
        ScriptedModel(reply=lambda r: "timber is made into furniture", name="explainer"),
        out_root=root,
        progress=False,
    )
    return load_runs([root])


def test_summary_shows_accuracy_per_meta_relation_with_intervals(runs):
    qa = [r for r in runs if r.benchmark == "ekar"]
    reporter = reporter_for("ekar")
    assert isinstance(reporter, EkarReporter)
    summary = reporter.summary_markdown(qa)
    header = summary.splitlines()[0]
    for column in (
        "R1 semantic",
        "R2 extension",
        "R3 intension",
        "R4 grammar",
        "R5 association",
        "overall",
    ):
        assert column in header
    right = next(line for line in summary.splitlines() if "always-right" in line)
    b = next(line for line in summary.splitlines() if "always-b" in line)
    assert "**100.0 [" in right and "(n=12)**" in right
    # Always B: right on the three items whose answer is B.
    assert "**25.0 [" in b
    assert "Wilson 95%" in summary and "every meta-relation annotated" in summary
    run_md = reporter.run_markdown(qa[0])
    assert run_md.startswith(f"# {qa[0].label}: E-KAR question answering")
    assert "## By sub-relation" in run_md


def test_figures_and_the_whole_report(runs, tmp_path):
    qa = [r for r in runs if r.benchmark == "ekar"]
    figures = EkarReporter().figures(qa, tmp_path / "figures")
    assert [f.path.name for f in figures] == ["ekar-accuracy-by-meta-relation.png"]
    assert figures[0].path.stat().st_size > 1000
    files = build_report(runs, tmp_path / "out")
    markdown = files.markdown.read_text(encoding="utf-8")
    assert "R3 intension" in markdown and "E-KAR explanation generation" in markdown
    assert "Not computed -- bleurt: no BLEURT checkpoint given" in markdown


def test_explanation_summary_names_skipped_metrics(runs):
    explain = [r for r in runs if r.benchmark == "ekar-explain"]
    summary = EkarExplanationReporter().summary_markdown(explain)
    assert "E_A rouge2_f1" in summary.splitlines()[0] and "E_Q rouge2_f1" in summary
    assert "Not computed -- moverscore: no MoverScore encoder given" in summary
    assert (
        EkarExplanationReporter()
        .run_markdown(explain[0])
        .startswith(f"# {explain[0].label}: E-KAR explanation generation")
    )
