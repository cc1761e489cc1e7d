"""Runs that look fine but are not (issue 19, items 4, 5, 6): failed requests give a
distinct exit status with a one-line summary and the rerun command; a run folder is
replaced as one unit whatever kills the writer; writers never share a temporary file; two
runs of one command at once send each request once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from test_robust_output import lambda_command

from fake_openai_server import FakeOpenAIServer, free_port
from lexbench.cli import main
from lexbench.run.files import write_json
from lexbench.run.staging import write_run
from lexbench.run.store import RunFolder, read_run

SRC = str(Path(__file__).resolve().parents[2] / "src")
# Subprocesses import lexbench as this process does (an outer PYTHONPATH first).
PYTHONPATH = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), SRC) if p)


# ------------------------------------------------------------------------------ item 4


def test_a_run_where_every_request_failed_exits_4_with_the_rerun_command(
    tmp_path, wordnet_index, capsys
):
    with FakeOpenAIServer(faults=lambda prompt, attempt: "500", lifetime=60) as server:
        status = main(lambda_command(server.url, tmp_path))
    err = capsys.readouterr().err
    assert status == 4
    summary = [line for line in err.splitlines() if "requests failed" in line]
    assert len(summary) == 1, err
    assert "all 6 requests failed" in summary[0] and "HTTP 500" in summary[0]
    assert "lexbench run lambda --model openai:fake-model" in summary[0]
    assert "--allow-failures" in summary[0]


def test_an_unreachable_server_is_a_failed_run_not_a_nan_report(tmp_path, wordnet_index, capsys):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    assert main(lambda_command(url, tmp_path)) == 4
    assert "connection error" in capsys.readouterr().err


def test_a_partial_failure_exits_3_and_allow_failures_exits_0(tmp_path, wordnet_index, capsys):
    failing: set[str] = set()

    def two_fail(prompt: str, attempt: int) -> str | None:
        if len(failing) < 2:
            failing.add(prompt)
        return "500" if prompt in failing else None

    with FakeOpenAIServer(faults=two_fail, lifetime=60) as server:
        assert main(lambda_command(server.url, tmp_path, "--max-concurrency", "1")) == 3
        assert "2 of 6 requests failed" in capsys.readouterr().err
        # The rerun asks only the two failed ones again (they still fail).
        before = len(server.entries())
        assert main(lambda_command(server.url, tmp_path, "--allow-failures")) == 0
        assert len(server.entries()) - before == 2


# ------------------------------------------------------------------------------ item 5


def folder_files(path: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(path.iterdir()) if p.is_file()}


def write_version(folder: RunFolder, version: int, items: int, figures: bool = False) -> None:
    samples = [{"id": f"i{n}", "correct": True, "value": 1.0, "v": version} for n in range(items)]
    extra = {"extra": lambda path: (path / "figures").mkdir()} if figures else {}
    write_run(
        folder,
        {"benchmark": {"name": "x"}, "model": {"name": "m"}},
        samples,
        {"benchmark": "x", "overall": {"n": items}, "version": version},
        f"# version {version}\n",
        **extra,
    )


def test_a_writer_killed_between_files_leaves_the_old_folder_whole(tmp_path):
    folder = RunFolder(tmp_path / "runs" / "x" / "m" / "abc123")
    write_version(folder, 1, items=300)
    old = folder_files(folder.path)
    # A second writer is killed (SIGKILL) after writing samples.jsonl, before results.json.
    script = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        import lexbench.run.files as files
        import lexbench.run.store as store
        real = files.write_json
        def dying(path, value):
            if Path(path).name == "results.json":
                os.kill(os.getpid(), signal.SIGKILL)
            real(path, value)
        files.write_json = dying
        import sys; sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[1])!r}]
        from test_robust_runs import write_version
        write_version(store.RunFolder(Path({str(folder.path)!r})), 2, items=264)
    """)
    killed = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": PYTHONPATH},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert killed.returncode == -9, killed.stderr
    assert folder_files(folder.path) == old  # not samples v2 beside results v1
    _config, samples, results = read_run(folder.path)
    assert len(samples) == results["overall"]["n"] == 300
    # The next write replaces the folder whole (figures written inside the unit) and
    # clears what the dead writer left, its lock file included.
    write_version(folder, 3, items=5, figures=True)
    assert json.loads((folder.path / "results.json").read_text())["version"] == 3
    assert (folder.path / "figures").is_dir()
    assert sorted(p.name for p in folder.path.parent.iterdir()) == ["abc123"]


def test_a_rewritten_folder_keeps_no_file_of_the_old_run(tmp_path):
    folder = RunFolder(tmp_path / "abc")
    write_version(folder, 1, items=3)
    (folder.path / "figures").mkdir()
    (folder.path / "figures" / "old.png").write_bytes(b"png")
    write_version(folder, 2, items=3)
    assert not (folder.path / "figures" / "old.png").exists()


# ------------------------------------------------------------------------------ item 6


def test_two_writers_of_one_file_never_share_a_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "results.json"
    real_replace = Path.replace
    first_waiting, first_may_go = threading.Event(), threading.Event()

    def replace(self: Path, other: Path) -> Path:
        if threading.current_thread().name == "first-writer":
            first_waiting.set()
            first_may_go.wait(10)
        return real_replace(self, other)

    monkeypatch.setattr(Path, "replace", replace)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            write_json(target, {"writer": 1, "data": "x" * 10_000})
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=first, name="first-writer")
    thread.start()
    assert first_waiting.wait(10)
    write_json(target, {"writer": 2})  # completes while the first is mid-write
    first_may_go.set()
    thread.join(10)
    assert errors == []
    assert json.loads(target.read_text())["writer"] == 1  # whole, from the last rename
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


TINY_RUN = """
import sys
from dataclasses import dataclass
from lexbench.run.evaluate import evaluate
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.cache import ResponseCache
from lexbench.types import Request, Score

@dataclass(frozen=True)
class Item:
    id: str

class Tiny:
    name = "tiny"
    def config(self): return {"name": "tiny", "items": 12}
    def items(self): return [Item(f"q{n:02d}") for n in range(12)]
    def requests(self, item):
        return [Request(id=item.id, kind="generate", prompt=f"question {item.id} :")]
    def score(self, item, responses): return Score(item.id, True, 1.0, responses[0].text, "correct")
    def sample(self, item, requests, responses, score):
        return {"id": item.id, "output": responses[0].text, "correct": True, "value": 1.0}
    def summarize(self, items, scores): return {"benchmark": "tiny", "overall": {"n": len(items)}}
    def report(self, results): return "# tiny\\n"

url, cache_path, out = sys.argv[1:4]
model = OpenAIModel("fake-model", OpenAIOptions(base_url=url, max_concurrency=1))
with ResponseCache(cache_path) as cache:
    print(evaluate(Tiny(), model, out_root=out, cache=cache, progress=False).folder.path)
"""


def test_two_runs_of_one_configuration_at_once_send_each_request_once(tmp_path):
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    # 12 requests one at a time, 0.3 s each: the second run starts while the first sends.
    with FakeOpenAIServer(latency=0.3, lifetime=120) as server:
        argv = [
            sys.executable,
            "-c",
            TINY_RUN,
            server.url,
            str(tmp_path / "c.sqlite"),
            str(tmp_path / "runs"),
        ]
        first = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline = time.monotonic() + 60
            while not server.entries():  # the first run is sending
                assert time.monotonic() < deadline and first.poll() is None, first.communicate()
                time.sleep(0.01)
            second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
            first_out, first_err = first.communicate(timeout=120)
        finally:
            if first.poll() is None:
                first.kill()
                first.wait(10)
        prompts = [entry.prompt for entry in server.entries()]
    assert first.returncode == 0, first_err
    assert second.returncode == 0, second.stderr
    assert len(prompts) == len(set(prompts)) == 12  # none sent twice
    assert "waiting for it to finish" in second.stderr
    assert first_out == second.stdout  # the same run folder
    folder = Path(first_out.strip())
    assert len(read_run(folder)[1]) == 12
