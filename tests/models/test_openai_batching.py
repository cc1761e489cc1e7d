"""Several prompts in one completions request (issue 18): the same answers as one prompt per
request, detected once and turned off for servers that refuse lists, and every fault,
retry and kill -9 guarantee kept when a request carries several prompts."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter

import pytest

from fake_openai_server import FakeOpenAIServer, split_tokens
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.runner import execute
from lexbench.types import Decoding, Request


def model_for(server: FakeOpenAIServer, **options) -> OpenAIModel:
    options = {"timeout": 5, "max_concurrency": 8, **options}
    return OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, **options))


def mixed_requests(tag: str, count: int = 12) -> list[Request]:
    out: list[Request] = []
    for n in range(count):
        out.append(
            Request(
                id=f"{tag}g{n}",
                kind="generate",
                prompt=f"{tag} generate {n} :",
                decoding=Decoding(max_new_tokens=3, stop=("\n",)),
            )
        )
        out.append(
            Request(
                id=f"{tag}w{n}",
                kind="generate",
                prompt=f"{tag} word {n} :",
                decoding=Decoding(max_new_tokens=8, stop_at_word_end=True),
            )
        )
        out.append(
            Request(
                id=f"{tag}r{n}",
                kind="rank",
                prompt=f"{tag} rank {n} is like",
                top_k=5,
                targets=("large", "river"),
            )
        )
        out.append(
            Request(
                id=f"{tag}l{n}",
                kind="loglikelihood",
                prompt=f"{tag} context {n} ",
                continuations=("sat down", "ran"),
            )
        )
    return out


def test_batched_answers_equal_one_prompt_per_request():
    asked = mixed_requests("b")
    with FakeOpenAIServer(lifetime=60) as server:
        alone = model_for(server, prompts_per_request=1).answer(asked)
        requests_alone, prompts_alone = server.requests, len(server.entries())
        batched_model = model_for(server, prompts_per_request=4)
        batched = batched_model.answer(asked)
        requests_batched = server.requests - requests_alone
        prompts_batched = len(server.entries()) - prompts_alone
    assert batched == alone  # texts, token counts, ranks, loglikelihoods
    assert all(r.error is None for r in batched)
    assert {r.generated_tokens for r in batched if r.text} <= {1, 2, 3, 4, 5, 6, 7, 8}
    assert prompts_batched == prompts_alone
    # Four prompts to a request where the settings match: far fewer requests.
    assert requests_batched <= prompts_batched // 3
    assert batched_model.describe()["batching"] == "yes"


@pytest.mark.parametrize("status", [500, 400])
def test_a_server_refusing_lists_is_detected_once_and_answered_prompt_by_prompt(status, capsys):
    asked = [
        Request(
            id=f"q{n}",
            kind="generate",
            prompt=f"question {n} :",
            decoding=Decoding(max_new_tokens=2),
        )
        for n in range(24)
    ]
    with FakeOpenAIServer(batch_refusal=status, lifetime=60) as server:
        model = model_for(server, prompts_per_request=4)
        out = model.answer(asked)
        again = model.answer([Request(id="z", kind="generate", prompt="later :")])
        log = server.entries()
    assert [r.error for r in out] == [None] * 24
    assert [r.text for r in out] == [
        "".join(split_tokens(server.reply(r.prompt))[:2]) for r in asked
    ]
    assert again[0].error is None
    ok = Counter(e.prompt for e in log if e.outcome == "ok")
    assert all(ok[r.prompt] == 1 for r in asked)  # each answered once, alone
    assert model.retry_count == 0  # a refusal of lists is no retry
    # The refused lists were only the first ones (at most one per slot), never again.
    refused = [e for e in log if e.outcome == str(status)]
    assert 0 < len(refused) <= 8
    assert max(e.time for e in refused) < min(e.time for e in log if e.prompt == "later :")
    err = capsys.readouterr().err
    assert err.count("does not take several prompts in one request") == 1
    assert f"HTTP {status}" in err
    assert model.describe()["batching"].startswith("no")


def test_a_choice_that_cannot_be_read_is_retried_alone_and_the_others_kept(tmp_cache):
    broken = "question 05 :"

    def one_bad_choice(prompt: str, attempt: int) -> str | None:
        return "bad_choice" if prompt == broken and attempt == 1 else None

    asked = [
        Request(
            id=f"q{n:02d}",
            kind="generate",
            prompt=f"question {n:02d} :",
            decoding=Decoding(max_new_tokens=2),
        )
        for n in range(8)
    ]
    with FakeOpenAIServer(faults=one_bad_choice, lifetime=60) as server:
        model = model_for(server, prompts_per_request=8)
        responses, stats = execute(model, asked, cache=tmp_cache, progress=False)
        log = server.entries()
    assert all(r.error is None for r in responses)
    sent = Counter(e.prompt for e in log)
    assert sent[broken] == 2 and all(sent[r.prompt] == 1 for r in asked if r.prompt != broken)
    assert server.requests == 2  # the batch, then the one prompt alone
    assert stats.retries == 1 and "malformed response" in stats.retry_reasons
    assert tmp_cache.count() == 8


# The fault schedule of tests/models/test_openai_faults.py, on prompts that travel in batches.
SCHEDULE: dict[int, tuple[str, range]] = {
    **{i: ("429", range(1, 2)) for i in range(8, 12)},
    **{i: ("500", range(1, 3)) for i in range(12, 16)},
    **{i: ("drop", range(1, 2)) for i in range(16, 20)},
    **{i: ("slow", range(1, 2)) for i in range(20, 22)},
    **{i: ("malformed", range(1, 2)) for i in range(22, 25)},
    **{i: ("500", range(1, 100)) for i in range(25, 27)},  # never recovers
    27: ("malformed", range(1, 100)),  # never recovers
}
ALWAYS_FAILING = {25: "HTTP 500", 26: "HTTP 500", 27: "malformed JSON"}
COUNT = 40
MAX_RETRIES = 3


def prompt_of(number: int) -> str:
    return f"question {number:02d} :"


def scheduled_fault(prompt: str, attempt: int) -> str | None:
    fault, attempts = SCHEDULE.get(int(prompt.split()[1]), ("", range(0)))
    return fault if attempt in attempts else None


def test_faults_in_batched_requests_lose_nothing_and_answer_nothing_twice(tmp_cache):
    asked = [
        Request(
            id=f"item-{n:02d}",
            kind="generate",
            prompt=prompt_of(n),
            decoding=Decoding(max_new_tokens=4),
        )
        for n in range(COUNT)
    ]
    with FakeOpenAIServer(
        faults=scheduled_fault, retry_after="1", slow_seconds=4.0, latency=0.01, lifetime=120
    ) as server:
        model = model_for(
            server, max_concurrency=8, prompts_per_request=4, timeout=1.5, max_retries=MAX_RETRIES
        )
        # The first requests (items 0-7, no faults) show the server takes lists.
        responses, stats = execute(model, asked, cache=tmp_cache, progress=False, chunk_size=8)
        log = server.entries()
        requests_sent = server.requests
    assert model.describe()["batching"] == "yes"
    assert [r.request_id for r in responses] == [r.id for r in asked]
    for number, response in enumerate(responses):
        if number in ALWAYS_FAILING:
            assert response.error is not None
            assert f"failed after {MAX_RETRIES + 1} attempts" in response.error
            assert ALWAYS_FAILING[number] in response.error
        else:
            assert response.error is None, (number, response.error)
            assert response.text == "".join(split_tokens(server.reply(prompt_of(number)))[:4])
    assert stats.failed == len(ALWAYS_FAILING)
    attempts = Counter(entry.prompt for entry in log)
    ok = Counter(entry.prompt for entry in log if entry.outcome == "ok")
    for number in range(COUNT):
        # Answered once, however many requests carried it; never tried past its budget.
        assert ok[prompt_of(number)] == (0 if number in ALWAYS_FAILING else 1), number
        assert attempts[prompt_of(number)] <= MAX_RETRIES + 1, number
    for number in ALWAYS_FAILING:
        assert attempts[prompt_of(number)] == MAX_RETRIES + 1
    # Every attempt after a prompt's first is one counted retry of that prompt.
    assert stats.retries == len(log) - COUNT
    assert {"HTTP 429", "HTTP 500", "connection error", "timeout", "malformed JSON"} <= set(
        stats.retry_reasons
    )
    assert requests_sent < len(log)  # batches carried several prompts
    assert tmp_cache.count() == COUNT - len(ALWAYS_FAILING)


# ------------------------------------------------------------------------------ kill -9

LIMIT = 20  # LAMBDA items per relation


def command(server: FakeOpenAIServer, cache, out) -> list[str]:
    # --max-concurrency 16 sends two prompts per request (16 // 8).
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
        "--max-concurrency",
        "16",
        "--per-relation",
        str(LIMIT),
        "--cache",
        str(cache),
        "--out",
        str(out),
        "--no-progress",
    ]


def cached_prompts(cache) -> set[str]:
    with sqlite3.connect(cache) as db:
        return {json.loads(row[0])["prompt"] for row in db.execute("SELECT request FROM responses")}


def cached_so_far(cache) -> int:
    """Answers the running process has committed (0 before its cache has its table)."""
    try:
        return len(cached_prompts(cache)) if cache.exists() else 0
    except sqlite3.OperationalError:
        return 0


def test_sigkill_mid_batch_then_resume_sends_nothing_cached(tmp_path, wordnet_index):
    cache, out = tmp_path / "responses.sqlite", tmp_path / "runs"
    with FakeOpenAIServer(latency=0.3, lifetime=180) as server:
        process = subprocess.Popen(
            command(server, cache, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline = time.monotonic() + 90
            # Killed once the second round of batches is out and answers of the first are
            # cached: in the middle of the run, with requests in flight.
            while process.poll() is None and (
                len(server.entries()) < 20 or not cached_so_far(cache)
            ):
                assert time.monotonic() < deadline, "the run never reached the server"
                time.sleep(0.005)
            assert process.poll() is None, process.communicate()
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        sent_before = len(server.entries())
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 0.8:
            time.sleep(0.05)
            if len(server.entries()) != sent_before:
                sent_before, quiet_since = len(server.entries()), time.monotonic()
        kept = cached_prompts(cache)
        assert 0 < len(kept) < 3 * LIMIT
        resumed = subprocess.run(
            command(server, cache, out), capture_output=True, text=True, timeout=120, check=False
        )
        assert resumed.returncode == 0, resumed.stderr
        after = server.entries()[sent_before:]
        requests_total = server.requests
    sent_after = [entry.prompt for entry in after]
    assert not set(sent_after) & kept  # nothing cached was sent again
    all_prompts = cached_prompts(cache)
    assert len(all_prompts) == 3 * LIMIT
    assert len(sent_after) == len(set(sent_after)) == len(all_prompts - kept)
    assert requests_total < len(server.entries())  # prompts travelled in pairs
    results = json.loads(next(out.rglob("results.json")).read_text())
    assert results["run"]["cached"] == len(kept) and results["run"]["failed"] == 0
    assert os.path.getsize(cache) > 0
