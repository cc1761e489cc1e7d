"""Fault injection: 429 with Retry-After, 500s, dropped connections, slow answers and
malformed JSON. Every item ends answered or recorded as failed with its reason; none is
lost and none answered twice; permanent errors stop the run at once."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.models.base import PermanentModelError
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.runner import execute
from lexbench.types import Decoding, Request

# prompt number -> (fault, on which attempts)
SCHEDULE: dict[int, tuple[str, range]] = {
    **{i: ("429", range(1, 2)) for i in range(4)},
    **{i: ("500", range(1, 3)) for i in range(4, 8)},
    **{i: ("drop", range(1, 2)) for i in range(8, 12)},
    **{i: ("slow", range(1, 2)) for i in range(12, 14)},
    **{i: ("malformed", range(1, 2)) for i in range(14, 17)},
    **{i: ("500", range(1, 100)) for i in range(17, 19)},  # never recovers
    19: ("malformed", range(1, 100)),  # never recovers
}
ALWAYS_FAILING = {17: "HTTP 500", 18: "HTTP 500", 19: "malformed JSON"}
COUNT = 32
MAX_RETRIES = 3


def prompt_of(number: int) -> str:
    return f"question {number:02d} :"


def scheduled_fault(prompt: str, attempt: int) -> str | None:
    number = int(prompt.split()[1])
    fault, attempts = SCHEDULE.get(number, ("", range(0)))
    return fault if attempt in attempts else None


def requests() -> list[Request]:
    return [
        Request(
            id=f"item-{n:02d}",
            kind="generate",
            prompt=prompt_of(n),
            decoding=Decoding(max_new_tokens=4),
        )
        for n in range(COUNT)
    ]


@pytest.fixture
def faulty_server():
    with FakeOpenAIServer(
        faults=scheduled_fault, retry_after="1", slow_seconds=4.0, latency=0.01, lifetime=120
    ) as server:
        yield server


def test_every_item_answered_or_failed_with_reason(faulty_server, tmp_cache):
    model = OpenAIModel(
        "fake-model",
        OpenAIOptions(
            base_url=faulty_server.url, max_concurrency=8, timeout=1.5, max_retries=MAX_RETRIES
        ),
    )
    asked = requests()
    responses, stats = execute(model, asked, cache=tmp_cache, progress=False)

    # None lost, none answered twice, order kept.
    assert [r.request_id for r in responses] == [r.id for r in asked]
    for number, response in enumerate(responses):
        if number in ALWAYS_FAILING:
            assert response.text == ""
            assert response.error is not None
            assert f"failed after {MAX_RETRIES + 1} attempts" in response.error
            assert ALWAYS_FAILING[number] in response.error
        else:
            assert response.error is None, response.error
            assert response.text == _expected_text(faulty_server, number)
    assert stats.failed == len(ALWAYS_FAILING)
    assert stats.sent == COUNT and stats.cached == 0

    log = faulty_server.entries()
    attempts = Counter(entry.prompt for entry in log)
    # Every attempt reached the server; every attempt after a prompt's first is a retry.
    assert stats.retries == len(log) - COUNT
    assert sum(stats.retry_reasons.values()) == stats.retries
    assert {"HTTP 429", "HTTP 500", "connection error", "timeout", "malformed JSON"} <= set(
        stats.retry_reasons
    )
    assert stats.to_dict()["retry_reasons"]["HTTP 429"] == 4
    for number, (fault, faulty_attempts) in SCHEDULE.items():
        expected = MAX_RETRIES + 1 if number in ALWAYS_FAILING else faulty_attempts.stop
        assert attempts[prompt_of(number)] >= expected, (number, fault)
    for number in ALWAYS_FAILING:
        assert attempts[prompt_of(number)] == MAX_RETRIES + 1
    # The server answered each recovered prompt successfully once.
    ok = Counter(entry.prompt for entry in log if entry.outcome == "ok")
    for number in range(COUNT):
        assert ok[prompt_of(number)] == (0 if number in ALWAYS_FAILING else 1), number

    # Retry-After: 1 was honoured: the retry came at least a second after the 429.
    times = defaultdict(list)
    for entry in log:
        times[entry.prompt].append((entry.attempt, entry.time, entry.outcome))
    for number in range(4):
        (_first, refused, outcome), (_, retried, _) = sorted(times[prompt_of(number)])[:2]
        assert outcome == "429"
        assert retried - refused >= 1.0

    # Failed answers are not cached: only the successes are.
    assert tmp_cache.count() == COUNT - len(ALWAYS_FAILING)


def _expected_text(server: FakeOpenAIServer, number: int) -> str:
    from fake_openai_server import split_tokens

    return "".join(split_tokens(server.reply(prompt_of(number)))[:4])


def test_rerun_sends_only_the_failed_requests(faulty_server, tmp_cache):
    options = OpenAIOptions(
        base_url=faulty_server.url, max_concurrency=8, timeout=1.5, max_retries=MAX_RETRIES
    )
    first, _ = execute(
        OpenAIModel("fake-model", options), requests(), cache=tmp_cache, progress=False
    )
    seen = len(faulty_server.entries())
    faulty_server.faults = None  # the server recovered
    second, stats = execute(
        OpenAIModel("fake-model", options), requests(), cache=tmp_cache, progress=False
    )
    resent = sorted(entry.prompt for entry in faulty_server.entries()[seen:])
    assert resent == sorted(prompt_of(n) for n in ALWAYS_FAILING)
    assert stats.cached == COUNT - len(ALWAYS_FAILING) and stats.failed == 0
    for a, b in zip(first, second):
        if a.error is None:
            assert a == b


def test_permanent_error_stops_the_run_and_keeps_what_arrived(tmp_cache):
    def bad_request_for_one(prompt: str, attempt: int) -> str | None:
        return "400" if prompt == prompt_of(20) else None

    with FakeOpenAIServer(faults=bad_request_for_one, latency=0.02, lifetime=60) as server:
        model = OpenAIModel(
            "fake-model",
            OpenAIOptions(base_url=server.url, max_concurrency=2, max_retries=5, timeout=5),
        )
        with pytest.raises(PermanentModelError, match=r"HTTP 400.*injected 400"):
            execute(model, requests(), cache=tmp_cache, progress=False)
        log = server.entries()
    # Stopped at once: the 400 was never retried, and the run did not go on to the end.
    assert sum(1 for e in log if e.prompt == prompt_of(20)) == 1
    assert len(log) < COUNT
    assert model.retry_count == 0
    # Answers that arrived before the stop are cached (written as they arrived). The server
    # may have answered the one other request in flight (concurrency 2) just as the client
    # stopped; that answer never arrived, so it is not cached.
    served = sum(1 for e in log if e.outcome == "ok")
    assert 0 < served - 1 <= tmp_cache.count() <= served


def test_bad_key_is_permanent_and_never_written_anywhere(tmp_path, monkeypatch, capsys):
    secret = "sk-test-DO-NOT-LEAK-4242"
    monkeypatch.setenv("LEXBENCH_TEST_KEY", secret)
    cache_path = tmp_path / "responses.sqlite"
    from lexbench.run.cache import ResponseCache

    with FakeOpenAIServer(require_key="sk-the-right-one", lifetime=60) as server:
        model = OpenAIModel(
            "fake-model", OpenAIOptions(base_url=server.url, api_key_env="LEXBENCH_TEST_KEY")
        )
        with ResponseCache(cache_path) as cache, pytest.raises(PermanentModelError) as raised:
            execute(model, requests()[:3], cache=cache, progress=False)
    message = str(raised.value)
    assert "HTTP 401" in message and "LEXBENCH_TEST_KEY" in message
    # The server echoed the Authorization header in its error; the key is scrubbed.
    assert secret not in message and "***" in message
    assert secret not in capsys.readouterr().err


def test_unknown_route_is_permanent_with_a_url_hint(tmp_cache):
    with FakeOpenAIServer(lifetime=30) as server:
        model = OpenAIModel("fake-model", OpenAIOptions(base_url=server.url[:-3] + "/wrong"))
        with pytest.raises(PermanentModelError, match=r"HTTP 404.*--base-url"):
            execute(model, requests()[:2], cache=tmp_cache, progress=False)


def test_failed_items_are_recorded_in_the_run_folder(tmp_path, wordnet_index):
    from lexbench import api

    broken: set[str] = set()

    def fail_two(prompt: str, attempt: int) -> str | None:
        if len(broken) < 2 and prompt not in broken:
            broken.add(prompt)
        return "500" if prompt in broken else None

    with FakeOpenAIServer(faults=fail_two, lifetime=60) as server:
        model = OpenAIModel(
            "fake-model", OpenAIOptions(base_url=server.url, max_retries=1, max_concurrency=1)
        )
        run = api.run(
            "lambda",
            model,
            limit=3,
            out=tmp_path / "runs",
            cache=tmp_path / "c.sqlite",
            progress=False,
        )
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    failed = [s for s in samples if s["error"]]
    assert len(samples) == 9 and len(failed) == 2
    assert all(s["error_class"] == "request_failed" and s["correct"] is None for s in failed)
    assert all("HTTP 500" in s["error"] for s in failed)
    results = json.loads(run.folder.results_path.read_text())
    assert results["run"]["failed"] == 2 and results["run"]["retries"] == 2
    assert results["failed_requests"] == 2
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 7
