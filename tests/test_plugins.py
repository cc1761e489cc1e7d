"""Adding a benchmark from outside: the example plugin (examples/lexbench-hypernyms, installed
as a user installs it) runs through every command with no line of lexbench changed; a module
given by path works too; a broken plugin is named in one line and stops nothing else."""

from __future__ import annotations

import importlib.metadata
import json
import re
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench import plugins
from lexbench.cli import main
from lexbench.run.store import read_run

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lexbench-hypernyms"
CHEAP = ["--no-cache", "--no-progress"]


@pytest.fixture(autouse=True)
def fresh_registry():
    plugins.reset()
    yield
    plugins.reset()


def _installed() -> None:
    try:
        importlib.metadata.distribution("lexbench-hypernyms")
    except importlib.metadata.PackageNotFoundError:
        pytest.fail(
            "the example plugin is not installed: pip install -e examples/lexbench-hypernyms "
            "(make setup-test does)"
        )


def _run_folder(printed: str) -> Path:
    return Path(re.findall(r"run folder: (.+)", printed)[-1].strip())


def knowing_server(index):
    """A fake server whose model knows every hypernym: it answers each prompt's query with
    its first accepted hypernym, as a model that had learnt WordNet would."""
    from lexbench_hypernyms import one_word_hypernyms

    def reply(prompt: str) -> str:
        query = prompt.rstrip().splitlines()[-1].removesuffix(" is a kind of")
        return " " + one_word_hypernyms(index, query)[0] + "\n"

    return FakeOpenAIServer(reply=reply)


def test_the_example_is_listed_with_its_distribution(capsys):
    _installed()
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert re.search(
        r"hypernyms\s+two-shot hypernym analogies.*\[lexbench-hypernyms 0\.1\.0\]", listed
    )
    assert re.search(r"lambda\s+LAMBDA.*\[built-in\]", listed)
    assert re.search(r"hf:\s+lexbench\.models\.hf\s+\[built-in\]", listed)


@pytest.mark.slow
def test_the_example_through_every_command(tmp_path, capsys, wordnet_index):
    """run (packaged model and openai: on the fake server), run all, report, leaderboard,
    compare, rescore and export, each on the plugin's runs."""
    _installed()
    out = tmp_path / "runs"
    common = ["--out", str(out), *CHEAP]
    assert main(["run", "hypernyms", "--model", "smollm2-135m", "--limit", "12", *common]) == 0
    local = _run_folder(capsys.readouterr().out)
    config, samples, results = read_run(local)
    assert len(samples) == 12 and results["items"] == 12
    assert config["run_options"] == {"benchmark": "hypernyms", "limit": 12}
    assert "benchmark_source" in config and config["benchmark_source"].startswith(
        "lexbench-hypernyms"
    )

    with knowing_server(wordnet_index) as server:
        assert (
            main(
                [
                    "run",
                    "hypernyms",
                    "--model",
                    "openai:knower",
                    "--base-url",
                    server.url,
                    "--limit",
                    "12",
                    *common,
                ]
            )
            == 0
        )
    served = _run_folder(capsys.readouterr().out)
    _, served_samples, served_results = read_run(served)
    assert all(s["correct"] for s in served_samples)
    assert served_results["overall"]["estimate"] == 1.0

    # run all: the plugin takes part in the suite beside the built-ins.
    assert (
        main(
            [
                "run",
                "all",
                "--model",
                "smollm2-135m",
                "--limit",
                "2",
                "--only",
                "lambda",
                "hypernyms",
                *common,
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "## hypernyms" in printed and "## lambda" in printed

    # leaderboard and report read the plugin's runs like any other.
    assert main(["leaderboard", str(out)]) == 0
    board = capsys.readouterr().out
    assert "## hypernyms" in board and "knower" in board
    assert main(["report", str(local), str(served), "-o", str(tmp_path / "report")]) == 0
    capsys.readouterr()
    page = (tmp_path / "report" / "report.md").read_text()
    assert "Hypernym analogies" in page

    # compare: the same 12 items, paired.
    assert main(["compare", str(local), str(served), "--format", "json"]) == 0
    comparison = json.loads(capsys.readouterr().out)
    assert comparison["comparisons"][0]["shared"] == 12

    # rescore: the recorded outputs scored again, nothing changes.
    assert main(["rescore", str(local)]) == 0
    assert "0 of 12 items changed" in capsys.readouterr().out


@pytest.mark.slow
def test_the_example_exports_to_lm_eval_with_lexbench_verdicts(tmp_path, capsys, smollm2):
    """The exported task runs in lm-evaluation-harness itself, and its verdicts are the
    plugin's own scorer's on the same outputs."""
    _installed()
    import lm_eval  # installed by `make test` (the `harness` extra)
    from lm_eval.tasks import TaskManager

    from lexbench import api
    from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf

    task = tmp_path / "task dir #1"  # a space and a '#': quoting is the YAML library's job
    assert (
        main(["export", "hypernyms", "--format", "lm-eval", "--limit", "8", "-o", str(task)]) == 0
    )
    assert "lm_eval --include_path" in capsys.readouterr().out
    folder, _ = dequantised_cache(packaged_smollm2_gguf(), "float32")
    harness = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={folder},dtype=float32",
        tasks=["lexbench_hypernyms"],
        task_manager=TaskManager(include_path=str(task), include_defaults=False),
        batch_size=8,
        device="cpu",
        log_samples=True,
    )
    theirs = {
        s["doc"]["id"]: (s["resps"][0][0], s["acc"])
        for s in harness["samples"]["lexbench_hypernyms"]
    }
    run = api.run(
        "hypernyms", smollm2, limit=8, out=tmp_path / "runs", use_cache=False, progress=False
    )
    _, samples, _ = read_run(run.folder.path)
    ours = {s["id"]: (s["output"], float(s["correct"])) for s in samples}
    assert ours == theirs
    assert harness["results"]["lexbench_hypernyms"]["acc,none"] == pytest.approx(
        run.results["overall"]["estimate"]
    )

    hf = tmp_path / "hf"
    assert main(["export", "hypernyms", "--format", "hf", "--limit", "8", "-o", str(hf)]) == 0
    import datasets

    loaded = datasets.load_dataset(str(hf), cache_dir=str(tmp_path / "hf-cache"))["test"]
    assert loaded.num_rows == 8 and json.loads(loaded[0]["item"])["id"] == loaded[0]["id"]


def test_a_module_given_by_path(tmp_path, capsys, wordnet_index):
    """`--include FILE`: a benchmark that is not installed; its runs record where it came
    from, so `rescore` finds it again."""
    module = tmp_path / "my_hyponyms.py"
    module.write_text(
        "from dataclasses import replace\n"
        "from lexbench_hypernyms import BENCHMARK as HYPERNYMS\n"
        "BENCHMARK = replace(HYPERNYMS, name='my-hypernyms', description='my copy', suite=None,\n"
        "                    question_fields={})\n"
    )
    out = tmp_path / "runs"
    with knowing_server(wordnet_index) as server:
        assert (
            main(
                [
                    "--include",
                    str(module),
                    "run",
                    "my-hypernyms",
                    "--model",
                    "openai:k",
                    "--base-url",
                    server.url,
                    "--limit",
                    "3",
                    "--out",
                    str(out),
                    *CHEAP,
                ]
            )
            == 0
        )
    folder = _run_folder(capsys.readouterr().out)
    config, samples, _ = read_run(folder)
    assert config["benchmark_source"] == f"path {module}" and len(samples) == 3
    plugins.reset()
    assert main(["rescore", str(folder)]) == 0  # no --include: the run remembers
    assert "0 of 3 items changed" in capsys.readouterr().out


def test_a_module_given_by_path_may_name_its_parts_by_string(tmp_path, capsys, wordnet_index):
    """`--include FILE` whose spec names its builder "package.module:object" (the form the
    built-ins use): it runs like the callable form; a string naming nothing is one line,
    exit 2, naming the benchmark, the field and the string, and writes no run."""
    module = tmp_path / "lazy_hypernyms.py"
    module.write_text(
        "from dataclasses import replace\n"
        "from lexbench_hypernyms import BENCHMARK as HYPERNYMS\n"
        "BENCHMARKS = [\n"
        "    replace(HYPERNYMS, name='lazy-hypernyms', description='by string', suite=None,\n"
        "            question_fields={}, build='lexbench_hypernyms:build'),\n"
        "    replace(HYPERNYMS, name='typo-hypernyms', description='a typo', suite=None,\n"
        "            question_fields={}, build='lexbench_hypernyms:bild'),\n"
        "]\n"
    )
    out = tmp_path / "runs"
    with knowing_server(wordnet_index) as server:
        common = ["--model", "openai:k", "--base-url", server.url, "--limit", "3"]
        given = ["--include", str(module), "run"]
        assert main([*given, "lazy-hypernyms", *common, "--out", str(out), *CHEAP]) == 0
        folder = _run_folder(capsys.readouterr().out)
        typo = tmp_path / "typo-runs"
        assert main([*given, "typo-hypernyms", *common, "--out", str(typo), *CHEAP]) == 2
    config, samples, results = read_run(folder)
    assert config["benchmark_source"] == f"path {module}" and len(samples) == 3
    assert results["overall"]["estimate"] == 1.0  # the knowing model, by the plugin's scorer
    errors = capsys.readouterr().err.strip().splitlines()
    assert errors == [
        "lexbench: error: benchmark 'typo-hypernyms', field build: 'lexbench_hypernyms:bild': "
        "lexbench_hypernyms has no 'bild'"
    ]
    assert not any(typo.rglob("samples.jsonl"))


def test_a_broken_plugin_is_one_line_and_stops_nothing(tmp_path, capsys, monkeypatch):
    broken_file = tmp_path / "broken.py"
    broken_file.write_text("raise RuntimeError('this plugin is broken on purpose')\n")
    # An installed distribution whose entry point names a module that does not exist.
    site = tmp_path / "site"
    dist = site / "lexbench_broken-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: lexbench-broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[lexbench.benchmarks]\nghost = no_such_module_anywhere:SPEC\n"
    )
    monkeypatch.syspath_prepend(str(site))
    assert main(["--include", str(broken_file), "list"]) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "not loaded" in line]
    assert len(warnings) == 2, captured.err
    assert any(
        "'ghost' (lexbench-broken 1.0)" in w and "ModuleNotFoundError" in w for w in warnings
    )
    assert any("broken.py" in w and "broken on purpose" in w for w in warnings)
    assert "lambda" in captured.out and "Not loaded:" in captured.out
    # The built-ins still run.
    assert (
        main(
            [
                "--include",
                str(broken_file),
                "run",
                "scan",
                "--model",
                "glove",
                "--limit",
                "3",
                "--out",
                str(tmp_path / "runs"),
                *CHEAP,
            ]
        )
        == 0
    )


def test_a_spec_that_is_not_one_is_refused_by_name(tmp_path, capsys):
    module = tmp_path / "wrong.py"
    module.write_text("BENCHMARKS = ['not a spec']\n")
    assert main(["--include", str(module), "list"]) == 0
    assert "gives a str, not a lexbench.contract.BenchmarkSpec" in capsys.readouterr().err
    nothing = tmp_path / "empty.py"
    nothing.write_text("x = 1\n")
    assert main(["--include", str(nothing), "list"]) == 0
    assert "defines neither BENCHMARKS" in capsys.readouterr().err
    assert main(["--include"]) == 2
    assert "--include needs a path" in capsys.readouterr().err


def test_a_name_taken_twice_keeps_the_first(tmp_path, capsys):
    module = tmp_path / "again.py"
    module.write_text("from lexbench.benchmarks.lambda_ import SPEC as BENCHMARK\n")
    assert main(["--include", str(module), "list"]) == 0
    err = capsys.readouterr().err
    assert "the name is taken by built-in" in err


def test_generic_options_parse(tmp_path):
    from lexbench.commands.arguments import parse_option

    assert parse_option("count=3") == ("count", 3)
    assert parse_option("name=hyponym") == ("name", "hyponym")
    assert parse_option('relations=["a", "b"]') == ("relations", ["a", "b"])
    assert parse_option("max-tokens=2") == ("max_tokens", 2)
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match="KEY=VALUE"):
        parse_option("novalue")
