"""The exported tasks, run by lm-eval and by inspect_ai themselves on the packaged SmolLM2
(offline, greedy), give lexbench's verdicts item by item, for every benchmark, in lexbench's
prompt mode (SetLexSem in the chat format, the others as completions).

Each tool loads the model once for all benchmarks: lm-eval's `hf` model is one object given
to `simple_evaluate` (twice: with and without its chat template), inspect_ai evaluates all
tasks in one `eval` per prompt mode; lexbench runs each slice on one loaded model. The
slices are a stratum or two per benchmark (items: LAMBDA 6, SCAN 65, Google 14, E-KAR 3,
SetLexSem 16, SAT 6).

Measured (2026-11-28, 2 shared cores at load 11-17, caches warm): the 11 tests in 41 min
wall, 12 min 11 s user CPU, of which lm-eval's evaluator 252 s CPU and inspect_ai's 38 s
(printed with -s); the rest is lexbench's runs, the exports and the imports.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from lexbench.export.agreement import export_slices, inspect_in_process, lm_eval_in_process
from lexbench.export.tool_runs import transformers_folder
from lexbench.export.verify import Agreement, lexbench_verdicts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: A stratum or two of each benchmark (export options).
SLICES: dict[str, dict[str, Any]] = {
    "lambda": {"per_relation": 2, "progress": False},
    "scan": {"limit": 1, "types": ["science"]},
    "google": {"limit_per_relation": 1},
    "ekar": {"data": str(FIXTURES / "ekar" / "english"), "split": "test"},
    "setlexsem": {
        "grid": "small",
        "select": ["operation=intersection", "m=2", "token_type=numbers", "token_length=2"],
        "limit": 2,
    },
    "sat": {"data": str(FIXTURES / "export" / "sat_mini.jsonl")},
}
INSPECT_BENCHMARKS = ["lambda", "scan", "google", "ekar", "setlexsem"]  # SAT: no generation


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[tuple[str, str], Path]:
    root = tmp_path_factory.mktemp("real exports")
    return export_slices(SLICES, root, skip={"inspect": set(SLICES) - set(INSPECT_BENCHMARKS)})


@pytest.fixture(scope="module")
def model_folder(user_cache_root) -> Path:
    return transformers_folder("smollm2-135m")


def _folders(exported, fmt: str) -> dict[str, Path]:
    return {benchmark: folder for (benchmark, kind), folder in exported.items() if kind == fmt}


@pytest.fixture(scope="module")
def lm_eval_runs(exported, model_folder) -> dict[str, Any]:
    started = time.process_time()
    verdicts = lm_eval_in_process(_folders(exported, "lm-eval"), model_folder)
    print(f"lm-eval on all slices: {time.process_time() - started:.1f} s CPU")
    return verdicts


@pytest.fixture(scope="module")
def inspect_runs(exported, model_folder, tmp_path_factory) -> dict[str, Any]:
    started = time.process_time()
    logs = tmp_path_factory.mktemp("inspect logs")
    verdicts = inspect_in_process(_folders(exported, "inspect"), model_folder, logs)
    print(f"inspect_ai on all slices: {time.process_time() - started:.1f} s CPU")
    return verdicts


@pytest.fixture(scope="module")
def lexbench_runs(exported, smollm2, tmp_path_factory) -> dict[tuple[str, str], Any]:
    return {
        key: lexbench_verdicts(
            folder, smollm2, tmp_path_factory.mktemp("runs"), graded=key[1] == "inspect"
        )
        for key, folder in exported.items()
    }


def _agreement(benchmark, tool, theirs, ours) -> Agreement:
    agreement = Agreement(benchmark, tool, theirs, ours)
    assert not agreement.differing, "\n".join(agreement.lines())
    assert len(agreement.item_ids) == len(ours) > 0
    return agreement


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", sorted(SLICES))
def test_lm_eval_on_the_real_model_gives_lexbench_verdicts(benchmark, lm_eval_runs, lexbench_runs):
    _agreement(benchmark, "lm-eval", lm_eval_runs[benchmark], lexbench_runs[(benchmark, "lm-eval")])


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", INSPECT_BENCHMARKS)
def test_inspect_on_the_real_model_gives_lexbench_verdicts(benchmark, inspect_runs, lexbench_runs):
    ours = lexbench_runs[(benchmark, "inspect")]
    agreement = _agreement(benchmark, "inspect_ai", inspect_runs[benchmark], ours)
    # inspect gives graded values too (the reciprocal rank of the ranking sets): equal
    assert all(v.value is not None for v in agreement.theirs.values())
