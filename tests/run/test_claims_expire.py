"""Send claims that expire, and a cache file that disappears under a run (issue 37, items 2,
8 and 10): a zombie's claims are taken over at once, a live owner refreshes its own, a claim
left unrefreshed for the lease is taken over whoever holds it, a waiting run names whom it
waits for and until when, the claims of killed runs are deleted, `cache check` leaves no
-wal/-shm behind, and `cache clear` during a run loses none of its answers."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from lexbench.cli import main
from lexbench.run import send_claims
from lexbench.run.cache import ResponseCache, request_key
from lexbench.run.runner import execute
from lexbench.run.send_claims import CLAIM_LEASE_S, Owner, is_zombie
from lexbench.types import Request, Response
from mock_model import ScriptedModel

PYTHONPATH = os.pathsep.join([str(Path(__file__).parents[2] / "src"), *sys.path])
CLAIM_AND_SLEEP = """
import json, sys, time
from lexbench.run.cache import ResponseCache
from lexbench.run.send_claims import Owner
path, keys, ready = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
cache = ResponseCache(path)
_, mine, _ = cache.claim_for_sending(keys, Owner.current())
assert mine == keys
open(ready, "w").close()
time.sleep(600)
"""


def _requests(n: int, prefix: str = "prompt") -> list[Request]:
    return [Request(id=f"r{i}", kind="generate", prompt=f"{prefix} {i}") for i in range(n)]


def _keys(model: ScriptedModel, requests: list[Request]) -> list[str]:
    return [request_key(model.fingerprint(), r) for r in requests]


def _claims(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM sending").fetchone()[0])


def _spawn_claimer(path: Path, keys: list[str], ready: Path) -> int:
    """A child process that claims `keys` and sleeps. posix_spawn, not subprocess: nothing
    in this process reaps it behind the test's back (subprocess reaps finished children
    whenever another Popen is made), so once killed it stays a zombie."""
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    argv = [sys.executable, "-c", CLAIM_AND_SLEEP, str(path), json.dumps(keys), str(ready)]
    pid = os.posix_spawn(sys.executable, argv, env)
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert time.monotonic() < deadline, "the claiming child never got ready"
        time.sleep(0.05)
    return pid


def _within(seconds: float, work: Any) -> Any:
    """`work()` run on a thread; fails the test when it has not returned in `seconds` (a
    run that waits forever must not hang the suite)."""
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(work()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"still waiting after {seconds} s"
    return done[0]


def test_the_claims_of_a_zombie_are_taken_over_at_once(tmp_path):
    """A run killed with -9 and not yet reaped by its parent (a zombie) still answers
    kill(pid, 0): before, a second run waited on its claims for ever."""
    path = tmp_path / "c.sqlite"
    model = ScriptedModel()
    requests = _requests(6)
    pid = _spawn_claimer(path, _keys(model, requests), tmp_path / "ready")
    try:
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not is_zombie(pid):  # dead, and not reaped: this process never waits on it
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with ResponseCache(path) as cache:
            _, stats = _within(30, lambda: execute(model, requests, cache=cache, progress=False))
        assert (stats.sent, stats.cached) == (6, 0)
        assert is_zombie(pid)  # taken over while it was still one
    finally:
        os.kill(pid, signal.SIGKILL)  # a no-op on a zombie; the child if the test failed early
        os.waitpid(pid, 0)
    assert _claims(path) == 0


def test_a_live_owner_refreshes_its_claims_while_its_model_works(tmp_path, monkeypatch):
    monkeypatch.setattr(send_claims, "REFRESH_S", 0.1)
    path = tmp_path / "c.sqlite"
    seen: list[tuple[float, float]] = []

    def slow(request: Request) -> str:
        started = time.time()
        time.sleep(0.6)  # one long batch: no answer is stored meanwhile
        with sqlite3.connect(path) as db:
            since = db.execute("SELECT MIN(since) FROM sending").fetchone()[0]
        seen.append((started, since))
        return "answer"

    with ResponseCache(path) as cache:
        execute(ScriptedModel(slow), _requests(1), cache=cache, progress=False)
    started, since = seen[0]
    assert since > started  # refreshed while the request was being answered


def test_a_claim_left_unrefreshed_for_the_lease_is_taken_over(tmp_path):
    """A live process (our parent) that stopped refreshing: hung, or stopped with SIGSTOP."""
    model = ScriptedModel()
    requests = _requests(3)
    hung = Owner(socket.gethostname(), os.getppid(), "", "hung")
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        stale = time.time() - CLAIM_LEASE_S - 1
        cache._db.executemany(
            "INSERT INTO sending VALUES (?, ?, ?, ?, ?, ?)",
            [
                (k, hung.id, hung.host, hung.pid, hung.started, stale)
                for k in _keys(model, requests)
            ],
        )
        cache._db.commit()
        _, stats = _within(30, lambda: execute(model, requests, cache=cache, progress=False))
    assert (stats.sent, stats.cached) == (3, 0)


def test_a_waiting_run_names_whom_it_waits_for_and_until_when(tmp_path, capsys, monkeypatch):
    from lexbench.run import window_answers

    monkeypatch.setattr(window_answers, "WAIT_NEWS_S", 0.3)
    model = ScriptedModel()
    requests = _requests(2)
    keys = _keys(model, requests)
    other = Owner(socket.gethostname(), os.getppid(), "", "other")  # alive: our parent
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        cache._db.execute(
            "INSERT INTO sending VALUES (?, ?, ?, ?, ?, ?)",
            (keys[0], other.id, other.host, other.pid, other.started, time.time()),
        )
        cache._db.commit()

        def answer_later() -> None:
            time.sleep(1.0)
            with ResponseCache(path) as elsewhere:
                elsewhere.put_many([(keys[0], model.fingerprint(), requests[0], Response("r0"))])

        helper = threading.Thread(target=answer_later)
        helper.start()
        _, stats = execute(model, requests, cache=cache, progress=False)
        helper.join()
    assert (stats.sent, stats.cached) == (1, 1)
    err = capsys.readouterr().err
    assert f"(pid {other.pid} on {other.host})" in err
    assert f"unrefreshed for {CLAIM_LEASE_S:.0f} s (next deadline in" in err
    assert "waited 0 s so far" in err or "waited 1 s so far" in err  # said again while waiting


def test_the_claims_of_killed_runs_are_deleted(tmp_path):
    """Before, they stayed in the file for ever (2,000 rows after 5 kills)."""
    path = tmp_path / "c.sqlite"
    model = ScriptedModel()
    for run in range(3):
        ready = tmp_path / f"ready-{run}"
        pid = _spawn_claimer(path, _keys(model, _requests(40, f"run {run}")), ready)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert _claims(path) == 40
    assert _claims(path) == 40  # each run's first claim deleted the claims of the one before
    with ResponseCache(path) as cache:  # another run, asking other things
        execute(model, _requests(2, "unrelated"), cache=cache, progress=False)
    assert _claims(path) == 0


def test_cache_check_leaves_no_write_ahead_log_beside_a_clean_cache(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        execute(ScriptedModel(), _requests(3), cache=cache, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.sqlite"]
    assert main(["cache", "check", "--cache", str(path)]) == 0
    assert "ok, 3 responses" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.sqlite"]


def test_cache_clear_during_a_run_loses_none_of_its_answers(tmp_path, capsys):
    """Before, the run exited 0 having written its answers into the deleted file, and a
    rerun sent every request again."""
    path = tmp_path / "c.sqlite"
    cleared: list[int] = []

    def reply(request: Request) -> str:
        if request.id == "r4" and not cleared:  # halfway: another terminal clears the cache
            cleared.append(main(["cache", "clear", "--yes", "--cache", str(path)]))
            assert not path.exists()
        return f"answer {request.id}"

    requests = _requests(8)
    with ResponseCache(path) as cache:
        _, stats = execute(
            ScriptedModel(reply), requests, cache=cache, chunk_size=2, progress=False
        )
    assert cleared == [0] and stats.sent == 8
    err = capsys.readouterr().err
    assert f"the response cache {path} was deleted or replaced while this run used it" in err
    with ResponseCache(path) as cache:
        responses, again = execute(ScriptedModel(), requests, cache=cache, progress=False)
    assert (again.sent, again.cached) == (0, 8)
    assert [r.text for r in responses] == [f"answer r{i}" for i in range(8)]
    assert main(["cache", "check", "--cache", str(path)]) == 0


def test_a_cache_cleared_after_the_last_answer_is_followed_at_close(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    requests = _requests(3)
    cache = ResponseCache(path)
    execute(ScriptedModel(), requests, cache=cache, progress=False)
    assert main(["cache", "clear", "--yes", "--cache", str(path)]) == 0
    cache.close()
    assert "3 answer(s) this run stored are kept" in capsys.readouterr().err
    with ResponseCache(path) as reopened:
        assert reopened.count() == 3


def test_a_subprocess_run_and_a_clear_keep_every_answer(tmp_path):
    """The same through the command line: `lexbench cache clear --yes` from another
    process while a run is sending."""
    from fake_openai_server import FakeOpenAIServer

    path = tmp_path / "c.sqlite"
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    with FakeOpenAIServer(latency=0.2, lifetime=120) as server:  # 12 s: the clear lands mid-run
        run = subprocess.Popen(
            [sys.executable, "-c", RUN_MANY, server.url, str(path), "60"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while len(server.entries()) < 10:
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
        cleared = subprocess.run(
            [sys.executable, "-m", "lexbench.cli", "cache", "clear", "--yes", "--cache", str(path)],
            env=env,
            capture_output=True,
            text=True,
        )
        _, err = run.communicate(timeout=100)
        sent = len(server.entries())
    assert cleared.returncode == 0, cleared.stderr
    assert run.returncode == 0, err
    assert "was deleted or replaced while this run used it" in err
    with ResponseCache(path) as cache:
        assert cache.count() == sent == 60


RUN_MANY = """
import sys
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.cache import ResponseCache
from lexbench.run.runner import execute
from lexbench.types import Request
url, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
requests = [Request(id=f"q{n}", kind="generate", prompt=f"question {n} :") for n in range(count)]
model = OpenAIModel("fake-model", OpenAIOptions(base_url=url, max_concurrency=1))
with ResponseCache(path) as cache:
    execute(model, requests, cache=cache, progress=False)
"""
