"""`lexbench export-log RUN... --format inspect`: run folders as inspect_ai eval logs, read
back through inspect_ai's own log reader, and opened in `inspect view` in headless Chromium
(skipped without Chromium unless LEXBENCH_REQUIRE_BROWSER=1). The screenshot of a sample's
page goes to $LEXBENCH_REPORT_SCREENSHOTS when set, else to the test's temporary folder.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lexbench import api
from lexbench.cli import main
from lexbench.run.store import read_run
from mock_model import ScriptedModel


@pytest.fixture(scope="module")
def lambda_run(tmp_path_factory, wordnet_index) -> Path:
    """A LAMBDA run whose model answers every other item right."""
    from lexbench.export.rows import export_set

    exported = export_set("lambda", {"per_relation": 2, "progress": False})
    right = {
        asked[0].id: " " + item.gold
        for position, (item, asked) in enumerate(zip(exported.items, exported.requests))
        if position % 2 == 0
    }

    def reply(request):
        return right.get(request.id, " The")

    run = api.run(
        "lambda",
        ScriptedModel(reply),
        out=tmp_path_factory.mktemp("runs"),
        use_cache=False,
        progress=False,
        per_relation=2,
    )
    return Path(run.folder.path)


def test_a_run_becomes_an_inspect_log_with_one_sample_per_item(lambda_run, tmp_path, capsys):
    from inspect_ai.log import list_eval_logs, read_eval_log

    out = tmp_path / "logs \x1b[31m dir"
    assert main(["export-log", str(lambda_run.parent), "--format", "inspect", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\\x1b" in printed  # the escape is shown, not sent
    config, samples, results = read_run(lambda_run)
    (location,) = list_eval_logs(str(out))
    log = read_eval_log(location)
    assert log.status == "success" and log.eval.task == "lexbench_lambda"
    assert log.eval.model == "lexbench/scripted"
    assert log.eval.metadata["lexbench_config"]["run_options"] == config["run_options"]
    theirs_by_id = {s.id: s for s in log.samples}
    assert sorted(theirs_by_id) == sorted(s["id"] for s in samples)
    for ours in samples:
        theirs = theirs_by_id[ours["id"]]
        assert theirs.input == ours["prompt"]
        assert theirs.output.completion == ours["output"]
        assert theirs.target == ours["gold"]
        score = theirs.scores["lexbench"]
        assert score.value == {"correct": float(ours["correct"]), "value": ours["value"]}
        assert score.answer == ours["answer"]
        assert score.metadata["error_class"] == ours["error_class"]
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(results["overall"]["accuracy"])
    assert metrics["n"].value == len(samples)
    assert 0 < results["overall"]["accuracy"] < 1


def test_export_log_of_no_run_is_one_line(tmp_path, capsys):
    assert main(["export-log", str(tmp_path), "-o", str(tmp_path / "logs")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def _chromium() -> str:
    from lexbench.report.browser import find_chromium

    executable = find_chromium()
    if executable is None:
        message = "chromium is not installed (Debian: apt-get install -y chromium)"
        if os.environ.get("LEXBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{message}, and LEXBENCH_REQUIRE_BROWSER=1 requires it")
        pytest.skip(f"{message}; set LEXBENCH_REQUIRE_BROWSER=1 to make this a failure")
    return executable


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_inspect_view_shows_a_sample_of_an_exported_run(lambda_run, tmp_path):
    executable = _chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    logs = tmp_path / "logs"
    assert main(["export-log", str(lambda_run), "-o", str(logs)]) == 0
    _, samples, _ = read_run(lambda_run)
    sample = samples[1]
    port = _free_port()
    inspect = Path(sys.executable).parent / "inspect"
    server = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(logs), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    shots = Path(os.environ.get("LEXBENCH_REPORT_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.goto(f"http://127.0.0.1:{port}/")
            page.get_by_text(sample["id"]).first.click(timeout=60_000)
            page.get_by_text("ASSISTANT").first.wait_for(timeout=30_000)
            page.screenshot(path=str(shots / "inspect-view-sample.png"))
            body = page.inner_text("body")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert f"Sample {sample['id']}" in body
    assert sample["prompt"].splitlines()[-1] in body  # the input
    assert sample["output"].strip() in body and sample["gold"] in body
    assert "lexbench_lambda" in body
