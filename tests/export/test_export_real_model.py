"""The exported tasks, run by lm-eval and by inspect_ai themselves on the packaged SmolLM2
(offline, greedy), give lexbench's verdicts item by item, for every benchmark, in lexbench's
prompt mode (SetLexSem in the chat format, the others as completions).

Each tool loads the model once for all benchmarks: lm-eval's `hf` model is one object given
to `simple_evaluate` (twice: with and without its chat template), inspect_ai evaluates all
tasks in one `eval` per prompt mode; lexbench runs each slice on one loaded model. The
slices are a stratum or two per benchmark.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from lexbench.export.command import export
from lexbench.export.tool_runs import (
    inspect_verdicts,
    lm_eval_tasks,
    lm_eval_verdicts,
    manifest_of,
    transformers_folder,
)
from lexbench.export.verify import Agreement, lexbench_verdicts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: A stratum or two of each benchmark (export options).
SLICES: dict[str, dict[str, Any]] = {
    "lambda": {"per_relation": 2, "progress": False},
    "scan": {"limit": 1},
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
    folders = {}
    for benchmark, options in SLICES.items():
        for fmt in ("lm-eval", "inspect"):
            if fmt == "inspect" and benchmark not in INSPECT_BENCHMARKS:
                continue
            folder = root / f"{benchmark} {fmt}"
            export(benchmark, dict(options), fmt, folder)
            folders[(benchmark, fmt)] = folder
    return folders


@pytest.fixture(scope="module")
def model_folder(user_cache_root) -> Path:
    return transformers_folder("smollm2-135m")


def _chat(folder: Path) -> bool:
    return manifest_of(folder)["prompt_mode"] == "chat"


@pytest.fixture(scope="module")
def lm_eval_runs(exported, model_folder) -> dict[str, Any]:
    """{benchmark: verdicts}: lm-eval's own evaluator on every exported lm-eval task."""
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    started = time.process_time()
    model = HFLM(pretrained=str(model_folder), batch_size=16, device="cpu", dtype="float32")
    folders = {b: f for (b, fmt), f in exported.items() if fmt == "lm-eval"}
    verdicts: dict[str, Any] = {}
    for chat in (False, True):
        chosen = {b: f for b, f in folders.items() if _chat(f) == chat}
        results = lm_eval.simple_evaluate(
            model=model,
            tasks=[task for folder in chosen.values() for task in lm_eval_tasks(folder)],
            # lm-eval's command line puts --model_args in the metadata; so do we.
            task_manager=TaskManager(
                include_path=[str(f) for f in chosen.values()],
                include_defaults=False,
                metadata={"pretrained": str(model_folder)},
            ),
            apply_chat_template=chat,
            log_samples=True,
        )
        for task, samples in results["samples"].items():
            benchmark = next(b for b in chosen if task.startswith(f"lexbench_{b}"))
            verdicts.setdefault(benchmark, {}).update(lm_eval_verdicts(samples))
    print(f"lm-eval on all slices: {time.process_time() - started:.1f} s CPU")
    return verdicts


@pytest.fixture(scope="module")
def inspect_runs(exported, model_folder, tmp_path_factory) -> dict[str, Any]:
    """{benchmark: verdicts}: inspect_ai's own eval on every exported inspect task."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from lexbench.export.inspect_task import lexbench_task, model_args

    started = time.process_time()
    folders = {b: f for (b, fmt), f in exported.items() if fmt == "inspect"}
    verdicts = {}
    for chat in (False, True):
        chosen = {b: f for b, f in folders.items() if _chat(f) == chat}
        model = get_model(f"hf/{model_folder}", **model_args(chat))
        logs = inspect_eval(
            [lexbench_task(f) for f in chosen.values()],
            model=model,
            display="none",
            log_dir=str(tmp_path_factory.mktemp("inspect logs")),
        )
        for log in logs:
            benchmark = log.eval.task.removeprefix("lexbench_")
            verdicts[benchmark] = inspect_verdicts(log)
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
