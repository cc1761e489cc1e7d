"""A `lexbench run lambda` against the fake server, killed with SIGKILL mid-way and started
again with the same command, finishes with the same results as an uninterrupted run, and
the server's request log shows that no cached request was sent again. The API key used
reaches the server but never the cache, the run folder or the output."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer

SECRET = "sk-kill-test-SECRET-7788"
LIMIT = 20  # items per relation; LAMBDA has 3 relations


def command(server: FakeOpenAIServer, cache: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "lexbench.cli",
        "run",
        "lambda",
        "--model",
        "openai:fake-model",
        "--base-url",
        server.url,
        "--api-key-env",
        "LEXBENCH_KILL_TEST_KEY",
        "--max-concurrency",
        "2",
        "--per-relation",
        str(LIMIT),
        "--cache",
        str(cache),
        "--out",
        str(out),
        "--no-progress",
    ]


def cached_prompts(cache: Path) -> set[str]:
    with sqlite3.connect(cache) as db:
        return {json.loads(row[0])["prompt"] for row in db.execute("SELECT request FROM responses")}


def run_folder(out: Path) -> Path:
    folders = [p.parent for p in out.rglob("results.json")]
    assert len(folders) == 1, folders
    return folders[0]


@pytest.mark.parametrize("kill_after", [3, 35])
def test_sigkill_then_resume_sends_nothing_cached(tmp_path, tiny_wordnet_env, kill_after):
    from lexbench import api
    from lexbench.models.openai.backend import OpenAIModel
    from lexbench.models.openai.options import OpenAIOptions

    env = {**os.environ, "LEXBENCH_KILL_TEST_KEY": SECRET}
    cache, out = tmp_path / "responses.sqlite", tmp_path / "runs"
    with FakeOpenAIServer(latency=0.05, require_key=SECRET, lifetime=180) as server:
        process = subprocess.Popen(
            command(server, cache, out),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 90
            while len(server.entries()) < kill_after and process.poll() is None:
                assert time.monotonic() < deadline, "the run never reached the server"
                time.sleep(0.005)
            assert process.poll() is None, f"the run ended before the kill: {process.communicate()}"
            process.send_signal(signal.SIGKILL)
            killed_out, killed_err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:  # a failed assertion above: do not leave it running
                process.kill()
                process.wait(10)
        assert process.returncode == -signal.SIGKILL
        # Requests the killed process wrote before dying may still be in flight to the
        # server: wait until its log is quiet before drawing the line between the runs.
        sent_before = len(server.entries())
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 0.5:
            time.sleep(0.05)
            if len(server.entries()) != sent_before:
                sent_before, quiet_since = len(server.entries()), time.monotonic()

        kept = cached_prompts(cache)
        assert len(kept) < 3 * LIMIT  # killed mid-way
        resumed = subprocess.run(
            command(server, cache, out), env=env, capture_output=True, text=True, timeout=120
        )
        assert resumed.returncode == 0, resumed.stderr
        sent_after = [entry.prompt for entry in server.entries()[sent_before:]]

        # Reference: the same run, uninterrupted, with a fresh cache.
        os.environ["LEXBENCH_KILL_TEST_KEY"] = SECRET
        try:
            model = OpenAIModel(
                "fake-model",
                OpenAIOptions(
                    base_url=server.url, api_key_env="LEXBENCH_KILL_TEST_KEY", max_concurrency=2
                ),
            )
            reference = api.run(
                "lambda",
                model,
                per_relation=LIMIT,
                out=tmp_path / "reference",
                cache=tmp_path / "reference.sqlite",
                progress=False,
            )
        finally:
            del os.environ["LEXBENCH_KILL_TEST_KEY"]

    # No cached request was sent again, and every other one exactly once.
    assert not set(sent_after) & kept
    all_prompts = cached_prompts(cache)
    assert len(sent_after) == len(set(sent_after)) == len(all_prompts - kept)
    assert all(entry.outcome == "ok" for entry in server.entries())

    # Same results as the uninterrupted run.
    folder = run_folder(out)
    assert folder.joinpath("samples.jsonl").read_text() == reference.folder.samples_path.read_text()
    results = json.loads(folder.joinpath("results.json").read_text())
    expected = json.loads(reference.folder.results_path.read_text())
    assert results["run"]["cached"] == len(kept)
    assert results["run"]["sent"] == len(all_prompts - kept)
    results.pop("run"), expected.pop("run")
    assert results == expected

    # The key reached the server but was written nowhere.
    for path in [cache, *cache.parent.glob("responses.sqlite*"), *folder.iterdir()]:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    for text in (killed_out, killed_err, resumed.stdout, resumed.stderr):
        assert SECRET not in text
