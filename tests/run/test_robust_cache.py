"""A cache that cannot be used (issue 19, item 10): corrupt, truncated, read-only or full,
it gives one line naming the file, the problem and the way out (never a traceback), and
`lexbench cache check|repair|clear` looks after it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_robust_output import lambda_command

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import main
from lexbench.run.cache import ResponseCache, request_key
from lexbench.types import Request, Response


def cache_error() -> type[Exception]:
    from lexbench.run.cache import CacheError

    return CacheError


def fill(path: Path, count: int, text_size: int = 200) -> list[str]:
    keys = []
    with ResponseCache(path) as cache:
        entries = []
        for n in range(count):
            request = Request(id=f"r{n}", kind="generate", prompt=f"prompt number {n}")
            key = request_key({"backend": "test"}, request)
            keys.append(key)
            entries.append(
                (
                    key,
                    {"backend": "test"},
                    request,
                    Response(request_id=request.id, text="y" * text_size),
                )
            )
        cache.put_many(entries)
    return keys


def assert_one_clear_line(err: str, path: Path, *needles: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("lexbench: error:")]
    assert len(lines) == 1, err
    assert str(path) in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_a_corrupt_cache_names_the_file_and_the_ways_out(tmp_path, wordnet_index, capsys):
    cache = tmp_path / "c.sqlite"
    cache.write_bytes(b"this is not a database at all" * 100)
    with FakeOpenAIServer(lifetime=60) as server:
        assert main(lambda_command(server.url, tmp_path)) == 1
        assert_one_clear_line(
            capsys.readouterr().err, cache, "corrupt", "--no-cache", "lexbench cache repair"
        )
        assert not server.entries()  # nothing was sent
        # The documented way out: repair moves the file aside and rebuilds; the run works.
        assert main(["cache", "check", "--cache", str(cache)]) == 1
        assert main(["cache", "repair", "--cache", str(cache)]) == 0
        out = capsys.readouterr().out
        assert "moved the damaged cache to" in out
        assert list(tmp_path.glob("c.sqlite.damaged-*"))
        assert main(["cache", "check", "--cache", str(cache)]) == 0
        assert main(lambda_command(server.url, tmp_path)) == 0


def test_a_truncated_cache_is_named_and_repair_keeps_what_reads(tmp_path):
    cache = tmp_path / "c.sqlite"
    keys = fill(cache, 3000)
    size = cache.stat().st_size
    with open(cache, "r+b") as handle:
        handle.truncate(size // 3)
    with pytest.raises(cache_error()) as raised, ResponseCache(cache) as opened:
        opened.get_many(keys)
    message = str(raised.value)
    assert str(cache) in message and "corrupt or truncated" in message
    assert "--no-cache" in message and f"lexbench cache repair --cache {cache}" in message
    assert main(["cache", "check", "--cache", str(cache)]) == 1
    assert main(["cache", "repair", "--cache", str(cache)]) == 0
    with ResponseCache(cache) as repaired:
        kept = repaired.count()
        found = repaired.get_many(keys)
    assert 0 < kept < 3000 and len(found) == kept
    assert all(r.text == "y" * 200 for r in found.values())


def test_a_read_only_cache_is_named_with_the_way_out(tmp_path):
    cache = tmp_path / "c.sqlite"
    fill(cache, 2)
    opened = ResponseCache(cache)
    try:
        # SQLite's own read-only condition (chmod does not stop root).
        opened._db.execute("PRAGMA query_only = ON")
        request = Request(id="new", kind="generate", prompt="new prompt")
        with pytest.raises(cache_error()) as raised:
            opened.put_many(
                [(request_key({}, request), {}, request, Response(request_id="new", text="x"))]
            )
    finally:
        opened.close()
    message = str(raised.value)
    assert str(cache) in message and "cannot be written" in message
    assert "--no-cache" in message and "--cache ANOTHER_FILE" in message


def test_a_full_cache_is_named_with_the_way_out(tmp_path):
    cache = tmp_path / "c.sqlite"
    fill(cache, 2)
    opened = ResponseCache(cache)
    try:
        pages = opened._db.execute("PRAGMA page_count").fetchone()[0]
        opened._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's "disk is full"
        request = Request(id="big", kind="generate", prompt="big prompt")
        with pytest.raises(cache_error()) as raised:
            opened.put_many(
                [
                    (
                        request_key({}, request),
                        {},
                        request,
                        Response(request_id="big", text="z" * 200_000),
                    )
                ]
            )
    finally:
        opened.close()
    message = str(raised.value)
    assert str(cache) in message and "disk is full" in message and "--no-cache" in message


def test_a_cache_in_a_folder_that_cannot_exist_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    with pytest.raises(cache_error(), match=f"{blocker}/c.sqlite"):
        ResponseCache(blocker / "c.sqlite")


def test_cache_clear_asks_for_confirmation(tmp_path, capsys):
    cache = tmp_path / "c.sqlite"
    fill(cache, 3)
    assert main(["cache", "clear", "--cache", str(cache)]) == 2
    assert "--yes" in capsys.readouterr().err and cache.exists()
    assert main(["cache", "clear", "--cache", str(cache), "--yes"]) == 0
    assert not cache.exists()


def test_a_healthy_cache_checks_ok_and_is_not_rebuilt(tmp_path, capsys):
    cache = tmp_path / "c.sqlite"
    fill(cache, 5)
    assert main(["cache", "check", "--cache", str(cache)]) == 0
    assert "ok, 5 responses" in capsys.readouterr().out
    assert main(["cache", "repair", "--cache", str(cache)]) == 0
    assert "nothing to repair" in capsys.readouterr().out
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 5
        (text,) = db.execute("SELECT response FROM responses LIMIT 1").fetchone()
    assert json.loads(text)["text"] == "y" * 200


def test_two_repairs_in_one_second_keep_both_damaged_files(tmp_path, monkeypatch):
    from lexbench.run import cache_repair

    monkeypatch.setattr(cache_repair.time, "strftime", lambda fmt: "20260101-000000")
    cache = tmp_path / "c.sqlite"
    first, second = b"first damaged file" * 100, b"second damaged file" * 100
    cache.write_bytes(first)
    moved_first = cache_repair.repair_cache(cache).aside
    cache.unlink()
    cache.write_bytes(second)
    moved_second = cache_repair.repair_cache(cache).aside
    assert moved_first != moved_second
    assert moved_first.read_bytes() == first and moved_second.read_bytes() == second
