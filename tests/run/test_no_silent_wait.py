"""No wait is silent for 10 seconds (issue 43), even when the model is slow.

The slowest quick check of Getting started, SetLexSem's small grid, sat at `0/144 [00:00]`
with no token count for 17 min 56 s on a loaded machine: the first batch's 64 prompts are
read (prefilled) in one forward pass before any token, and nothing was said meanwhile. Here
the same command runs with the real SmolLM2 on one thread and every transformer block
slowed `FACTOR` times (`lexbench_throttled.py`: the real pass, then a sleep), as on a
machine where it gets 1/FACTOR of a core, and its stderr is watched the way a log gets it
(a pipe, not a terminal): a line at least every 10 s from the start, the bar saying what the
model is doing (prompt tokens read, then tokens decoded), and the model's reports moving
with its real work; then the run is stopped. A log gets a line every few seconds, no more.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import lexbench
from lexbench.run.progress import LOG_EVERY_S

SRC = str(Path(lexbench.__file__).resolve().parents[1])
THROTTLED = Path(__file__).with_name("lexbench_throttled.py")
QUICK_CHECK = [
    *("run", "setlexsem", "--model", "smollm2-135m", "--grid", "small", "--limit", "1"),
    *("--select", "method=baseline_allow_empty", "--stop-at-answer"),
]
FACTOR = 4.0  # every block takes 4 times its time
SILENCE_S = 10.0  # the longest a wait may stay silent
WATCH_S = 45.0  # watched at least this long
DEADLINE_S = 100.0  # and stopped by then, model progress seen or not
WORKING = re.compile(r"prefill ([1-9]\d*)% of|[\d,]+ tokens")


def _watch(command: list[str], env: dict[str, str]) -> tuple[list[tuple[float, str]], float]:
    """(seconds after the start, line) for each stderr line (ended by \\n or \\r), until the
    model was seen working after WATCH_S, or DEADLINE_S; and when watching ended."""
    lines: list[tuple[float, str]] = []
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None

    def read() -> None:
        pending = b""
        while chunk := os.read(process.stderr.fileno(), 4096):  # type: ignore[union-attr]
            pending += chunk
            *whole, pending = re.split(rb"[\r\n]", pending)
            now = time.monotonic() - started
            lines.extend((now, p.decode(errors="replace")) for p in whole if p.strip())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while time.monotonic() - started < DEADLINE_S and process.poll() is None:
            time.sleep(0.5)
            seen = any(WORKING.search(text) for _, text in lines)
            if seen and time.monotonic() - started >= WATCH_S:
                break
        ended = time.monotonic() - started
    finally:
        process.kill()
        process.wait()
        reader.join(timeout=10)
    assert process.returncode != 0 or ended < DEADLINE_S
    return list(lines), ended


@pytest.mark.slow
def test_the_slowest_quick_check_says_something_every_10_seconds_on_a_slow_model(smollm2, tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC}
    command = [sys.executable, str(THROTTLED), str(FACTOR), *QUICK_CHECK, "--threads", "1"]
    command += ["--out", str(tmp_path / "runs"), "--cache", str(tmp_path / "responses.sqlite")]
    lines, ended = _watch(command, env)
    said = "\n".join(f"{at:6.1f} {text}" for at, text in lines)
    assert lines, "nothing on stderr"
    moments = [0.0] + [at for at, _ in lines] + [ended]
    gaps = [later - earlier for earlier, later in itertools.pairwise(moments)]
    assert max(gaps) <= SILENCE_S, f"silent for {max(gaps):.1f} s:\n{said}"
    bar = [(at, text) for at, text in lines if text.startswith("setlexsem: ")]
    assert bar, said
    # From its first redraw the bar says what the model does: reading prompts, or decoding.
    assert all("prefill" in text or "tokens" in text for _, text in bar[1:]), said
    # The model's own reports moved with its work (a layer read, or tokens decoded).
    assert any(WORKING.search(text) for _, text in bar), said
    # A log is not flooded: about one bar line per LOG_EVERY_S.
    watched = bar[-1][0] - bar[0][0]
    assert len(bar) <= watched / LOG_EVERY_S + 3, said
