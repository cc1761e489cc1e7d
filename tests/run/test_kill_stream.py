"""A streaming run killed in its second window resumes without asking anything twice.

`lexbench run setlexsem --grid GRID` (a grid of number sets, 1,200 prompts: two windows of
1,024 requests) against the fake server, killed with SIGKILL after the first window's samples
were written to the hidden staging folder, then run again: the rerun sends only what the
cache lacks, removes the dead run's staging folder, and writes the samples an
uninterrupted run writes.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from fake_openai_server import FakeOpenAIServer
from lexbench.run import evaluate

PROMPTS = 1200  # 24 configurations x 50
GRID = """prompts_per_config = 50

[[study]]
name = "kill"
token_types = ["numbers"]
token_lengths = [2, 3, 4]
operand_sizes = [2, 4]
"""


def command(server: FakeOpenAIServer, cache: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "lexbench.cli",
        "run",
        "setlexsem",
        "--grid",
        str(out.parent / "grid.toml"),
        "--model",
        "openai:fake-model",
        "--base-url",
        server.url,
        "--max-concurrency",
        "16",
        "--cache",
        str(cache),
        "--out",
        str(out),
        "--no-progress",
        "--allow-failures",
    ]


def cached_prompts(cache: Path) -> set[str]:
    with sqlite3.connect(cache) as db:
        return {json.loads(row[0])["prompt"] for row in db.execute("SELECT request FROM responses")}


def test_kill_in_the_second_window_then_resume(tmp_path):
    assert evaluate.WINDOW_REQUESTS < PROMPTS < 2 * evaluate.WINDOW_REQUESTS
    cache, out = tmp_path / "responses.sqlite", tmp_path / "runs"
    (tmp_path / "grid.toml").write_text(GRID)
    kill_after = evaluate.WINDOW_REQUESTS + 40
    with FakeOpenAIServer(latency=0.01, lifetime=300) as server:
        process = subprocess.Popen(
            command(server, cache, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            deadline = time.monotonic() + 150
            while len(server.entries()) < kill_after and process.poll() is None:
                assert time.monotonic() < deadline, "the run never reached its second window"
                time.sleep(0.005)
            assert process.poll() is None, f"the run ended before the kill: {process.communicate()}"
            staging = list(out.rglob(".*.tmp-*"))
            # The first window's samples are on disk, in the hidden folder being written.
            assert len(staging) == 1 and (staging[0] / "samples.jsonl").stat().st_size > 0
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        sent_before = len(server.entries())
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 0.5:  # answers still in flight land first
            time.sleep(0.05)
            if len(server.entries()) != sent_before:
                sent_before, quiet_since = len(server.entries()), time.monotonic()
        kept = cached_prompts(cache)
        assert evaluate.WINDOW_REQUESTS <= len(kept) < PROMPTS
        assert not list(out.rglob("results.json"))  # no run folder from the killed run

        resumed = subprocess.run(
            command(server, cache, out), capture_output=True, text=True, timeout=240
        )
        assert resumed.returncode == 0, resumed.stderr
        sent_after = [entry.prompt for entry in server.entries()[sent_before:]]
        reference = subprocess.run(
            command(server, tmp_path / "fresh.sqlite", tmp_path / "runs-reference"),
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert reference.returncode == 0, reference.stderr

    assert not set(sent_after) & kept
    assert len(sent_after) == len(set(sent_after)) == PROMPTS - len(kept)
    assert not list(out.rglob(".*.tmp-*"))  # the dead run's staging folder is gone
    (folder,) = [p.parent for p in out.rglob("results.json")]
    (expected,) = [p.parent for p in (tmp_path / "runs-reference").rglob("results.json")]
    samples = (folder / "samples.jsonl").read_bytes()
    assert samples == (expected / "samples.jsonl").read_bytes()
    assert samples.count(b"\n") == PROMPTS
    results = json.loads((folder / "results.json").read_text())
    assert results["run"]["cached"] == len(kept)
    assert results["run"]["sent"] == PROMPTS - len(kept)
