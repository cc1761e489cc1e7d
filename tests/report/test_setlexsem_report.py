"""`lexbench report` over several SetLexSem runs: the paper's "by model" tables with the SD of
accuracy (its robustness measure) and Figure 3."""

from __future__ import annotations

import pytest

from lexbench.benchmarks.setlexsem.benchmark import generate_items, run_setlexsem
from lexbench.benchmarks.setlexsem.report import SetLexSemReporter
from lexbench.report.build import build_report
from lexbench.report.registry import reporter_for
from lexbench.report.runs import load_runs
from mock_model import ScriptedModel


@pytest.fixture(scope="module")
def run_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    items = {i.id: i for i in generate_items("small", limit=1)}

    order = {item_id: index for index, item_id in enumerate(items)}

    def answers(wrong_every):
        def reply(request):
            item = items[request.id]
            members = list(item.answer)
            if (order[request.id] + 1) % wrong_every == 0:  # by position, not send order
                members = [item.set_a[0]] if not members else members[:-1]
            return "<answer>{" + ", ".join(map(str, members)) + "}</answer>"

        return reply

    folders = []
    for name, wrong_every in (("steady", 10**9), ("shaky", 3)):
        evaluation = run_setlexsem(
            ScriptedModel(answers(wrong_every), name=name),
            grid="small",
            limit=1,
            out=root,
            use_cache=False,
            progress=False,
        )
        folders.append(evaluation.folder.path)
    return folders


def test_summary_is_table_3_by_model_with_the_sd(run_folders):
    runs = load_runs(run_folders)
    reporter = reporter_for("setlexsem")
    assert isinstance(reporter, SetLexSemReporter)
    summary = reporter.summary_markdown(runs)
    assert "Table 3" in summary and "| LLM | Mean | Std | N (prompts) |" in summary
    by_label = {}
    for line in summary.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        model = cells[0].split(" (")[0] if cells else ""
        if len(cells) == 6 and model in ("steady", "shaky"):
            # Labelled with the settings that differ from the defaults.
            assert cells[0] == f"{model} (grid=small, limit=1)"
            by_label[model] = cells
    assert set(by_label) == {"steady", "shaky"}
    # A model right everywhere has mean 100 and SD 0; one wrong on every third prompt spreads.
    assert by_label["steady"][1:3] == ["100.00", "0.00"]
    assert float(by_label["shaky"][2]) > 20.0
    # N: the small grid's Table 3 slice (k = 0, formal, allow-empty) at one prompt each.
    table3 = [
        c
        for c in runs[0].results["configurations"]
        if c["k"] == 0
        and c["phrasing"] == "formal"
        and c["token_type"] in ("numbers", "words")
        and c["overlap"] is None
    ]
    assert by_label["steady"][3] == str(len(table3))
    assert (
        "Accuracy across set operations by model" in summary and "Symmetric difference" in summary
    )


def test_the_html_report_has_figure_3_and_each_runs_paper_tables(run_folders, tmp_path):
    files = build_report(run_folders, tmp_path / "report")
    markdown = files.markdown.read_text(encoding="utf-8")
    assert "Table 3: accuracy of each model" in markdown
    assert "Table 7: length-5 minus length-3" in markdown and "Table 17: error analysis" in markdown
    assert (tmp_path / "report" / "figures" / "setlexsem-figure3-by-model.png").is_file()
