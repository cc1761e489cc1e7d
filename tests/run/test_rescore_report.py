"""`lexbench rescore` asks no model: its report and its output say "nothing sent"."""

from __future__ import annotations

import json

from lexbench import api
from lexbench.cli import main
from mock_model import ScriptedModel


def test_rescore_says_nothing_was_sent(tmp_path, capsys):
    model = ScriptedModel(lambda request: "<answer>{1}</answer>")
    run = api.run(
        "setlexsem",
        model,
        out=tmp_path / "runs",
        use_cache=False,
        progress=False,
        grid="small",
        limit=1,
    )
    sent = run.stats.sent
    assert sent > 0 and f"{sent} sent" in run.folder.report_path.read_text()
    capsys.readouterr()
    assert main(["rescore", str(run.folder.path), "--write"]) == 0
    printed = capsys.readouterr().out
    assert "nothing sent" in printed and f"{sent} sent" not in printed
    assert "sent" not in printed.replace("nothing sent", "")
    report = run.folder.report_path.read_text()
    assert "nothing sent" in report and f"{sent} sent" not in report
    results = json.loads((run.folder.path / "results.json").read_text())
    assert results["rescored"]["requests_sent"] == 0
    assert results["run"]["sent"] == sent  # the counts of the run that was scored stay
