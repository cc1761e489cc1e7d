"""The claims of answered keys end in groups, those of failed keys at once, and none outlives
its run; the write-ahead log is copied into the file less often (issue 26)."""

from __future__ import annotations

from lexbench.run import cache as cache_module
from lexbench.run.cache import ResponseCache, request_key
from lexbench.run.send_claims import Owner
from lexbench.types import Request, Response

FINGERPRINT = {"backend": "scripted", "model": "m"}


def _entries(count: int, failed: set[int] = frozenset()) -> list[tuple]:
    out = []
    for n in range(count):
        request = Request(id=f"r{n}", kind="generate", prompt=f"prompt {n}")
        answer = (
            Response(request.id, error="HTTP 500")
            if n in failed
            else Response(request.id, text=f"answer {n}", generated_tokens=2)
        )
        out.append((request_key(FINGERPRINT, request), FINGERPRINT, request, answer))
    return out


def _claimed(cache: ResponseCache) -> set[str]:
    return {row[0] for row in cache._db.execute("SELECT key FROM sending")}


def test_failed_claims_end_at_once_answered_ones_in_groups_and_at_release(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "CLAIMS_ENDED_TOGETHER", 6)
    entries = _entries(10, failed={1})
    keys = [e[0] for e in entries]
    me, other = Owner.current(), Owner("elsewhere", 1, "", "other")
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        assert cache.claim_for_sending(keys, me)[1] == keys
        assert cache.put_many(entries[:4]) == 3
        assert _claimed(cache) == set(keys) - {keys[1]}  # the failed key is free at once
        # An answered key's claim binds no one: another process reads the answer.
        answered, mine, others = cache.claim_for_sending(keys[:4], other)
        assert sorted(answered) == sorted(keys[i] for i in (0, 2, 3))
        assert (mine, others) == ([keys[1]], {})
        cache.put_many(entries[4:7])  # six answered claims waiting: ended together
        assert _claimed(cache) == {keys[1]} | set(keys[7:])
        cache.put_many(entries[7:9])
        assert _claimed(cache) >= {keys[7], keys[8]}
        cache.release_claims(me)
        assert _claimed(cache) == {keys[1]}  # the other owner's claim on the failed key
        cache.release_claims(other)
        assert _claimed(cache) == set()
        assert cache.count() == 8


def test_closing_the_cache_ends_the_claims_left(tmp_path):
    entries = _entries(3)
    keys = [e[0] for e in entries]
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        cache.claim_for_sending(keys, Owner.current())
        cache.put_many(entries)
        assert _claimed(cache) == set(keys)
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        assert _claimed(cache) == set()
        assert len(cache.get_many(keys)) == 3


def test_the_log_is_copied_into_the_file_every_so_many_pages(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        pages = cache._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert pages == cache_module.WAL_CHECKPOINT_PAGES > 1000
