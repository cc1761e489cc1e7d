"""One cache, several run folders: a request is never sent by two processes at once
(issue 30, item 6). Runs claim each request in the cache before sending it; a request
another live process is sending is waited for and its answer read from the cache; claims
of dead processes are taken over."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from fake_openai_server import FakeOpenAIServer
from lexbench.run.cache import ResponseCache, request_key
from lexbench.run.runner import execute
from lexbench.run.send_claims import CLAIM_LEASE_S, Owner
from lexbench.types import Request, Response
from mock_model import ScriptedModel

PYTHONPATH = os.pathsep.join([str(Path(__file__).parents[2] / "src"), *sys.path])
COUNT = 300
RUN = """
import sys
from dataclasses import dataclass
from lexbench.run.evaluate import evaluate
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.cache import ResponseCache
from lexbench.types import Request, Score

@dataclass(frozen=True)
class Item:
    id: str

class Many:
    name = "many"
    def config(self): return {"name": "many", "items": COUNT}
    def items(self): return [Item(f"q{n:03d}") for n in range(COUNT)]
    def requests(self, item):
        return [Request(id=item.id, kind="generate", prompt=f"question {item.id} :")]
    def score(self, item, responses): return Score(item.id, True, 1.0, responses[0].text, "correct")
    def sample(self, item, requests, responses, score):
        return {"id": item.id, "output": responses[0].text, "correct": True, "value": 1.0}
    def summarize(self, items, scores): return {"benchmark": "many", "overall": {"n": len(items)}}
    def report(self, results): return "# many\\n"

url, cache_path, out = sys.argv[1:4]
COUNT = int(sys.argv[4])
model = OpenAIModel("fake-model", OpenAIOptions(base_url=url, max_concurrency=4))
with ResponseCache(cache_path) as cache:
    print(evaluate(Many(), model, out_root=out, cache=cache, progress=False).folder.path)
"""


def test_two_runs_into_two_folders_with_one_cache_send_each_request_once(tmp_path):
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    with FakeOpenAIServer(latency=0.02, lifetime=180) as server:
        runs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    RUN,
                    server.url,
                    str(tmp_path / "c.sqlite"),
                    str(tmp_path / f"runs-{n}"),
                    str(COUNT),
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in (1, 2)
        ]
        outputs = [run.communicate(timeout=170) for run in runs]
        prompts = [entry.prompt for entry in server.entries()]
    for run, (_, err) in zip(runs, outputs):
        assert run.returncode == 0, err
    assert len(prompts) == len(set(prompts)) == COUNT  # none sent twice
    folders = [Path(out.strip()) for out, _ in outputs]
    samples = [(folder / "samples.jsonl").read_text() for folder in folders]
    assert samples[0] == samples[1]
    stats = [json.loads((f / "results.json").read_text())["run"] for f in folders]
    assert sum(s["sent"] for s in stats) == COUNT
    assert all(s["sent"] + s["cached"] == COUNT for s in stats)
    with ResponseCache(tmp_path / "c.sqlite") as cache:  # no claim outlives its run
        assert cache._db.execute("SELECT COUNT(*) FROM sending").fetchone()[0] == 0


def _requests(n: int) -> list[Request]:
    return [Request(id=f"r{i}", kind="generate", prompt=f"prompt {i}") for i in range(n)]


def _claim_as(cache: ResponseCache, keys: list[str], owner: Owner, since: float) -> None:
    cache._db.executemany(
        "INSERT OR REPLACE INTO sending VALUES (?, ?, ?, ?, ?, ?)",
        [(k, owner.id, owner.host, owner.pid, owner.started, since) for k in keys],
    )
    cache._db.commit()


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_claims_of_dead_reused_or_silent_owners_are_taken_over(tmp_path):
    model = ScriptedModel()
    requests = _requests(4)
    keys = [request_key(model.fingerprint(), r) for r in requests]
    host = socket.gethostname()
    now = time.time()
    dead = Owner(host, _dead_pid(), "", "dead")
    reused = Owner(host, os.getpid(), "not-my-start-time", "reused")  # a pid given anew
    silent = Owner("another-machine", 1, "", "far")
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        _claim_as(cache, keys[:1], dead, now)
        _claim_as(cache, keys[1:2], reused, now)
        _claim_as(cache, keys[2:3], silent, now - CLAIM_LEASE_S - 1)
        _, stats = execute(model, requests, cache=cache, progress=False)
    assert (stats.sent, stats.cached) == (4, 0)


def test_a_live_claim_is_waited_for_and_its_answer_used(tmp_path, capsys):
    model = ScriptedModel()
    requests = _requests(3)
    keys = [request_key(model.fingerprint(), r) for r in requests]
    other = Owner(socket.gethostname(), os.getppid(), "", "other")  # alive: our parent
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        _claim_as(cache, keys[:1], other, time.time())

        def answer_later() -> None:  # the other process stores its answer a moment later
            time.sleep(0.5)
            with ResponseCache(path) as elsewhere:
                elsewhere.put_many(
                    [(keys[0], model.fingerprint(), requests[0], Response("r0", text="theirs"))]
                )

        import threading

        helper = threading.Thread(target=answer_later)
        helper.start()
        responses, stats = execute(model, requests, cache=cache, progress=False)
        helper.join()
    assert (stats.sent, stats.cached) == (2, 1)
    assert responses[0].text == "theirs" and responses[0].request_id == "r0"
    assert "being sent by another process" in capsys.readouterr().err


def test_the_wait_message_counts_the_claims_of_every_chunk(tmp_path, capsys):
    model = ScriptedModel()
    requests = _requests(3)
    keys = [request_key(model.fingerprint(), r) for r in requests]
    other = Owner(socket.gethostname(), os.getppid(), "", "other")  # alive: our parent
    path = tmp_path / "c.sqlite"
    with ResponseCache(path) as cache:
        _claim_as(cache, [keys[0], keys[2]], other, time.time())  # in two chunks of one

        def answer_later() -> None:
            time.sleep(0.5)
            with ResponseCache(path) as elsewhere:
                elsewhere.put_many(
                    [
                        (keys[i], model.fingerprint(), requests[i], Response(f"r{i}", text="t"))
                        for i in (0, 2)
                    ]
                )

        import threading

        helper = threading.Thread(target=answer_later)
        helper.start()
        _, stats = execute(model, requests, cache=cache, chunk_size=1, progress=False)
        helper.join()
    assert (stats.sent, stats.cached) == (1, 2)
    err = capsys.readouterr().err
    assert "2 request(s) are being sent by another process" in err
    assert err.count("being sent by another process") == 1


def test_a_failed_request_frees_its_claim_for_a_waiter(tmp_path):
    model = ScriptedModel()
    request = _requests(1)[0]
    key = request_key(model.fingerprint(), request)
    me = Owner.current()
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        _, mine, _ = cache.claim_for_sending([key], me)
        assert mine == [key]
        cache.put_many([(key, model.fingerprint(), request, Response("r0", error="timeout"))])
        other = Owner(me.host, me.pid, me.started, "second")
        answered, mine, others = cache.claim_for_sending([key], other)
        assert (answered, mine, others) == ({}, [key], {})


OPEN_AT = """
import sys, time
from lexbench.run.cache import ResponseCache
folder, start = sys.argv[1], float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
for n in range(40):  # 40 new caches, each created by 8 processes at about the same time
    with ResponseCache(f"{folder}/c{n}.sqlite"):
        pass
"""


def test_processes_creating_one_cache_at_once_all_open_it(tmp_path):
    """SQLite answers the losers of the switch to write-ahead logging "locked" at once,
    without its busy timeout; the cache waits its turn instead of failing (before: 3 of 8
    processes failed here)."""
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    start = time.time() + 1.5  # after every interpreter has started
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AT, str(tmp_path), str(start)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    errors = [opener.communicate(timeout=120)[1] for opener in openers]
    assert all(opener.returncode == 0 for opener in openers), errors
