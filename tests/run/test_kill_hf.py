"""The transformers backend caches each decoded batch as it ends (issue 29, item 2): a run
of the real SmolLM2 killed with SIGKILL mid-way keeps every finished batch, and the rerun
sends the model only the requests that were not answered."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

COUNT = 8
SCRIPT = textwrap.dedent(
    """
    import sys
    from lexbench.models.hf import HFCausalLM, HFOptions
    from lexbench.run.cache import ResponseCache
    from lexbench.run.runner import execute
    sys.path.insert(0, sys.argv[2])
    from test_kill_hf import requests

    model = HFCausalLM.from_spec("smollm2-135m", HFOptions(batch_size=2, threads=1))
    with ResponseCache(sys.argv[1]) as cache:
        execute(model, requests(), cache=cache, progress=False)
    """
)


def requests():
    from lexbench.types import Decoding, Request

    decoding = Decoding(max_new_tokens=16)
    return [
        Request(
            id=f"q{n}",
            kind="generate",
            prompt=f"Write a short story about the number {n}:",
            decoding=decoding,
        )
        for n in range(COUNT)
    ]


def cached_rows(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not made yet
        return 0


def test_a_killed_hf_run_keeps_finished_batches_and_resends_only_the_rest(tmp_path, smollm2):
    from lexbench.run.cache import ResponseCache
    from lexbench.run.runner import execute

    cache = tmp_path / "responses.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(cache), str(Path(__file__).parent)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while cached_rows(cache) < 2 and process.poll() is None:
            assert time.monotonic() < deadline, "no batch was cached in time"
            time.sleep(0.05)
        assert process.poll() is None, f"the run ended before the kill: {process.communicate()}"
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == -signal.SIGKILL
    kept = cached_rows(cache)
    assert 2 <= kept < COUNT

    asked: list[str] = []
    real = smollm2.answer_each

    def spying(batch, on_response=None):
        asked.extend(r.id for r in batch)
        return real(batch, on_response)

    smollm2.answer_each = spying
    try:
        with ResponseCache(cache) as opened:
            responses, stats = execute(smollm2, requests(), cache=opened, progress=False)
    finally:
        del smollm2.answer_each
    assert (stats.cached, stats.sent) == (kept, COUNT - kept)
    assert len(asked) == COUNT - kept and len(set(asked)) == len(asked)
    assert all(r.error is None for r in responses)
