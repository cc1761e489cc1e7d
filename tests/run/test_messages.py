"""Messages that used to mislead (issue 30, item 8): an input file that is not UTF-8 is
named with its option; a NaN score draws no point and a failing figure names its
results.json; one attempt is "1 attempt"."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import main
from lexbench.report import figures as plots

NOT_UTF8 = b'{"id": "a", "query": "caf\xe9"}\n'


@pytest.mark.parametrize(
    "command",
    [
        ["run", "lambda", "--items", "{file}", "--model", "glove"],
        ["run", "scan", "--data", "{file}", "--model", "glove"],
        ["run", "google", "--data", "{file}", "--model", "glove"],
        ["run", "bats", "--data", "{folder}", "--model", "glove"],
    ],
)
def test_an_input_that_is_not_utf8_is_named_with_its_option(tmp_path, capsys, command):
    file = tmp_path / "items.jsonl"
    file.write_bytes(NOT_UTF8)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pairs.txt").write_bytes(b"caf\xe9\tcafes\n")
    argv = [a.format(file=file, folder=tmp_path / "sub") for a in command]
    assert main([*argv, "--out", str(tmp_path / "runs"), "--no-cache"]) == 2
    err = capsys.readouterr().err
    option = "--items" if "--items" in argv else "--data"
    assert f"{option} " in err and "not UTF-8 text" in err and "codec" not in err
    assert ("pairs.txt" if "bats" in argv else str(file)) in err


def test_read_jsonl_names_the_file_and_line_of_undecodable_text(tmp_path):
    from lexbench.run.files import read_jsonl

    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n' + NOT_UTF8)
    with pytest.raises(ValueError, match=f"{path}: not UTF-8 text"):
        read_jsonl(path)


def test_nan_scores_draw_no_point_and_never_fail_a_figure(tmp_path):
    nan = float("nan")
    plots.scatter_with_trend(
        tmp_path / "s.png",
        [1, 2, 3],
        [0.5, nan, 0.2],
        sizes=[3, 0, 4],
        title="t",
        xlabel="x",
        ylabel="y",
        ylim=(-0.1, nan),  # a limit computed from a NaN accuracy
    )
    plots.scatter_with_trend(tmp_path / "e.png", [1], [nan], title="t", xlabel="x", ylabel="y")
    plots.bar_with_intervals(
        tmp_path / "b.png", ["a", "b"], [0.5, nan], [0.4, nan], [0.6, nan], title="t", ylabel="y"
    )
    plots.violin(tmp_path / "v.png", {"a": [0.2, nan, 0.4], "b": [nan]}, title="t", ylabel="y")
    assert all((tmp_path / f"{n}.png").stat().st_size > 0 for n in "sebv")


def test_a_failing_figure_names_the_results_it_came_from(tmp_path, capsys, monkeypatch):
    from lexbench.report import build

    fixture = Path(__file__).parents[1] / "fixtures" / "bats_mini"
    argv = ["run", "bats", "--data", str(fixture), "--model", "glove", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "runs"), "--no-cache"]) == 0
    (results,) = (tmp_path / "runs").rglob("results.json")
    real = build.reporter_for

    class Broken:
        def __init__(self, benchmark):
            self.inner = real(benchmark)

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def figures(self, runs, folder):
            raise ValueError("Axis limits cannot be NaN or Inf")  # matplotlib's words

    monkeypatch.setattr(build, "reporter_for", Broken)
    capsys.readouterr()
    assert main(["report", str(tmp_path / "runs"), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert str(results) in err and "Axis limits" in err


def test_one_attempt_is_said_in_the_singular(tmp_path):
    from lexbench.models.openai.backend import OpenAIModel
    from lexbench.models.openai.options import OpenAIOptions
    from lexbench.run.runner import execute
    from lexbench.types import Request

    with FakeOpenAIServer(faults=lambda prompt, attempt: "500", lifetime=60) as server:
        model = OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, max_retries=0))
        (response,), _ = execute(
            model, [Request(id="a", kind="generate", prompt="q")], progress=False
        )
    assert "failed after 1 attempt;" in str(response.error)


def test_lambdas_length_figure_with_a_nan_accuracy_is_drawn(tmp_path):
    from types import SimpleNamespace

    from lexbench.benchmarks.lambda_.report import LambdaReporter

    run = SimpleNamespace(benchmark="lambda", label="m")
    block = {
        # The shortest length first: max() of [nan, 0.5] is nan, which made the y limits NaN.
        "table": {"4": {"accuracy": float("nan"), "n": 0}, "5": {"accuracy": 0.5, "n": 4}},
        "spearman_all_lengths": {"rho": float("nan"), "p": float("nan"), "n": 2},
    }
    figure = LambdaReporter()._length_figure(run, 1, block, tmp_path)
    assert figure.path.stat().st_size > 0


def test_the_undecodable_byte_is_named_exactly_across_read_blocks(tmp_path):
    from lexbench.commands.inputs import undecodable_byte

    path = tmp_path / "items.jsonl"
    # A character begun at the end of one block and broken by the next one's first byte.
    path.write_bytes(b"abcdef" + "€".encode()[:2] + b"X and more")
    assert undecodable_byte(path, chunk=8) == 6
    path.write_bytes(b"abcdefg" + "€".encode()[:2])  # cut short at the end of the file
    assert undecodable_byte(path, chunk=8) == 7
    path.write_bytes(b"abc\xffdef")
    assert undecodable_byte(path, chunk=8) == 3
