"""A run frozen while it holds send claims (issue 43, item 6): stopped with SIGSTOP, its
claims lapse and a second run, rightly, takes them over and answers every request. Resumed
with SIGCONT, the first run must send none of those requests again (before: 220 requests
for 120): it finds its claims may have lapsed, checks each request against the cache before
sending it, and takes the other run's answers from there.

Real processes, real signals, the fake server counting requests; the lease is shortened to
3 s through LEXBENCH_TEST_CLAIM_LEASE_S, so the whole test takes seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_send_claims import PYTHONPATH, RUN

from fake_openai_server import FakeOpenAIServer
from lexbench.run.cache import ResponseCache

COUNT = 120
LEASE_S = 3.0

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX signals")


def state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        return handle.read().rsplit(")", 1)[-1].split()[0]


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds:.0f} s"
        time.sleep(0.01)


def start_run(server: FakeOpenAIServer, root: Path, name: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "LEXBENCH_TEST_CLAIM_LEASE_S": str(LEASE_S)}
    argv = [sys.executable, "-c", RUN, server.url, str(root / "c.sqlite"), str(root / name)]
    return subprocess.Popen(
        [*argv, str(COUNT)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_a_run_resumed_after_losing_its_claims_sends_nothing_answered_meanwhile(tmp_path):
    with FakeOpenAIServer(latency=0.1, lifetime=170) as server:
        first = start_run(server, tmp_path, "first")
        try:
            wait_for(lambda: len(server.entries()) >= 20, 60, "the first run sent 20 prompts")
            os.kill(first.pid, signal.SIGSTOP)
            wait_for(lambda: state(first.pid) == "T", 10, "the first run stopped")
            stopped_at = len(server.entries())
            second = start_run(server, tmp_path, "second")
            _, second_err = second.communicate(timeout=120)
            assert second.returncode == 0, second_err
            answered_by_then = len(server.entries())
            resumed = time.time()
        finally:
            os.kill(first.pid, signal.SIGCONT)
        out, err = first.communicate(timeout=120)
        entries = server.entries()
    assert first.returncode == 0, err
    prompts = [entry.prompt for entry in entries]
    assert len(set(prompts)) == COUNT  # every prompt was asked
    assert answered_by_then > stopped_at  # the second run did send (what the first had not)
    # Nothing reached the server after the first run resumed: every request it had not sent
    # when it stopped was answered by the second, and taken from the cache.
    late = [entry.prompt for entry in entries if entry.time >= resumed]
    assert late == [], f"{len(late)} prompts sent again after SIGCONT"
    assert len(prompts) < COUNT + 40, len(prompts)  # before: 220 for 120
    assert "may have taken over its requests" in err
    for name in ("first", "second"):
        folder = Path(
            out.strip().splitlines()[-1]
            if name == "first"
            else next(p.parent for p in (tmp_path / name).rglob("samples.jsonl"))
        )
        rows = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
        assert len(rows) == COUNT and all(row["output"] for row in rows), name
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        assert cache.count() == COUNT
