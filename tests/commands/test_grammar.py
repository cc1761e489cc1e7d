"""One grammar for every benchmark (issue 25.3): the same model default, one `--limit`
rule, `--data` wherever files are read (and `run all --data NAME=PATH`), `leaderboard`
and `report` reading ./runs by default, and `python -m lexbench`."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_report_runs import make_lambda_run

from lexbench import plugins
from lexbench.cli import build_parser, main
from lexbench.contract import DEFAULT_MODEL, first_per_stratum

EKAR_ENGLISH = Path(__file__).parents[1] / "fixtures" / "ekar" / "english"


def _run_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [top] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    run = top.choices["run"]
    [verbs] = [a for a in run._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(verbs.choices)


def _option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return next((a for a in parser._actions if flag in a.option_strings), None)


def test_every_run_defaults_to_the_packaged_smollm2() -> None:
    defaults = {name: _option(p, "--model").default for name, p in _run_parsers().items()}
    assert set(defaults.values()) == {DEFAULT_MODEL}, defaults
    assert {"lambda", "scan", "setlexsem", "ekar", "google", "bats", "sat", "all"} <= set(defaults)
    assert all(spec.default_model == DEFAULT_MODEL for spec in plugins.benchmarks())


def test_every_run_with_a_limit_says_the_one_rule_and_names_its_stratum() -> None:
    parsers = _run_parsers()
    for spec in plugins.benchmarks():
        limit = _option(parsers[spec.name], "--limit")
        if spec.limit_option is None:
            assert limit is None
            continue
        assert limit is not None, spec.name
        assert "the first N" in (limit.help or "") and "of each" in (limit.help or ""), spec.name
    assert "concept mapping" in (_option(parsers["scan"], "--limit").help or "")
    assert "meta-relation" in (_option(parsers["ekar"], "--limit").help or "")
    assert "configuration" in (_option(parsers["setlexsem"], "--limit").help or "")


def test_every_benchmark_that_reads_files_takes_data() -> None:
    parsers = _run_parsers()
    for spec in plugins.benchmarks():
        if spec.data_option is not None:
            assert _option(parsers[spec.name], "--data") is not None, spec.name
    assert _option(parsers["all"], "--data") is not None


def test_the_old_limit_per_relation_spelling_still_works() -> None:
    parser = build_parser()
    old = parser.parse_args(["run", "google", "--limit-per-relation", "3"])
    new = parser.parse_args(["run", "bats", "--limit", "3"])
    assert old.limit == new.limit == 3


def test_the_limit_rule_keeps_the_first_n_of_each_stratum_in_order() -> None:
    rows = [("r1", 1), ("r2", 1), ("r1", 2), ("r1", 3), ("r3", 1), ("r2", 2)]
    assert first_per_stratum(rows, 2, lambda row: row[0]) == [
        ("r1", 1),
        ("r2", 1),
        ("r1", 2),
        ("r3", 1),
        ("r2", 2),
    ]
    assert first_per_stratum(rows, None, lambda row: row[0]) == rows
    with pytest.raises(ValueError, match="at least 1"):
        first_per_stratum(rows, 0, lambda row: row[0])


def test_a_scan_slice_covers_every_concept_mapping(shared_data: Path) -> None:
    from lexbench.benchmarks.scan.benchmark import load_scan, select

    items = load_scan(shared_data / "scan" / "SCAN_dataset.csv")
    chosen = select(items, limit=2)
    per_mapping = Counter(item.mapping for item in chosen)
    assert set(per_mapping) == {item.mapping for item in items}  # all 65 mappings
    assert max(per_mapping.values()) == 2 and len(chosen) == 130


def test_an_ekar_slice_takes_the_first_items_of_each_meta_relation() -> None:
    from lexbench.benchmarks.ekar.benchmark import load_benchmark
    from lexbench.benchmarks.ekar.data import limit_stratum

    whole = load_benchmark(data=EKAR_ENGLISH).items()
    sliced = load_benchmark(data=EKAR_ENGLISH, limit=1).items()
    strata = [limit_stratum(item) for item in sliced]
    assert sorted(strata) == sorted({limit_stratum(item) for item in whole})
    assert len(strata) == len(set(strata)) < len(whole)


def test_run_all_data_goes_to_the_benchmarks_own_data_option(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "my-scan.csv"
    csv.write_bytes((shared_data / "scan" / "SCAN_dataset.csv").read_bytes())
    out = tmp_path / "runs"
    argv = ["run", "all", "--model", "glove", "--limit", "1", "--only", "scan"]
    argv += ["--out", str(out), "--no-cache", "--no-progress"]
    assert main([*argv, "--data", f"scan={csv}"]) == 0
    assert "skipped" not in capsys.readouterr().out
    [samples] = (out / "scan").rglob("samples.jsonl")
    assert len(samples.read_text().splitlines()) == 65  # one per mapping
    assert str(csv) in (samples.parent / "config.json").read_text()
    assert main([*argv, "--data", f"sat={csv}"]) == 2
    assert "not a suite benchmark that reads files" in capsys.readouterr().err


def test_run_all_data_must_be_name_equals_path(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", "all", "--data", "bats"])
    assert stopped.value.code == 2
    assert "expected NAME=PATH" in capsys.readouterr().err


def test_leaderboard_and_report_read_runs_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard"]) == 2
    assert "no ./runs here" in capsys.readouterr().err
    assert main(["report", "-o", "out"]) == 2
    assert "no ./runs here" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    make_lambda_run(tmp_path / "runs", "model-a", seed=1, accuracy=0.5)
    assert main(["leaderboard"]) == 0
    assert "model-a" in capsys.readouterr().out
    assert main(["report", "-o", "out"]) == 0
    assert (tmp_path / "out" / "report.md").is_file()


def test_python_dash_m_lexbench_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lexbench", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("lexbench ")


def test_run_all_limit_gives_setlexsem_its_quick_budget_and_records_it(
    tmp_path: Path, user_cache_root: Path
) -> None:
    """A quick check finishes on a CPU: `run all --limit` stops SetLexSem at </answer>
    within 64 tokens, and says so in the run's config; a full run keeps the paper's."""
    from dataclasses import replace

    from lexbench import api
    from lexbench.cli import build_parser
    from lexbench.commands.run import suite_conditions
    from mock_model import ScriptedModel

    def setlexsem(argv: list[str]) -> Any:
        args = build_parser().parse_args(["run", "all", *argv])
        (found,) = [c.request for c in suite_conditions(args) if c.label == "setlexsem"]
        return found

    full, quick = setlexsem([]), setlexsem(["--limit", "1"])
    assert "decoding" not in full.options and full.limit is None
    assert quick.options["decoding"] == {"max_new_tokens": 64, "stop": ["</answer>"]}
    assert quick.limit == 1 and quick.options["select"] == full.options["select"]
    model = ScriptedModel(lambda request: "<answer>{}</answer>", name="scripted")
    run = api.run(replace(quick, out=tmp_path, use_cache=False, progress=False), model)
    config = json.loads(run.folder.config_path.read_text())
    decoding = config["benchmark"]["dataset"]["grid"]["decoding"]
    assert decoding["max_new_tokens"] == 64 and decoding["stop"] == ["</answer>"]
    assert {row.decoding.max_new_tokens for row in model.sent} == {64}
    assert len(model.sent) == 32  # one prompt of each of the 32 configurations
