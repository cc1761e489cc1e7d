"""The response cache and the runner: keys, resume, per-response commits, de-duplication,
retry counting, thread safety."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from lexbench.models.base import RetryCounts
from lexbench.run.cache import ResponseCache, request_key
from lexbench.run.runner import execute
from lexbench.types import Decoding, Request, Response
from mock_model import ScriptedModel


def generate(id_: str, prompt: str, **decoding) -> Request:
    return Request(id=id_, kind="generate", prompt=prompt, decoding=Decoding(**decoding))


# ------------------------------------------------------------------------------ keys


def test_key_ignores_the_id_but_not_the_model_or_decoding():
    fingerprint = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}
    a = generate("a", "p")
    assert request_key(fingerprint, a) == request_key(fingerprint, generate("b", "p"))
    assert request_key(fingerprint, a) != request_key({**fingerprint, "model": "n"}, a)
    assert request_key(fingerprint, a) != request_key(
        {**fingerprint, "base_url": "http://127.0.0.1:2/v1"}, a
    )
    assert request_key(fingerprint, a) != request_key(
        fingerprint, generate("a", "p", max_new_tokens=3)
    )


def test_keys_are_those_every_earlier_cache_was_written_with():
    """The written-out Decoding.to_dict and the batched keys hash exactly what the
    dataclasses.asdict version hashed: answers cached before stay found."""
    import dataclasses
    import hashlib

    from lexbench.run.cache import request_keys
    from lexbench.types import canonical_json

    fingerprint = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}
    requests = [
        generate("a", "p"),
        generate("b", "p", max_new_tokens=3, stop=("\n", "</answer>")),
        generate("c", "q\udcff", temperature=0.25, top_p=0.25, top_k=20, seed=7),
        generate("d", "p", stop_at_word_end=True),
        Request(id="e", kind="generate", prompt="", chat=True, messages=(("user", "hi"),)),
    ]

    def earlier(request):
        payload = {"kind": request.kind, "prompt": request.prompt}
        if request.chat:
            payload["chat"] = True
            payload["messages"] = [list(m) for m in request.messages]
        payload["decoding"] = {
            **dataclasses.asdict(request.decoding),
            "stop": list(request.decoding.stop),
        }
        text = canonical_json(fingerprint) + "\n" + canonical_json(payload)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    assert request_keys(fingerprint, requests) == [earlier(r) for r in requests]
    assert [request_key(fingerprint, r) for r in requests] == [earlier(r) for r in requests]


def test_sampling_is_cached_per_seed():
    fingerprint = {"backend": "x"}
    seeds = [generate(f"s{s}", "p", temperature=0.8, seed=s) for s in range(3)]
    keys = {request_key(fingerprint, r) for r in seeds}
    assert len(keys) == 3
    assert request_key(fingerprint, seeds[0]) == request_key(
        fingerprint, generate("again", "p", temperature=0.8, seed=0)
    )


# ------------------------------------------------------------------------------ runner


def test_resume_sends_nothing_cached_and_gives_the_same_answers(tmp_cache):
    requests = [generate(f"r{i}", f"prompt {i}") for i in range(10)]
    first_model = ScriptedModel(lambda r: r.prompt.upper())
    first, stats = execute(first_model, requests[:6], cache=tmp_cache, progress=False)
    assert stats.sent == 6 and stats.cached == 0
    again = ScriptedModel(lambda r: r.prompt.upper())
    out, stats = execute(again, requests, cache=tmp_cache, progress=False, chunk_size=3)
    assert [r.id for r in again.sent] == [f"r{i}" for i in range(6, 10)]
    assert stats.cached == 6 and stats.sent == 4
    assert [r.text for r in out] == [f"PROMPT {i}" for i in range(10)]
    assert out[:6] == first


def test_identical_requests_are_sent_once_and_shared(tmp_cache):
    requests = [generate("a", "same"), generate("b", "other"), generate("c", "same")]
    model = ScriptedModel(lambda r: r.prompt + "!")
    out, stats = execute(model, requests, cache=tmp_cache, progress=False)
    assert [r.id for r in model.sent] == ["a", "b"]
    assert [(r.request_id, r.text) for r in out] == [
        ("a", "same!"),
        ("b", "other!"),
        ("c", "same!"),
    ]
    assert stats.sent == 2 and stats.extra["deduplicated"] == 1


def test_failures_are_returned_counted_and_never_cached(tmp_cache):
    requests = [generate(f"r{i}", f"p{i}") for i in range(4)]
    model = ScriptedModel(lambda r: "ok", fail_on=lambda r: r.id in ("r1", "r3"))
    out, stats = execute(model, requests, cache=tmp_cache, progress=False)
    assert [r.error for r in out] == [None, "scripted failure", None, "scripted failure"]
    assert stats.failed == 2 and tmp_cache.count() == 2
    retry = ScriptedModel(lambda r: "ok")
    execute(retry, requests, cache=tmp_cache, progress=False)
    assert [r.id for r in retry.sent] == ["r1", "r3"]


class StreamingModel(ScriptedModel):
    """Streams answers through `answer_each`; can die after `die_after` answers and can
    count retries like the HTTP backend."""

    def __init__(
        self,
        *args,
        die_after: int | None = None,
        retries_per_call: int = 0,
        answer_twice: bool = False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.die_after = die_after
        self.retries_per_call = retries_per_call
        self.answer_twice = answer_twice
        self.retry_count = 0

    # The declared capabilities the runner reads (never attributes).
    def chunk_size(self) -> int:
        return 1000

    def streams_answers(self) -> bool:
        return True

    def retry_counts(self) -> RetryCounts:
        return RetryCounts(
            self.retry_count, {"HTTP 503": self.retry_count} if self.retry_count else {}
        )

    def answer_each(self, requests: Sequence[Request], on_response) -> list[Response]:
        self.retry_count += self.retries_per_call
        out = []
        for position, request in enumerate(reversed(requests)):  # arrival order differs
            if self.die_after is not None and len(self.sent) >= self.die_after:
                raise KeyboardInterrupt
            response = self._answer(request, lambda q: Response(request_id=q.id, text=q.prompt))
            on_response(len(requests) - 1 - position, response)
            if self.answer_twice:
                on_response(len(requests) - 1 - position, response)
            out.append(response)
        return out[::-1]


def test_streaming_answers_are_cached_as_they_arrive(tmp_cache, capsys):
    requests = [generate(f"r{i}", f"p{i}") for i in range(10)]
    dying = StreamingModel(die_after=4)
    with pytest.raises(KeyboardInterrupt):
        execute(dying, requests, cache=tmp_cache, progress=False)
    assert "interrupted after 4/10" in capsys.readouterr().err
    # All in one chunk, yet the four answers that arrived before the "kill" are kept.
    assert tmp_cache.count() == 4
    resumed = StreamingModel()
    out, stats = execute(resumed, requests, cache=tmp_cache, progress=False)
    assert stats.cached == 4 and stats.sent == 6
    assert not {r.id for r in resumed.sent} & {r.id for r in dying.sent}
    assert [r.text for r in out] == [f"p{i}" for i in range(10)]


def test_a_failing_end_of_run_does_not_hide_the_interrupt(tmp_cache, monkeypatch, capsys):
    from lexbench.run.cache import CacheError

    def full_disk(rows):
        raise CacheError("response cache cannot grow: the disk is full")

    monkeypatch.setattr(tmp_cache, "put_many", full_disk)
    requests = [generate(f"r{i}", f"p{i}") for i in range(10)]
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C keeps its exit status (130)
        execute(StreamingModel(die_after=4), requests, cache=tmp_cache, progress=False)
    assert "disk is full" in capsys.readouterr().err  # said, not raised
    with pytest.raises(CacheError, match="disk is full"):  # raised on the normal path
        execute(StreamingModel(), requests, cache=tmp_cache, progress=False)


def test_a_response_delivered_twice_is_a_backend_bug(tmp_cache):
    with pytest.raises(RuntimeError, match="twice"):
        execute(
            StreamingModel(answer_twice=True), [generate("a", "p")], cache=tmp_cache, progress=False
        )


def test_retries_are_counted_per_run_not_per_model_lifetime(tmp_cache):
    model = StreamingModel(retries_per_call=3)
    _, first = execute(model, [generate("a", "p")], cache=tmp_cache, progress=False)
    _, second = execute(model, [generate("b", "q")], cache=tmp_cache, progress=False)
    assert first.retries == 3 and second.retries == 3
    assert second.to_dict()["retries"] == 3


def test_without_cache_and_for_batch_backends_the_contract_holds():
    model = ScriptedModel(lambda r: r.prompt[::-1])
    out, stats = execute(model, [generate("a", "abc"), generate("b", "xy")], progress=False)
    assert [r.text for r in out] == ["cba", "yx"] and stats.cached == 0
    with pytest.raises(ValueError, match="unique"):
        execute(model, [generate("a", "x"), generate("a", "y")], progress=False)


def test_cache_is_thread_safe(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    fingerprint = {"backend": "x"}

    def writer(worker: int) -> None:
        for i in range(50):
            request = generate(f"w{worker}-{i}", f"{worker}:{i}")
            cache.put_many(
                [
                    (
                        request_key(fingerprint, request),
                        fingerprint,
                        request,
                        Response(request_id=request.id, text=str(i)),
                    )
                ]
            )

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.count() == 200
    keys = [
        request_key(fingerprint, generate("x", f"{w}:{i}")) for w in range(4) for i in range(50)
    ]
    assert len(cache.get_many(keys)) == 200
    cache.close()


def test_progress_display_shows_retries_and_failures(tmp_cache, capsys):
    model = StreamingModel(retries_per_call=2, fail_on=lambda r: r.id == "b")
    execute(model, [generate("a", "p"), generate("b", "q")], cache=tmp_cache, progress=True)
    err = capsys.readouterr().err
    assert "retries=2" in err and "failed=1" in err
