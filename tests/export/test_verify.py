"""`lexbench export ... --verify MODEL`: it runs the other tool exactly as the printed
command says, names lexbench's chosen option on every item kind, and never waits in silence
(the tool's output streamed, a line at least every few seconds)."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from lexbench.cli import main
from mock_model import ScriptedModel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SAT = FIXTURES / "export" / "sat_mini.jsonl"
EKAR = FIXTURES / "ekar" / "english"


def _printed_command(printed: str) -> str:
    (line,) = [line for line in printed.splitlines() if line.startswith("  ") and "MODEL" in line]
    return line.strip()


@pytest.mark.parametrize(
    ("benchmark", "fmt", "arguments"),
    [
        ("setlexsem", "lm-eval", ["--grid", "small", "--select=operation=union", "--select=m=2"]),
        ("lambda", "lm-eval", ["--per-relation", "1"]),
        ("lambda", "inspect", ["--per-relation", "1"]),
    ],
)
def test_verify_runs_the_tool_as_the_printed_command_says(
    benchmark, fmt, arguments, tmp_path, capsys, monkeypatch, wordnet_index
):
    """The command `--verify` runs starts with the printed one, MODEL filled in (a chat-mode
    export's --apply_chat_template included), from the same folder; it adds only where the
    logs go, how progress shows and lm-eval's CPU batch."""
    from lexbench.export import tool_output
    from lexbench.export.tool_runs import INSPECT_ADDED, LM_EVAL_ADDED
    from lexbench.export.verify import verify

    folder = tmp_path / "task dir"
    assert main(["export", benchmark, "--format", fmt, *arguments, "-o", str(folder)]) == 0
    printed = _printed_command(capsys.readouterr().out)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    ran = []

    def stop(argv, cwd, env, tool, **_):
        ran.append((list(argv), Path(cwd)))
        return 1, ["stopped by the test"]

    monkeypatch.setattr(tool_output, "run_streamed", stop)
    with pytest.raises(RuntimeError, match="exited with status 1: stopped by the test"):
        verify(fmt, folder, str(model))
    ((argv, cwd),) = ran
    words = shlex.split(printed.replace("MODEL", str(model)))
    if fmt == "inspect":
        assert words[:3] == ["cd", str(folder.resolve()), "&&"]
        words = words[3:]
    assert cwd == folder.resolve()
    assert Path(argv[0]).name == words[0] and argv[1 : len(words)] == words[1:]
    added = INSPECT_ADDED if fmt == "inspect" else LM_EVAL_ADDED
    assert argv[len(words) :] == [*added, argv[-1]]
    assert ("--apply_chat_template" in words) == (benchmark == "setlexsem")


@pytest.mark.parametrize("benchmark", ["sat", "ekar"])
def test_verify_names_lexbenchs_choice_on_log_likelihood_items(benchmark, tmp_path, capsys):
    """Both sides of a log-likelihood item show the option lexbench's scorer chose (SAT's
    pair, E-KAR's letter), not 'None' or an index."""
    import pyarrow.parquet as pq

    from lexbench.export.scorer import ExportScorer
    from lexbench.export.tool_runs import lm_eval_verdicts
    from lexbench.export.verify import Agreement, lexbench_verdicts

    folder = tmp_path / "task"
    data = ["--data", str(SAT if benchmark == "sat" else EKAR)]
    split = ["--option", "split=test"] if benchmark == "ekar" else []
    assert main(["export", benchmark, "--format", "lm-eval", *data, *split, "-o", str(folder)]) == 0
    rows = pq.read_table(folder / "data" / "test.parquet").to_pylist()
    favour = {row["id"]: position % 2 for position, row in enumerate(rows)}  # choice 0 or 1
    by_request = {json.loads(row["requests"])[0]["id"]: favour[row["id"]] for row in rows}

    def loglikelihoods(request) -> list[float]:
        chosen = by_request[request.id]
        return [-1.0 if i == chosen else -5.0 for i in range(len(request.continuations))]

    def expected(position: int) -> str:
        chosen = json.loads(rows[position]["item"])["choices"][position % 2]
        return "AB"[position % 2] if benchmark == "ekar" else ":".join(chosen)

    model = ScriptedModel(loglikelihoods=loglikelihoods)
    ours = lexbench_verdicts(folder, model, tmp_path / "runs", graded=False)
    assert [ours[row["id"]].output for row in rows] == [expected(i) for i in range(len(rows))]
    theirs = lm_eval_verdicts(
        [
            {
                "doc": row,
                "resps": [[[v, False]] for v in loglikelihoods(_request(row))],
                "acc": float(ours[row["id"]].correct),
            }
            for row in rows
        ],
        ExportScorer(folder / "lexbench-manifest.json"),
    )
    assert [theirs[row["id"]].output for row in rows] == [expected(i) for i in range(len(rows))]
    lines = Agreement(benchmark, "lm-eval", {**theirs, "x": theirs[rows[0]["id"]]}, ours).lines()
    assert f"x: lm-eval {ours[rows[0]['id']].output!r}" in lines[1] and "None" not in lines[1]


def _request(row: dict[str, Any]) -> Any:
    from lexbench.types import Request

    asked = json.loads(row["requests"])[0]
    return Request(asked["id"], "loglikelihood", continuations=tuple(asked["continuations"]))


CHATTY_TOOL = textwrap.dedent(
    """
    import sys, time
    print("starting", flush=True)
    for n in (1, 2):
        sys.stderr.write(f"\\rRunning requests: {n}/3"); sys.stderr.flush(); time.sleep(0.3)
    time.sleep(2.5)  # a slow batch: nothing printed
    sys.stderr.write("\\rRunning requests: 3/3\\n")
    print("done", flush=True)
    sys.exit(3)
    """
)


def test_the_tools_output_is_streamed_with_a_heartbeat_between(tmp_path):
    """Lines show as they come, a redrawn bar as lines of its own, and a silent stretch is
    filled by lexbench's own line naming the tool's last one."""
    from lexbench.export.tool_output import run_streamed

    said: list[tuple[float, str]] = []
    started = time.monotonic()
    status, tail = run_streamed(
        [sys.executable, "-c", CHATTY_TOOL],
        tmp_path,
        {},
        "tool",
        say=lambda text: said.append((time.monotonic(), text)),
        heartbeat=1.0,
        progress_every=0.2,
    )
    texts = [text for _, text in said]
    assert status == 3 and tail[-1] == "done"
    assert texts[0] == "  tool: starting" and texts[-1] == "  tool: done"
    assert "  tool: Running requests: 3/3" in texts
    beats = [t for t in texts if t.startswith("lexbench: tool still running (0:0")]
    assert beats and all(t.endswith("; last: Running requests: 2/3") for t in beats)
    times = [started] + [at for at, _ in said]
    assert max(b - a for a, b in itertools.pairwise(times)) < 1.0 + 0.75


def test_a_model_loading_in_process_is_not_silent(monkeypatch):
    from lexbench import heartbeat

    monkeypatch.setattr(heartbeat, "ANNOUNCE_AFTER_S", 0.1)
    monkeypatch.setattr(heartbeat, "NEWS_EVERY_S", 0.2)
    said: list[str] = []
    with heartbeat.long_step("loading a model", tell=said.append):
        time.sleep(0.7)
    news = said[:-1]
    assert len(news) >= 2 and all(t.startswith("lexbench: loading a model... (") for t in news)
    assert said[-1].startswith("lexbench: loading a model: done in ")


@pytest.mark.slow
def test_verify_on_the_real_model_prints_a_line_at_least_every_10_seconds(tmp_path):
    """`export ... --verify smollm2-135m` on a small slice, as a user runs it (output to a
    pipe): every piece of output (lines and redrawn bars) comes within 10 s of the one
    before, from the first line to the agreement; inspect's sample count among them."""
    argv = [sys.executable, "-m", "lexbench", "export", "lambda", "--format", "inspect"]
    argv += ["--per-relation", "1", "-o", str(tmp_path / "task"), "--verify", "smollm2-135m"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    pieces: list[tuple[float, str]] = []
    pending = b""
    while chunk := process.stdout.read1(4096):
        now = time.monotonic()
        pending += chunk
        *done, pending = re.split(rb"[\r\n]", pending)
        pieces += [(now, piece.decode(errors="replace")) for piece in done if piece.strip()]
    assert process.wait() == 0, "\n".join(text for _, text in pieces[-20:])
    gaps = [(b[0] - a[0], b[1]) for a, b in itertools.pairwise(pieces)]
    assert max(gaps)[0] < 10, max(gaps)  # (seconds, what came after the wait)
    texts = [text for _, text in pieces]
    assert texts[-1] == "lambda in inspect_ai: 3/3 items give lexbench's verdict (all equal)"
    # inspect's own sample count, relayed. Its plain display prints at most every 5 s and,
    # at the end, only if the step count moved since its last line, so that line may still
    # say 2/3 when the run is quick: any count out of the 3 samples is inspect's progress.
    assert any(re.search(r"^  inspect: .*Samples: +\d+/ +3\b", t) for t in texts), texts
