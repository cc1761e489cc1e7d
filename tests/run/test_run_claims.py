"""Run-folder claims leave no `.HASH.lock` file behind (issue 30, item 9), and removing the
lock file on release never lets two processes hold one configuration at once: a waiter
that locked a file its holder had removed locks the new one instead."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from lexbench.run.staging import write_run
from lexbench.run.store import RunFolder, run_folder


def test_a_written_run_leaves_no_lock_file_beside_it(tmp_path):
    folder = run_folder(tmp_path, "bench", "model", {"a": 1}, claim=True)
    assert list(folder.path.parent.glob(".*.lock"))  # held while the run runs
    write_run(folder, {"a": 1}, [{"id": "1"}], {"accuracy": 1.0}, "# report\n")
    assert sorted(p.name for p in folder.path.parent.iterdir()) == [folder.path.name]


def test_an_abandoned_claim_removes_its_lock_file_when_collected(tmp_path):
    import gc

    folder = run_folder(tmp_path, "bench", "model", {"a": 2}, claim=True)
    parent = folder.path.parent
    del folder
    gc.collect()
    assert not list(parent.glob(".*.lock"))


WORKER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from lexbench.run import claims

    folder, log = Path(sys.argv[1]), sys.argv[2]
    for _ in range(4):
        claim = claims.claim(folder, notify=None)
        with open(log, "a") as out:
            out.write(f"enter {os.getpid()} {time.monotonic()}\\n")
        time.sleep(0.05)
        with open(log, "a") as out:
            out.write(f"leave {os.getpid()} {time.monotonic()}\\n")
        claim.release()
    """
)


def test_removing_lock_files_never_lets_two_holders_in(tmp_path):
    folder = tmp_path / "runs" / "b" / "m" / "abc"
    log = tmp_path / "log.txt"
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(folder), str(log)]) for _ in range(4)
    ]
    for worker in workers:
        assert worker.wait(120) == 0
    events = [line.split() for line in log.read_text().splitlines()]
    assert len(events) == 4 * 4 * 2
    inside: str | None = None
    for kind, pid, _ in events:  # appended in order: enter and leave must alternate
        if kind == "enter":
            assert inside is None, f"{pid} entered while {inside} held the claim"
            inside = pid
        else:
            assert inside == pid
            inside = None
    assert not list(folder.parent.glob(".*.lock"))
    assert not RunFolder(folder).path.exists()
