"""`lexbench export-log RUN... --format inspect`: run folders as inspect_ai eval logs, read
back through inspect_ai's own log reader (`read_eval_log`): one run of each benchmark on a
scripted model (LAMBDA, SCAN, Google, SetLexSem, E-KAR, SAT), a run whose every request
failed and one where some did; and opened in `inspect view` in headless Chromium (skipped
without Chromium unless LEXBENCH_REQUIRE_BROWSER=1), its screenshots written to
$LEXBENCH_REPORT_SCREENSHOTS when set, else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lexbench import api
from lexbench.cli import main
from lexbench.run.store import read_run
from mock_model import ScriptedModel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: A slice of each benchmark (api.run options).
SLICES: dict[str, dict[str, Any]] = {
    "lambda": {"per_relation": 2},
    "scan": {"limit": 1, "types": ["science"]},
    "google": {"limit_per_relation": 1},
    "setlexsem": {"grid": "small", "select": ["operation=intersection", "m=2"], "limit": 1},
    "ekar": {"data": str(FIXTURES / "ekar" / "english"), "split": "test"},
    "sat": {"data": str(FIXTURES / "export" / "sat_mini.jsonl")},
}
#: The ranked tokens of every rank request: the first target third, so MRR@10 is 1/3 while
#: acc@1 is 0 and coverage 1.
RANKED = (" the", " a")


def lambda_golds() -> dict[str, str]:
    """{request id: " GOLD"} for every other item of the LAMBDA slice."""
    from lexbench.export.rows import export_set

    exported = export_set("lambda", {**SLICES["lambda"], "progress": False})
    return {
        asked[0].id: " " + item.gold
        for position, (item, asked) in enumerate(zip(exported.items, exported.requests))
        if position % 2 == 0
    }


def scripted(golds: dict[str, str], **extra: Any) -> ScriptedModel:
    """Answers every kind: LAMBDA's gold for the items in `golds`, a set, a ranking with the
    target third, log-likelihoods that favour the first choice."""

    def reply(request):
        if "<task>" in request.prompt:
            return "<answer>{}</answer>"
        return golds.get(request.id, " The")

    def ranked(request):
        return [(i, t, -float(i)) for i, t in enumerate([*RANKED, " " + request.targets[0]])]

    return ScriptedModel(
        reply,
        ranked=ranked,
        loglikelihoods=lambda r: [-1.0] + [-4.0] * (len(r.continuations) - 1),
        **extra,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory, wordnet_index) -> dict[str, Path]:
    """{name: run folder}: each benchmark on the scripted model, then LAMBDA with every
    request failing ("failed") and with the synonym items' requests failing ("partial")."""
    out = tmp_path_factory.mktemp("runs")
    golds = lambda_golds()
    found = {}
    for benchmark, options in SLICES.items():
        model = scripted(golds)
        run = api.run(benchmark, model, out=out, use_cache=False, progress=False, **options)
        found[benchmark] = Path(run.folder.path)
    for name, fails in (
        ("failed", lambda r: True),
        ("partial", lambda r: r.id.startswith("synonym")),
    ):
        model = scripted(golds, name=name, fail_on=fails)
        run = api.run("lambda", model, out=out, use_cache=False, progress=False, per_relation=2)
        found[name] = Path(run.folder.path)
    return found


@pytest.fixture(scope="module")
def log_dir(runs, tmp_path_factory) -> Path:
    """Every run's log, written by the command line."""
    out = tmp_path_factory.mktemp("logs")
    assert main(["export-log", *map(str, runs.values()), "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def logs(runs, log_dir) -> dict[str, Any]:
    """{name: the log read back by inspect_ai}."""
    from inspect_ai.log import read_eval_log

    by_run = {}
    for path in sorted(log_dir.glob("*.eval")):
        log = read_eval_log(str(path))
        by_run[Path(log.eval.metadata["lexbench_run"]).name] = log
    return {name: by_run[folder.name] for name, folder in runs.items()}


HEADLINES = {
    "lambda": "accuracy",
    "scan": "MRR@10",
    "google": "MRR@10",
    "setlexsem": "accuracy",
    "ekar": "accuracy",
    "sat": "accuracy",
}


def test_each_task_is_named_by_its_benchmark(logs):
    for benchmark in SLICES:
        assert logs[benchmark].eval.task == benchmark == logs[benchmark].eval.dataset.name
        assert logs[benchmark].status == "success" and logs[benchmark].error is None


@pytest.mark.parametrize("benchmark", sorted(SLICES))
def test_the_first_score_is_the_benchmarks_headline(benchmark, runs, logs):
    """The first score (and its first metric) is the headline lexbench's leaderboard gives
    (MRR@10 for the ranking sets, accuracy elsewhere), which the log also declares (the
    viewer's SCORE column); the run's other numbers come after it."""
    _, samples, results = read_run(runs[benchmark])
    log = logs[benchmark]
    first, *others = log.results.scores
    headline = HEADLINES[benchmark]
    assert first.name == headline and next(iter(first.metrics)) == headline
    assert log.results.headline.metric == headline == log.eval.headline_metric.metric
    scored = [s for s in samples if s["correct"] is not None]
    if headline == "MRR@10":
        assert first.metrics[headline].value == pytest.approx(results["overall"]["mrr"]["estimate"])
        assert first.metrics[headline].value == pytest.approx(1 / 3)
        beside = others[0].metrics
        assert beside["coverage"].value == 1.0 and beside["acc@1"].value == 0.0
        assert "recall@5" in beside and "MRR@10" not in beside
    else:
        accuracy = sum(bool(s["correct"]) for s in scored) / len(scored)
        assert first.metrics[headline].value == pytest.approx(accuracy)
    low, high = first.metrics["95% low"].value, first.metrics["95% high"].value
    assert low - 1e-9 <= first.metrics[headline].value <= high + 1e-9


def _by_id(log) -> dict[str, Any]:
    return {str(s.id): s for s in log.samples}


def test_ranking_replies_show_the_ranked_tokens(runs, logs):
    _, samples, _ = read_run(runs["scan"])
    theirs = _by_id(logs["scan"])
    for ours in samples:
        reply = theirs[ours["id"]].output.completion
        tokens = [*RANKED, " " + ours["targets"][0]]
        assert reply == "\n".join(f"{i}. `{t}`" for i, t in enumerate(tokens, 1))
        assert theirs[ours["id"]].target == ours["targets"]
        assert theirs[ours["id"]].scores["lexbench"].value["value"] == pytest.approx(1 / 3)
    # a word-vector run has no prompt: the input is the analogy (here the LM's prompt)
    assert all(s.input for s in logs["google"].samples)


def test_lambda_targets_are_the_accepted_set(runs, logs):
    _, samples, _ = read_run(runs["lambda"])
    theirs = _by_id(logs["lambda"])
    assert any(len(s["candidates"]) > 1 for s in samples)
    assert 0 < sum(bool(s["correct"]) for s in samples) < len(samples)
    for ours in samples:
        sample = theirs[ours["id"]]
        assert sample.target == ours["candidates"] and ours["gold"] in sample.target
        assert sample.input == ours["prompt"] and sample.output.completion == ours["output"]
        score = sample.scores["lexbench"]
        assert score.value == {"correct": float(ours["correct"]), "value": ours["value"]}
        assert score.answer == ours["answer"]


def test_log_likelihood_replies_name_the_chosen_option(runs, logs):
    """E-KAR and SAT: the reply names lexbench's choice (the first: the scripted model
    favours it) and each choice's log-likelihood; the target is the gold option."""
    for benchmark in ("ekar", "sat"):
        _, samples, _ = read_run(runs[benchmark])
        theirs = _by_id(logs[benchmark])
        for ours in samples:
            sample = theirs[ours["id"]]
            reply = sample.output.completion
            first = ours["choices"][0]
            first = first if isinstance(first, str) else ":".join(first)
            chosen = "A" if benchmark == "ekar" else first
            assert reply.startswith(f"chose {chosen}\n") and f"- A. {first}: -1.000" in reply
            assert sample.scores["lexbench"].answer == chosen
            gold = (
                ours["gold"] if benchmark == "ekar" else ":".join(ours["choices"][ours["answer"]])
            )
            assert sample.target == gold


def test_setlexsem_targets_and_answers_are_sets(runs, logs):
    _, samples, _ = read_run(runs["setlexsem"])
    theirs = _by_id(logs["setlexsem"])
    for ours in samples:
        sample = theirs[ours["id"]]
        assert sample.target == "{" + ", ".join(str(m) for m in ours["answer"]) + "}"
        parsed = ours["parsed_answer"]
        expected = None if parsed is None else "{" + ", ".join(map(str, parsed)) + "}"
        assert sample.scores["lexbench"].answer == expected


def test_a_run_whose_requests_all_failed_is_an_error_log(runs, logs):
    """Not a green success with score NaN: status error, the commonest reason, no score;
    each sample carries its failure."""
    log = logs["failed"]
    _, samples, _ = read_run(runs["failed"])
    assert log.status == "error" and log.results.scores == []
    assert (log.results.total_samples, log.results.completed_samples) == (len(samples), 0)
    assert log.error.message == (
        f"every request failed ({len(samples)} of {len(samples)}); nothing was scored; "
        f"commonest reason ({len(samples)}x): scripted failure"
    )
    assert all(s.error.message == "scripted failure" and not s.scores for s in log.samples)


def test_a_run_with_some_failed_requests_is_an_error_log_with_its_scores(runs, logs):
    """lexbench exits 3 on such a run: the log is an error, says how many failed and why,
    and keeps the headline over the items that were scored."""
    log = logs["partial"]
    _, samples, results = read_run(runs["partial"])
    failed = [s for s in samples if s["error"]]
    assert 0 < len(failed) < len(samples)
    assert log.status == "error"
    assert log.error.message == (
        f"{len(failed)} of {len(samples)} requests failed; "
        f"commonest reason ({len(failed)}x): scripted failure"
    )
    assert log.results.scores[0].name == "accuracy"
    assert log.results.scores[0].metrics["accuracy"].value == results["overall"]["accuracy"]
    assert {str(s.id) for s in log.samples if s.error} == {s["id"] for s in failed}
    assert log.results.metadata == {"lexbench_failures": log.error.message.split(";")[0]}


def test_export_log_prints_paths_as_escapes(runs, tmp_path, capsys):
    out = tmp_path / "logs \x1b[31m dir"
    assert main(["export-log", str(runs["lambda"]), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\\x1b" in printed  # the escape is shown, not sent
    (written,) = out.glob("*.eval")
    assert "_lambda_" in written.name  # the viewer reads the task from the file name first
    config = json.loads((runs["lambda"] / "config.json").read_text())
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(written))
    assert log.eval.metadata["lexbench_config"]["run_options"] == config["run_options"]
    assert log.eval.model == "lexbench/scripted"


def test_export_log_of_no_run_is_one_line(tmp_path, capsys):
    assert main(["export-log", str(tmp_path), "-o", str(tmp_path / "logs")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------ inspect view


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


def _listing(page) -> dict[tuple[str, str], dict[str, str]]:
    """The viewer's log listing: {(task, model): {"status": its title, "score": ...}}."""
    rows = {}
    for row in page.get_by_role("row").all()[1:]:
        cell = {
            name: row.locator(f'[data-col-id="{name}"]')
            for name in ("status", "task", "model", "score")
        }
        key = (cell["task"].inner_text().strip(), cell["model"].inner_text().strip())
        rows[key] = {
            "status": cell["status"].get_attribute("title") or "",
            "score": cell["score"].inner_text().strip(),
        }
    return rows


def test_inspect_view_shows_the_headline_the_failure_and_the_ranked_tokens(runs, log_dir):
    """In the viewer: SCAN's SCORE is its MRR@10 (1/3, not coverage 1.0), the failed run is
    an error whose page says why, and a SCAN sample's reply lists the ranked tokens."""
    executable = _chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    _, samples, _ = read_run(runs["scan"])
    port = _free_port()
    inspect = Path(sys.executable).parent / "inspect"
    server = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(log_dir), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    shots = Path(os.environ.get("LEXBENCH_REPORT_SCREENSHOTS") or log_dir.parent / "shots")
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
            page = browser.new_page(viewport={"width": 1400, "height": 800})
            page.goto(f"http://127.0.0.1:{port}/")
            page.get_by_text("lexbench/failed").first.wait_for(timeout=60_000)
            page.get_by_text("0.333").first.wait_for(timeout=30_000)
            listing = _listing(page)
            page.screenshot(path=str(shots / "inspect-view-listing.png"))
            page.get_by_text("lexbench/failed").first.click()
            page.get_by_role("tab", name=re.compile("^error$", re.IGNORECASE)).click(timeout=30_000)
            page.get_by_text("every request failed").first.wait_for(timeout=30_000)
            error_page = page.inner_text("body")
            page.screenshot(path=str(shots / "inspect-view-failed-run.png"))
            page.goto(f"http://127.0.0.1:{port}/")
            page.get_by_text("lexbench/scripted").first.wait_for(timeout=60_000)
            page.locator('[data-col-id="task"]', has_text="scan").first.click()
            page.get_by_text(samples[0]["id"]).first.click(timeout=60_000)
            page.get_by_text("ASSISTANT").first.wait_for(timeout=30_000)
            sample_page = page.inner_text("body")
            page.screenshot(path=str(shots / "inspect-view-scan-sample.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    # The status cell's title: "success", or "error" (its message once the viewer has read
    # the log's header).
    assert listing[("scan", "lexbench/scripted")] == {"status": "success", "score": "0.333"}
    failed = listing[("lambda", "lexbench/failed")]
    assert failed["score"] == "-"
    assert failed["status"] == "error" or failed["status"].startswith("every request failed")
    partial = listing[("lambda", "lexbench/partial")]["status"]
    assert partial == "error" or "requests failed; commonest reason" in partial
    assert "commonest reason" in error_page and "scripted failure" in error_page
    tokens = [*RANKED, " " + samples[0]["targets"][0]]
    replies = sample_page[sample_page.index("ASSISTANT") :]
    positions = [replies.index(token.strip()) for token in tokens]
    assert positions == sorted(positions)  # in rank order
