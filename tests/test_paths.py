"""Cache files are written as one unit, each writer through a temporary file of its own."""

from __future__ import annotations

import os
import threading

import pytest

from lexbench import paths


def test_a_cache_file_is_written_whole_and_leaves_nothing_beside_it(tmp_path):
    target = tmp_path / "table.json"
    paths.write_atomically(target, "first")
    paths.write_atomically(target, "second\nline")
    assert target.read_text(encoding="utf-8") == "second\nline"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(tmp_path, monkeypatch):
    target = tmp_path / "table.json"
    paths.write_atomically(target, "old")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        paths.write_atomically(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.json"]


def test_writers_at_once_never_share_a_temporary_file(tmp_path, monkeypatch):
    """Eight threads of one process write the same cache file at once: each renames its own
    temporary file, so the result is one writer's text whole, never a mixture."""
    target = tmp_path / "shared.json"
    texts = [str(n) * 200_000 for n in range(8)]
    seen: set[str] = set()
    replace = os.replace

    def noting(source, destination):
        seen.add(os.fspath(source))
        replace(source, destination)

    monkeypatch.setattr(os, "replace", noting)
    threads = [
        threading.Thread(target=paths.write_atomically, args=(target, text)) for text in texts
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8
    assert target.read_text() in texts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.json"]
