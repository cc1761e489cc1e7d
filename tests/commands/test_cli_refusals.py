"""Issue 37's command lines: each was a traceback, a raw OS or codec message, the wrong
exit status, or accepted in silence; each is now one line naming the option, exit 2,
before a model loads (the model below is a server that is never contacted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexbench.cli import main

NEVER_CONTACTED = ["--model", "openai:fake", "--base-url", "http://127.0.0.1:9/v1"]
QUIET = ["--no-progress", "--no-cache"]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a command line refused with exit 2."""
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's refusals
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error: " in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("benchmark", ["lambda", "setlexsem"])
def test_an_unknown_builder_option_is_named(benchmark, capsys, tmp_path, tiny_wordnet_env):
    argv = ["contamination", benchmark, "--option", "nosuch=1", "--limit", "1", "--sets", "1"]
    line = refused([*argv, *NEVER_CONTACTED, *QUIET, "--out", str(tmp_path)], capsys)
    assert "--option nosuch" in line and benchmark in line


def test_a_wrongly_typed_builder_option_is_named(capsys, tmp_path, tiny_wordnet_env):
    argv = ["contamination", "lambda", "--option", 'seed="x"', "--limit", "1", "--sets", "1"]
    line = refused([*argv, *NEVER_CONTACTED, *QUIET, "--out", str(tmp_path)], capsys)
    assert "--option seed='x'" in line and "invalid literal" in line


def test_an_option_without_equals_is_refused_by_argparse(capsys):
    line = refused(["contamination", "lambda", "--option", "noequals"], capsys)
    assert "argument --option: expected KEY=VALUE" in line


def test_the_completion_probe_refuses_options_it_never_reads(capsys, tmp_path):
    base = ["contamination", "scan", *NEVER_CONTACTED, *QUIET, "--out", str(tmp_path)]
    line = refused([*base, "--option", "nosuch=1"], capsys)
    assert "--option nosuch: scan's completion probe takes no such option" in line
    assert "--limit" in refused([*base, "--limit", "3"], capsys)


def test_an_empty_prompt_variant_is_refused(capsys):
    line = refused(["run", "lambda", "--prompt-variant", ""], capsys)
    assert "argument --prompt-variant: an empty name" in line


def test_folders_for_files_and_files_for_folders(capsys, tmp_path):
    folder, file = tmp_path / "a-folder", tmp_path / "a-file"
    folder.mkdir()
    file.write_text("")
    run = ["run", "lambda", *NEVER_CONTACTED]
    assert refused([*run, "--cache", str(folder)], capsys).endswith(
        f"--cache {folder}: is a folder, where a file is expected: name a file (in it, or "
        "elsewhere)"
    )
    assert f"--items {folder}: is a folder" in refused([*run, "--items", str(folder)], capsys)
    assert f"--out {file}: is a file, where a folder" in refused([*run, "--out", str(file)], capsys)
    line = refused([*run, "--out", str(file / "runs")], capsys)
    assert f"{file} is a file, so nothing can be made inside it" in line
    line = refused(["generate", "lambda", "-o", str(folder)], capsys)
    assert f"-o {folder}: is a folder" in line  # named as typed
    line = refused(["report", str(tmp_path), "-o", str(file)], capsys)
    assert f"-o {file}: is a file" in line


def test_what_the_checks_cannot_know_is_still_exit_2(capsys, tmp_path, monkeypatch):
    """A folder met where a file is opened, beyond the options the checks know: one line
    naming it, exit 2 (bad input), not 1 with a raw [Errno 21]."""
    import lexbench.commands.report as report

    folder = tmp_path / "a-folder"
    folder.mkdir()

    def opens_a_folder(args):
        return len(open(folder).read())  # as a reader handed a folder would

    monkeypatch.setattr(report, "_report", opens_a_folder)
    line = refused(["report", "-o", str(tmp_path / "out")], capsys)
    assert line == f"lexbench: error: {folder}: a folder, where a file is expected"


@pytest.mark.parametrize("benchmark", ["scan", "google", "sat"])
def test_data_that_is_not_utf8_is_named_even_as_bin(benchmark, capsys, tmp_path):
    data = tmp_path / "X.bin"
    data.write_bytes(b"\xff\xfe not text")
    line = refused(["run", benchmark, "--data", str(data), *NEVER_CONTACTED], capsys)
    assert f"--data {data}: not UTF-8 text (byte 0 cannot be decoded)" in line


def test_a_real_binary_data_file_is_left_to_its_reader(tmp_path):
    from argparse import Namespace

    from lexbench.commands.inputs import check_text_inputs

    parquet = tmp_path / "rows.parquet"
    parquet.write_bytes(b"PAR1\xff\xfe\x00")
    check_text_inputs(Namespace(data=parquet))  # no error: parquet is read as bytes


@pytest.mark.parametrize("url", ["\x1b[2J", "ftp://host/v1", "http://host:99999/v1", ""])
def test_a_base_url_that_is_not_one_is_refused_at_parse_time(url, capsys):
    assert "is not a server URL" in refused(["doctor", "--base-url", url], capsys)
    assert "is not a server URL" in refused(["run", "lambda", "--base-url", url], capsys)


def test_rescore_refuses_a_damaged_line_after_the_last_item(capsys, tmp_path):
    from lexbench import api
    from mock_model import ScriptedModel

    model = ScriptedModel(name="scripted", ranked=lambda request: [(1, "x", -0.1)])
    run = api.run("scan", model, limit=2, out=tmp_path, use_cache=False, progress=False)
    samples = run.folder.path / "samples.jsonl"
    assert main(["rescore", str(run.folder.path)]) == 0
    capsys.readouterr()
    with samples.open("a") as handle:
        handle.write("[1,2]\n")
    for command in (["rescore"], ["report", "-o", str(tmp_path / "report")]):
        line = refused([*command, str(run.folder.path)], capsys)
        assert "samples.jsonl" in line and "line" in line


def test_report_of_a_run_whose_config_names_an_unknown_benchmark(capsys, tmp_path):
    from lexbench import api
    from mock_model import ScriptedModel

    model = ScriptedModel(name="scripted", ranked=lambda request: [(1, "x", -0.1)])
    run = api.run("scan", model, limit=2, out=tmp_path, use_cache=False, progress=False)
    for name in ("config.json", "results.json"):
        path = run.folder.path / name
        data = json.loads(path.read_text())
        data["benchmark"] = "nosuch"
        if "run_options" in data:
            data["run_options"]["benchmark"] = "nosuch"
        path.write_text(json.dumps(data))
    status = main(["report", str(run.folder.path), "-o", str(tmp_path / "report")])
    err = capsys.readouterr().err
    assert status in (0, 2) and "Traceback" not in err
    assert status == 0 or len(err.strip().splitlines()) == 1
    assert Path(tmp_path / "report" / "report.html").exists() or status == 2
