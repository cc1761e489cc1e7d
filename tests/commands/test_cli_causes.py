"""Issue 43's command lines (the fifth probe): each was a raw OS or codec error, a wrong
cause, the wrong exit status or accepted in silence; each is now one line naming the problem
and the path, with the status docs/guarantees.md's table gives (2 bad input, 1 the
environment), and no "[Errno N]". The model is a server that is never contacted, unless the
test starts the fake one."""

from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import main

NEVER_CONTACTED = ["--model", "openai:fake", "--base-url", "http://127.0.0.1:9/v1"]
QUIET = ["--no-progress", "--no-cache"]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], status: int = 2) -> str:
    """The one error line of a command line refused with `status`."""
    try:
        got = main(argv)
    except SystemExit as stop:  # argparse's refusals
        got = stop.code
    err = capsys.readouterr().err
    assert got == status, err
    assert "Traceback" not in err and "[Errno" not in err and "usage:" not in err, err
    lines = [line for line in err.splitlines() if "error: " in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(lifetime=300) as running:
        yield running


# --------------------------------------------------------------------------- bad input: 2


@pytest.mark.parametrize("backend", ["hf", "mlm"])
def test_a_model_name_longer_than_any_file_name_is_bad_input(backend, capsys, tmp_path):
    """Was exit 1 with "[Errno 36] File name too long: 'aaaa...'" (5,000 characters)."""
    spec = f"{backend}:" + "a" * 5_000
    command = ["run", "scan", "--model", spec, *QUIET, "--out", str(tmp_path)]
    line = refused(command, capsys)
    assert f"{backend}:{'a' * 40}...: not a model: a name of 5,000 characters" in line
    assert len(line) < 400  # the name is not repeated whole


def test_a_file_given_as_wordnet_is_refused_before_anything_runs(capsys, tmp_path):
    """Was exit 1 and a six-line "not a WordNet 3.0 database directory" with install hints."""
    file = tmp_path / "wordnet.txt"
    file.write_text("not a database")
    run = ["run", "lambda", "--wordnet", str(file), *NEVER_CONTACTED, *QUIET]
    line = refused([*run, "--out", str(tmp_path / "runs")], capsys)
    assert f"--wordnet {file}: is a file, where a folder is expected" in line
    assert f"--wordnet {file}: is a file" in refused(["doctor", "--wordnet", str(file)], capsys)
    assert not (tmp_path / "runs").exists()


def test_a_host_that_is_no_address_is_refused_at_parse_time(capsys, tmp_path, monkeypatch):
    """`--host 999.1.1.1` was looked up in DNS (12.6 s offline), then exit 1."""
    monkeypatch.chdir(tmp_path)
    looked_up: list[str] = []

    def lookup(host, *args, **kwargs):
        looked_up.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    serve = ["human", "serve", "lambda", "--study", str(tmp_path / "study")]
    for host in ("999.1.1.1", "1.2.3", "bad_name.lab", "::zz"):
        line = refused([*serve, "--host", host], capsys)
        assert line.startswith("lexbench human serve lambda: error: argument --host:"), line
    assert looked_up == []  # refused by its form, no name lookup
    # A well-formed name that is no address of this machine: one line, 2, nothing made.
    line = refused([*serve, "--host", "nosuch.invalid"], capsys)
    assert "--host nosuch.invalid: not an address of this machine" in line
    assert not (tmp_path / "study").exists()


def test_an_include_that_names_nothing_is_refused(capsys, tmp_path):
    """Was a warning, then exit 0 without the benchmarks asked for."""
    line = refused(["--include", str(tmp_path / "BADPATH"), "list"], capsys)
    assert f"--include {tmp_path / 'BADPATH'}: no such file or folder" in line
    line = refused([f"--include={tmp_path}", "list"], capsys)
    assert f"--include {tmp_path}: a folder without __init__.py" in line


@pytest.mark.parametrize("backend", ["hf", "mlm"])
def test_an_empty_model_folder_is_named_as_such(backend, capsys, tmp_path):
    """Was transformers' "You need to have sentencepiece or tiktoken installed"."""
    empty = tmp_path / "empty"
    empty.mkdir()
    line = refused(["run", "scan", "--model", f"{backend}:{empty}", *QUIET], capsys)
    assert f"{backend}:{empty}: the folder holds no model files (no config.json; it is empty)" in (
        line
    )
    assert "sentencepiece" not in line


def test_a_model_folder_without_tokenizer_files_is_named_as_such(tmp_path):
    from lexbench.models.hf_files import load_pretrained

    folder = tmp_path / "no-tokenizer"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llama"}')
    with pytest.raises(ValueError, match=r"the folder .* holds no tokenizer files"):
        load_pretrained(
            object, str(folder), dtype="float32", device="cpu", revision=None, threads=1
        )


def test_an_empty_tokenizer_folder_is_named_as_such(capsys, tmp_path, tiny_wordnet_env):
    empty = tmp_path / "empty"
    empty.mkdir()
    run = ["run", "lambda", "--tokenizer", str(empty), *NEVER_CONTACTED, *QUIET]
    line = refused([*run, "--out", str(tmp_path / "runs")], capsys)
    assert f"--tokenizer {empty}: the folder {empty} holds no tokenizer files" in line


def test_vectors_that_cannot_be_read_name_the_file(capsys, tmp_path):
    """Was "'utf-8' codec can't decode byte 0xeb in position 0", naming no file."""
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(200, 256)) * 50)
    line = refused(["run", "scan", "--model", f"vectors:{garbage}", *QUIET], capsys)
    assert f"vectors:{garbage}: cannot be read as word vectors (its header is not text" in line


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_out_folder_where_nothing_can_be_made(capsys, tmp_path):
    """Was "[Errno 2] No such file or directory: '/proc/self/scan'"."""
    run = ["run", "scan", *NEVER_CONTACTED, *QUIET, "--limit", "1", "--out", "/proc/self"]
    line = refused(run, capsys)
    assert line.startswith("lexbench: error: /proc/self/scan: nothing can be made in /proc/self")


def test_an_ekar_data_file_is_said_to_be_a_file(capsys, tmp_path):
    """Was "E-KAR data folder FILE does not exist" for a file that exists."""
    file = tmp_path / "ekar.json"
    file.write_text("{}")
    line = refused(["run", "ekar", "--data", str(file), *NEVER_CONTACTED, *QUIET], capsys)
    assert f"--data {file}: is a file, where a folder is expected" in line


@pytest.mark.parametrize("value", ["-inf", "-nan", "-1e400", "-Infinity"])
def test_a_negative_infinity_is_a_value_its_range_refuses(value, capsys):
    """`--timeout -inf` was taken for an option: "expected one argument"."""
    line = refused(["run", "lambda", "--timeout", value], capsys)
    assert (
        f"argument --timeout: must be a number from 0 (exclusive) to 86400, got '{value}'" in line
    )


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["run", "lambda", "--nosuch"], "lexbench run lambda"),
        (["run", "nosuch"], "lexbench run"),
        (["human", "serve", "lambda", "--port", "x"], "lexbench human serve lambda"),
        (["report"], "lexbench report"),
    ],
)
def test_a_parser_error_is_one_line_with_where_help_is(argv, usage, capsys):
    """Was a usage block of 7-27 lines before the one line that says what is wrong."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "plugin" not in line]  # an installed plugin
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{usage}: error: ") and lines[0].endswith(f"(see {usage} --help)")


# ------------------------------------------------------------------ the environment: 1


def _limited(bytes_: int):
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (bytes_, resource.RLIM_INFINITY))

    return set_limit


def _scan(server: FakeOpenAIServer, tmp_path: Path, *cache: str) -> list[str]:
    return [
        *(sys.executable, "-m", "lexbench.cli", "run", "scan", "--model", "openai:fake-model"),
        *("--base-url", server.url, "--limit", "40", "--no-progress", "--out"),
        str(tmp_path / "runs"),
        *cache,
    ]


def _error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if "error: " in line]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "[Errno" not in done.stderr, done.stderr
    return lines[0]


def _environment(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LEXBENCH_CACHE": str(tmp_path / "lexbench-cache")}


def test_a_file_size_limit_is_said_with_the_run_folder_file(server, tmp_path):
    """A run with `ulimit -f` (RLIMIT_FSIZE, as a full disk refuses a write): was "[Errno 27]
    File too large" naming no file."""
    done = subprocess.run(
        [*_scan(server, tmp_path), "--no-cache"],
        env=_environment(tmp_path),
        preexec_fn=_limited(16_384),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    line = _error_line(done)
    assert str(tmp_path / "runs" / "scan" / "fake-model") in line and "samples.jsonl" in line
    assert "the file-size limit of this process was reached (ulimit -f: 16,384 bytes)" in line


def test_a_file_size_limit_on_the_cache_is_not_called_damage(server, tmp_path):
    """Was "disk I/O error ... move the damaged file aside": the cache is whole, only the
    system refused it more room."""
    cache = tmp_path / "responses.sqlite"
    done = subprocess.run(
        _scan(server, tmp_path, "--cache", str(cache)),
        env=_environment(tmp_path),
        preexec_fn=_limited(65_536),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    line = _error_line(done)
    assert f"response cache {cache} cannot grow: this process may write no file over 65,536" in line
    assert "damaged" not in line and "repair" not in line


def _tmpfs_command(mount: Path, argv: list[str]) -> list[str] | None:
    """`argv` run with a 256 KiB tmpfs at `mount` (a disk that really fills), in a mount
    namespace of its own so nothing outlives it; None where no such namespace can be made."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    flags = "-m" if os.geteuid() == 0 else "-Urm"
    probe = subprocess.run(
        [unshare, flags, "sh", "-c", f"mount -t tmpfs -o size=4k tmpfs {mount}"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        return None
    script = f'mount -t tmpfs -o size=256k tmpfs "{mount}" && exec "$@"'
    return [unshare, flags, "sh", "-c", script, "sh", *argv]


def test_a_full_disk_is_said_with_the_file(server, tmp_path):
    """A 256 KiB tmpfs that fills (ENOSPC): the run folder's file and "the disk is full";
    the cache's problem as a full disk, never as damage."""
    disk = tmp_path / "disk"
    disk.mkdir()
    argv = _scan(server, tmp_path, "--no-cache")
    argv[argv.index("--out") + 1] = str(disk / "runs")
    argv[argv.index("--limit") + 1] = "400"
    command = _tmpfs_command(disk, argv)
    if command is None:
        pytest.skip("no mount namespace can be made here (unshare -m / -Urm)")
    done = subprocess.run(
        command, env=_environment(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr
    line = _error_line(done)
    assert str(disk / "runs" / "scan" / "fake-model") in line
    assert "the disk is full (no space left on the device)" in line


# ------------------------------------------------------------------ text reaching stderr


def test_a_library_warning_reaches_stderr_escaped(capsys, monkeypatch, tmp_path):
    import logging

    import lexbench.commands.report as report

    library = logging.getLogger("some.library")  # as a library logs, to its own handler
    monkeypatch.setattr(library, "handlers", [logging.StreamHandler(sys.stderr)])
    monkeypatch.setattr(library, "propagate", False)

    def warns(args):
        warnings.warn("Glyph 27 (\x1b[2J) missing from font(s)", UserWarning, stacklevel=1)
        library.warning("model %s loaded", "\x1b]0;title\x07")
        return 0

    monkeypatch.setattr(report, "_report", warns)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["report", "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "Glyph 27 (\\x1b[2J) missing" in err and "model \\x1b]0;title\\x07 loaded" in err


def test_a_plotting_warning_about_an_escape_in_a_model_name_is_escaped(tmp_path):
    """The probe's reproduction: a run whose model name holds ESC, then `lexbench report`
    in a process of its own (matplotlib: "Glyph 27 (\\x1b) missing from font(s)")."""
    from lexbench import api
    from mock_model import ScriptedModel

    for name in ("\x1b[2J", "plain"):
        model = ScriptedModel(name=name, ranked=lambda request: [(1, "x", -0.1)])
        api.run("scan", model, limit=3, out=tmp_path / "runs", use_cache=False, progress=False)
    runs, report = str(tmp_path / "runs"), str(tmp_path / "report")
    done = subprocess.run(
        [sys.executable, "-m", "lexbench.cli", "report", runs, "-o", report],
        env=_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr
    assert "Glyph 27 (\\x1b) missing" in done.stderr  # said, escaped
