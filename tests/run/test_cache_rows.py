"""Cache rows checked against their schema (issue 30, item 1), and `lexbench cache`'s
messages and leftovers (items 8 and 9): a row of valid JSON but the wrong shape is
reported by `check`, dropped (and counted) by `repair`, and a miss with one warning in a
run; a read-only cache checks ok through a copy; a folder is refused; `repair` leaves no
`-wal`/`-shm` beside the file it moved aside."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from lexbench.cli import main
from lexbench.run.cache import ResponseCache, request_key
from lexbench.run.cache_rows import BadRow, parse_stored_response
from lexbench.run.runner import execute
from lexbench.types import Request, Response
from mock_model import ScriptedModel

WRONG_SHAPES = [
    "[1, 2]",
    '{"request_id": "x", "text": 12345}',
    '"just a string"',
    '{"text": "no id"}',
    '{"request_id": "x", "ranked": [[1, "a"]]}',
    '{"request_id": "x", "loglikelihoods": "1.0"}',
    '{"request_id": "x", "failure": "not-a-failure"}',
    '{"request_id": "x", "generated_tokens": true}',
    '{"request_id": "x", "error": 7}',
    '{"request_id": "x", "failure": [1]}',
    '{"request_id": "x", "extra": {"anything": 1}}',
    # Nested past the parser's recursion limit, in a known field and an unknown one.
    '{"request_id": "x", "text": ' + "[" * 1200 + "]" * 1200 + "}",
    '{"request_id": "x", "extra": ' + "[" * 1200 + "]" * 1200 + "}",
]


@pytest.mark.parametrize("text", WRONG_SHAPES)
def test_every_wrong_shape_is_a_bad_row_never_another_error(text):
    with pytest.raises(BadRow):
        parse_stored_response(text)


def test_what_to_dict_writes_reads_back():
    from lexbench.types import Failure, RankedToken

    response = Response(
        request_id="r",
        text="t",
        ranked=(RankedToken(5, "x", float("-inf")),),
        loglikelihoods=(-1.5, -2.0),
        continuation_tokens=(1, 2),
        generated_tokens=3,
        target_ranks=(1, None),
        target_known=(True, False),
        choice_scores=(0.5,),
        error="e",
        failure=Failure.OUT_OF_VOCABULARY,
    )
    import json

    assert parse_stored_response(json.dumps(response.to_dict())) == response


FINGERPRINT = {"backend": "scripted"}


def _requests(n: int) -> list[Request]:
    return [Request(id=f"r{i}", kind="generate", prompt=f"prompt {i}") for i in range(n)]


def _damage(path: Path, keys: list[str], texts: list[str]) -> None:
    with sqlite3.connect(path) as db:
        for key, text in zip(keys, texts):
            db.execute("UPDATE responses SET response = ? WHERE key = ?", (text, key))


def _filled(path: Path) -> tuple[list[Request], list[str]]:
    model = ScriptedModel()
    requests = _requests(6)
    with ResponseCache(path) as cache:
        execute(model, requests, cache=cache, progress=False)
    keys = [request_key(model.fingerprint(), r) for r in requests]
    return requests, keys


def test_check_reports_repair_drops_and_a_run_asks_again(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    requests, keys = _filled(path)
    _damage(path, keys[:2], WRONG_SHAPES[:2])

    assert main(["cache", "check", "--cache", str(path)]) == 1
    out = capsys.readouterr().out
    assert "2 of 6 stored answers cannot be read" in out and "not a JSON object" in out

    # A run: the two rows are misses (sent again, with one warning), the rest cached.
    with ResponseCache(path) as cache:
        responses, stats = execute(ScriptedModel(), requests, cache=cache, progress=False)
    assert (stats.sent, stats.cached) == (2, 4)
    err = capsys.readouterr().err
    assert err.count("warning: 2 cached answer(s)") == 1
    assert [r.text for r in responses] == [r.text for r in ScriptedModel().answer(requests)]
    assert main(["cache", "check", "--cache", str(path)]) == 0  # replaced by good answers

    _damage(path, keys[:3], WRONG_SHAPES[1:4])
    capsys.readouterr()
    assert main(["cache", "repair", "--cache", str(path), "--force"]) == 0
    out = capsys.readouterr().out
    assert "with the 3 responses" in out and "dropped 3 stored answer(s)" in out
    assert main(["cache", "check", "--cache", str(path)]) == 0
    # 30.9: the damaged file moved aside stands alone, no -wal/-shm beside it.
    leftovers = sorted(p.name for p in tmp_path.iterdir() if "damaged" in p.name)
    assert len(leftovers) == 1 and not leftovers[0].endswith(("-wal", "-shm")), leftovers


def test_a_row_nested_1200_deep_or_too_long_is_checked_repaired_and_asked_again(
    tmp_path, capsys, monkeypatch
):
    """Issue 37, item 4: such a row made check, repair and every run fail with "maximum
    recursion depth exceeded", naming no file."""
    from lexbench.run import cache_rows

    path = tmp_path / "c.sqlite"
    requests, keys = _filled(path)
    deep = '{"request_id": "r0", "ranked": ' + "[" * 1200 + "]" * 1200 + "}"
    monkeypatch.setattr(cache_rows, "MAX_ROW_CHARS", 200)
    long = '{"request_id": "r1", "text": "' + "x" * 300 + '"}'
    _damage(path, keys[:2], [deep, long])
    assert main(["cache", "check", "--cache", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: 2 of 6 stored answers cannot be read" in out
    with ResponseCache(path) as cache:
        _, stats = execute(ScriptedModel(), requests, cache=cache, progress=False)
    assert (stats.sent, stats.cached) == (2, 4)
    assert f"2 cached answer(s) in {path}" in capsys.readouterr().err
    _damage(path, keys[:2], [deep, long])
    assert main(["cache", "repair", "--cache", str(path)]) == 0
    assert "dropped 2 stored answer(s)" in capsys.readouterr().out
    assert main(["cache", "check", "--cache", str(path)]) == 0


def test_repair_keeps_answers_still_in_the_write_ahead_log(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    # A writer still holding the file open: its commits sit in the -wal, not yet in the file.
    holder = ResponseCache(path)
    try:
        model = ScriptedModel()
        execute(model, _requests(4), cache=holder, progress=False)
        assert Path(f"{path}-wal").stat().st_size > 0
        assert main(["cache", "repair", "--cache", str(path), "--force"]) == 0
        assert "with the 4 responses" in capsys.readouterr().out
    finally:
        holder.close()


def test_an_intact_read_only_cache_checks_ok_through_a_copy(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "c.sqlite"
    _filled(path)
    path.chmod(0o444)
    folder.chmod(0o555)
    if os.geteuid() == 0:  # root may write anyway: see the folder as others would
        monkeypatch.setattr("lexbench.run.cache_repair._writable", lambda path: False)
    try:
        assert main(["cache", "check", "--cache", str(path)]) == 0
        out = capsys.readouterr().out
        assert "ok, 6 responses" in out and "read-only" in out and "corrupt" not in out
        assert sorted(p.name for p in folder.iterdir()) == ["c.sqlite"]
        assert main(["cache", "repair", "--cache", str(path)]) == 0  # nothing to repair
        assert "nothing to repair" in capsys.readouterr().out
        assert main(["cache", "repair", "--cache", str(path), "--force"]) == 1
        err = capsys.readouterr().err
        assert "read-only" in err and "Copy it to a writable place" in err
        assert sorted(p.name for p in folder.iterdir()) == ["c.sqlite"]
    finally:
        folder.chmod(0o755)


def test_a_folder_given_as_the_cache_is_refused_with_exit_2(tmp_path, capsys):
    for action in (["check"], ["repair"], ["clear", "--yes"]):
        assert main(["cache", *action, "--cache", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        # Refused by the command line's path check, before the cache is opened.
        assert "--cache" in err and "is a folder, where a file is expected" in err
        assert str(tmp_path) in err
    from lexbench.run.cache import CacheError

    with pytest.raises(CacheError, match="is a folder"):
        ResponseCache(tmp_path)
