"""Hostile model and server output never breaks a run, a rerun or a report (issue 19, items
1, 8, 13, 14): lone surrogates are kept (as JSON escapes) and cached; results.json is strict
JSON; server text reaches the terminal escaped; bad files get errors naming them."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import main
from lexbench.run.files import read_jsonl, write_json, write_samples

SURROGATE_ANSWER = " x\udcffy"


def lambda_command(url: str, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "lambda",
        "--model",
        "openai:fake-model",
        "--base-url",
        url,
        "--per-relation",
        "2",
        "--max-retries",
        "0",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(tmp_path / "runs"),
        "--no-progress",
        *extra,
    ]


def only_run_folder(root: Path) -> Path:
    folders = [p.parent for p in root.rglob("results.json")]
    assert len(folders) == 1, folders
    return folders[0]


def strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"non-strict JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


# ------------------------------------------------------------------------------ item 1


def test_lone_surrogate_answers_are_kept_cached_and_reported(tmp_path, wordnet_index, capsys):
    with FakeOpenAIServer(reply=lambda prompt: SURROGATE_ANSWER, lifetime=120) as server:
        assert main(lambda_command(server.url, tmp_path)) == 0
        sent = len(server.entries())
        assert sent == 6
        # The rerun takes every answer from the cache: nothing is sent again.
        assert main(lambda_command(server.url, tmp_path)) == 0
        assert len(server.entries()) == sent
    printed = capsys.readouterr()
    assert "\udcff" not in printed.out + printed.err

    folder = only_run_folder(tmp_path / "runs")
    raw = (folder / "samples.jsonl").read_bytes()
    assert b"\\udcff" in raw  # the JSON escape, valid UTF-8 on disk
    raw.decode("utf-8")
    rows = read_jsonl(folder / "samples.jsonl")
    assert [r["output"] for r in rows] == [SURROGATE_ANSWER] * 6  # lossless
    strict_json((folder / "results.json").read_text(encoding="utf-8"))
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        stored = [
            json.loads(text)["text"] for (text,) in db.execute("SELECT response FROM responses")
        ]
    assert stored == [SURROGATE_ANSWER] * 6

    # The HTML/Markdown report is written, showing the character as a visible escape.
    assert main(["report", str(folder), "-o", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "\\udcff" in page


def test_lone_surrogate_answers_survive_without_the_cache(tmp_path, wordnet_index):
    with FakeOpenAIServer(reply=lambda prompt: SURROGATE_ANSWER, lifetime=60) as server:
        assert main(lambda_command(server.url, tmp_path, "--no-cache")) == 0
    rows = read_jsonl(only_run_folder(tmp_path / "runs") / "samples.jsonl")
    assert [r["output"] for r in rows] == [SURROGATE_ANSWER] * 6
    assert not (tmp_path / "c.sqlite").exists()


# ------------------------------------------------------------------------------ item 8


def test_results_json_is_strict_json(tmp_path):
    numpy = pytest.importorskip("numpy")
    value = {
        "rho": float("nan"),
        "p_value": math.inf,
        "low": -math.inf,
        "n": 3,
        "nested": [{"x": numpy.float64("nan")}, (1.5, float("nan"))],
        "ok": 0.25,
    }
    write_json(tmp_path / "results.json", value)
    parsed = strict_json((tmp_path / "results.json").read_text())
    assert parsed == {
        "rho": None,
        "p_value": None,
        "low": None,
        "n": 3,
        "nested": [{"x": None}, [1.5, None]],
        "ok": 0.25,
        "non_finite": {
            "/rho": "NaN",
            "/p_value": "Infinity",
            "/low": "-Infinity",
            "/nested/0/x": "NaN",
            "/nested/1/1": "NaN",
        },
    }
    # lexbench's own readers get the computed numbers back.
    from lexbench.run.files import read_json_file

    back = read_json_file(tmp_path / "results.json")
    assert math.isnan(back["rho"]) and back["p_value"] == math.inf and back["low"] == -math.inf
    assert math.isnan(back["nested"][1][1]) and "non_finite" not in back
    write_samples(tmp_path / "samples.jsonl", [{"id": "a", "value": float("nan")}])
    assert strict_json((tmp_path / "samples.jsonl").read_text()) == {"id": "a", "value": None}


def test_an_ordinary_run_with_undefined_spearman_writes_null_and_reports(tmp_path, wordnet_index):
    # Every answer wrong: accuracy is constant over query lengths, so rho is undefined.
    with FakeOpenAIServer(reply=lambda prompt: " zzzz", lifetime=60) as server:
        assert main(lambda_command(server.url, tmp_path, "--no-cache")) == 0
    folder = only_run_folder(tmp_path / "runs")
    results = strict_json((folder / "results.json").read_text())
    rho = results["accuracy_by_query_length"]["spearman_all_lengths"]["rho"]
    assert rho is None
    assert results["non_finite"]["/accuracy_by_query_length/spearman_all_lengths/rho"] == "NaN"
    assert main(["report", str(folder), "-o", str(tmp_path / "report")]) == 0
    assert "undefined" in (tmp_path / "report" / "report.md").read_text()


# ------------------------------------------------------------------------------ item 13

HOSTILE = "\x1b[2J\x1b]0;pwned\x07 key rejected \u202eevil\x9b31m"


def test_terminal_text_escapes_control_sequences():
    from lexbench.terminal import terminal_text

    shown = terminal_text(HOSTILE + "\nline two\ttab \udcff")
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\x9b" not in shown and "\udcff" not in shown
    assert "\\x1b[2J" in shown and "\\u202e" in shown and "\\udcff" in shown
    assert "\nline two\ttab" in shown


def test_server_error_text_reaches_the_terminal_escaped(tmp_path, wordnet_index, capsys):
    with FakeOpenAIServer(
        faults=lambda prompt, attempt: "401", error_message=HOSTILE, lifetime=60
    ) as server:
        status = main(lambda_command(server.url, tmp_path))
    err = capsys.readouterr().err
    assert status == 1
    assert "HTTP 401" in err and "\\x1b[2J" in err and "key rejected" in err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err


def test_failed_request_reasons_reach_the_terminal_escaped(tmp_path, wordnet_index, capsys):
    with FakeOpenAIServer(
        faults=lambda prompt, attempt: "500", error_message=HOSTILE, lifetime=60
    ) as server:
        status = main(lambda_command(server.url, tmp_path))
    err = capsys.readouterr().err
    assert status == 4
    assert "\\x1b[2J" in err and "\x1b" not in err


# ------------------------------------------------------------------------------ item 14


@pytest.mark.parametrize("row", ["[1, 2, 3]", "42", '"text"', '{"id": "x"}'])
def test_an_item_file_row_that_is_not_an_item_is_named(tmp_path, row, capsys):
    items = tmp_path / "items.jsonl"
    items.write_text(row + "\n")
    status = main(
        [
            "run",
            "lambda",
            "--items",
            str(items),
            "--no-cache",
            "--model",
            "openai:fake-model",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "runs"),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"{items}: item 1" in err and "Traceback" not in err


def scripted_lambda_run(root: Path, name: str = "model-a", items: list | None = None) -> Path:
    """A LAMBDA run folder written by the real pipeline: hand-made items (no WordNet), a
    scripted model right on every other item."""
    from test_report_runs import lambda_items

    from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
    from lexbench.run.evaluate import evaluate
    from mock_model import ScriptedModel

    dataset = items if items is not None else lambda_items(10)
    gold = {item.id: item.gold for item in dataset}
    model = ScriptedModel(
        lambda request: " " + (gold[request.id] if int(request.id[-1]) % 2 else "zebra"), name=name
    )
    bench = LambdaBenchmark(
        dataset=dataset,
        index=None,
        dataset_config={"relations": ["synonym", "antonym", "derivation"]},
    )
    return evaluate(bench, model, out_root=root, cache=None, progress=False).folder.path


@pytest.fixture
def lambda_folder(tmp_path):
    return scripted_lambda_run(tmp_path / "runs")


def test_report_refuses_an_empty_samples_file(lambda_folder, tmp_path, capsys):
    (lambda_folder / "samples.jsonl").write_text("")
    assert main(["report", str(lambda_folder), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "samples.jsonl is empty" in err and "results.json counts 30 items" in err


def test_report_refuses_samples_and_results_of_different_runs(lambda_folder, tmp_path, capsys):
    path = lambda_folder / "samples.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:12]))
    assert main(["report", str(lambda_folder), "-o", str(tmp_path / "out")]) == 2
    assert "results.json counts 30 items but samples.jsonl holds 12" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["config.json", "results.json"])
@pytest.mark.parametrize("command", ["report", "compare", "rescore"])
def test_a_garbled_json_file_is_named(lambda_folder, tmp_path, capsys, name, command):
    (lambda_folder / name).write_text('{"benchmark": "lambda", "ov')
    argv = {
        "report": ["report", str(lambda_folder), "-o", str(tmp_path / "out")],
        "compare": ["compare", str(lambda_folder), str(lambda_folder)],
        "rescore": ["rescore", str(lambda_folder)],
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{lambda_folder / name}: {name} is not valid JSON" in err


def test_samples_are_written_line_by_line_from_a_generator_with_the_same_bytes(tmp_path):
    """write_samples takes the rows as a generator (evaluate makes each as it is written):
    the file is byte for byte what joining the lines gave before, lone surrogates and all,
    each row is asked for once, and no samples make an empty file."""
    rows = [
        {"id": "a", "output": SURROGATE_ANSWER, "value": 1.0},
        {"id": "b", "value": float("nan")},
    ]
    made = []

    def one_at_a_time():
        for row in rows:
            made.append(row["id"])
            yield row

    write_samples(tmp_path / "samples.jsonl", one_at_a_time())
    expected = '{"id": "a", "output": " x\\udcffy", "value": 1.0}\n{"id": "b", "value": null}\n'
    assert (tmp_path / "samples.jsonl").read_bytes() == expected.encode("utf-8")
    assert made == ["a", "b"]
    write_samples(tmp_path / "empty.jsonl", iter(()))
    assert (tmp_path / "empty.jsonl").read_bytes() == b""
