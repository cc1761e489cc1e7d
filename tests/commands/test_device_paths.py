"""Nothing is ever written beside a device or a named pipe (issue 43, item 6): `--cache
/dev/null` made `/dev/null-journal`, `generate lambda -o /dev/null` wrote
`/dev/null.manifest.json`, `generate setlexsem -o /dev/null` (run as root) replaced the
device with a regular file by its rename, `cache clear --cache /dev/null --yes` would have
deleted it, and `-o FIFO` hung on the pipe. Each is refused: one line naming the path and
what it is, exit status 2, the device or pipe as it was and nothing beside it."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from lexbench.cli import main


@pytest.fixture(params=["device", "fifo"])
def special(request, tmp_path) -> Path:
    """A character device, or a named pipe made in tmp_path. The device is /dev/null for
    a user who cannot write in /dev; as root (who can), a private node of the same device
    (1, 3), so that a lexbench that got this wrong writes beside, or replaces, a node of
    this test's own and never the system's /dev/null."""
    if request.param == "fifo":
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        return fifo
    if os.geteuid() != 0:
        return Path("/dev/null")
    node = tmp_path / "dev" / "null"
    node.parent.mkdir()
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError:  # no CAP_MKNOD: the real one (the fixed code never writes beside it)
        return Path("/dev/null")
    return node


def beside(path: Path) -> list[str]:
    """The entries of the path's folder that share its name (it, and anything beside it)."""
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name))


def kind(path: Path) -> int:
    return stat.S_IFMT(os.stat(path).st_mode)


def within(seconds: float, work: Callable[[], int]) -> int:
    """`work()` on a thread: a command blocked on a pipe fails the test instead of hanging
    the suite."""
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(work()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"still running after {seconds} s (blocked on the pipe?)"
    return done[0]


def refused(argv: list[str], special: Path, capsys) -> str:
    before = (beside(special), kind(special))
    status = within(120, lambda: main(argv))
    err = capsys.readouterr().err
    assert status == 2, err
    errors = [line for line in err.splitlines() if line.startswith("lexbench: error:")]
    assert len(errors) == 1 and str(special) in errors[0], err
    assert "Traceback" not in err and "Errno" not in err
    assert (beside(special), kind(special)) == before  # nothing beside it, it unchanged
    return errors[0]


def offline_lambda(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "lambda",
        "--model",
        "openai:fake-model",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--per-relation",
        "1",
        "--no-progress",
        *extra,
    ]


def test_cache_on_a_device_or_a_pipe_is_refused(special, tmp_path, tiny_wordnet_index, capsys):
    argv = offline_lambda(tmp_path, "--cache", str(special), "--out", str(tmp_path / "runs"))
    line = refused(argv, special, capsys)
    assert "not a regular file" in line and "--no-cache" in line
    assert not list(tmp_path.rglob("results.json"))


@pytest.mark.parametrize(
    "action", [["check"], ["repair", "--force"], ["clear", "--yes"]], ids=lambda a: a[0]
)
def test_cache_commands_never_touch_a_device_or_a_pipe(special, action, capsys):
    line = refused(["cache", *action, "--cache", str(special)], special, capsys)
    assert f"--cache {special} is " in line


def test_generate_lambda_never_writes_beside_a_device_or_a_pipe(
    special, tiny_wordnet_index, capsys
):
    argv = ["generate", "lambda", "--per-relation", "1", "-o", str(special)]
    line = refused(argv, special, capsys)
    assert "manifest" in line and "regular file" in line


def test_generate_setlexsem_never_replaces_a_device_or_a_pipe(special, tiny_wordnet_env, capsys):
    line = refused(
        ["generate", "setlexsem", "--grid", "small", "-o", str(special)], special, capsys
    )
    assert "regular file" in line


def test_out_on_a_device_or_a_pipe_is_refused(special, tmp_path, capsys):
    argv = offline_lambda(tmp_path, "--no-cache", "--out", str(special))
    line = refused(argv, special, capsys)
    assert ("a character device" if special.name == "null" else "a named pipe") in line
    assert "where a folder is expected" in line
