"""Streamed answers are committed in groups (issue 26, item 2): fewer transactions, the
same promise (a committed answer is never asked again), nothing waiting longer than the
delay, and a failed commit raised, never dropped."""

from __future__ import annotations

import time

import pytest

from lexbench.run.cache import CacheError, ResponseCache, request_key
from lexbench.run.cache_writer import GroupedWriter
from lexbench.types import Request, Response

FINGERPRINT = {"backend": "test"}


def entries(count: int, start: int = 0):
    for n in range(start, start + count):
        request = Request(id=f"r{n}", kind="generate", prompt=f"prompt {n}")
        yield request_key(FINGERPRINT, request), FINGERPRINT, request, Response(f"r{n}", text="a")


def test_answers_are_committed_in_groups_and_all_by_the_end(tmp_path, monkeypatch):
    commits: list[int] = []
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        real = cache.put_many
        monkeypatch.setattr(cache, "put_many", lambda rows: commits.append(len(rows)) or real(rows))
        with GroupedWriter(cache, max_rows=32, max_delay=60) as writer:
            for entry in entries(100):
                writer.add(entry)
            assert cache.count() == 96  # three full groups committed, four waiting
        assert cache.count() == 100 and commits == [32, 32, 32, 4]


def test_a_lone_answer_is_committed_by_the_timer(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite") as cache, GroupedWriter(cache, max_delay=0.05) as w:
        w.add(next(entries(1)))
        deadline = time.monotonic() + 30
        while cache.count() == 0:  # no answer arrives after it: the timer commits it
            assert time.monotonic() < deadline, "the waiting answer was never committed"
            time.sleep(0.01)


def test_a_commit_that_fails_in_the_timer_is_raised_in_the_runner(tmp_path, monkeypatch):
    with ResponseCache(tmp_path / "c.sqlite") as cache:

        def full_disk(rows):
            raise CacheError(f"response cache {cache.path} cannot grow: the disk is full")

        monkeypatch.setattr(cache, "put_many", full_disk)
        writer = GroupedWriter(cache, max_delay=0.02)
        writer.add(next(entries(1)))
        deadline = time.monotonic() + 30
        while writer._failure is None:  # the timer met the failure
            assert time.monotonic() < deadline, "the timer never tried to commit"
            time.sleep(0.01)
        with pytest.raises(CacheError, match="disk is full"):
            writer.add(next(entries(1, start=1)))
        with pytest.raises(CacheError, match="disk is full"):
            writer.close()  # what is left is still committed, and fails the same way


def test_the_timer_keeps_committing_after_a_failed_commit(tmp_path, monkeypatch):
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        real, calls = cache.put_many, []

        def full_once(rows):
            calls.append(len(rows))
            if len(calls) == 1:
                raise CacheError("the disk is full")
            return real(rows)

        monkeypatch.setattr(cache, "put_many", full_once)
        writer = GroupedWriter(cache, max_delay=0.02)
        writer.add(next(entries(1)))
        deadline = time.monotonic() + 30
        while cache.count() == 0:  # no answer arrives after it: the timer tries again
            assert time.monotonic() < deadline, "the waiting answer was never committed"
            time.sleep(0.01)
        with pytest.raises(CacheError, match="disk is full"):
            writer.close()  # the failure is still said, never dropped
        assert cache.count() == 1


class _InterruptedDelete:
    """The cache's connection, interrupted (Ctrl-C) between the insert and the delete."""

    def __init__(self, real):
        self.real = real

    def executemany(self, sql, rows):
        if sql.startswith("DELETE"):
            raise KeyboardInterrupt
        return self.real.executemany(sql, rows)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_an_interrupted_commit_leaves_no_transaction_open(tmp_path, monkeypatch):
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        real = cache._db
        monkeypatch.setattr(cache, "_db", _InterruptedDelete(real))
        with pytest.raises(KeyboardInterrupt):
            cache.put_many(list(entries(3)))
        assert not real.in_transaction  # the shared connection is usable by the next writer
        monkeypatch.setattr(cache, "_db", real)
        assert cache.count() == 0
