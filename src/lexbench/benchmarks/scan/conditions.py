"""SCAN in several conditions at once, as the paper's Table 2 sets them side by side: the
model at each shot count (`--shots 0 1`) and a baseline (`--baseline glove`), each its own
run (a cell of one plan, `lexbench.plan`), then one combined report with the paper's
unpaired permutation test (10^6 resamples) and a paired one between every two conditions.

Each condition keeps its ordinary run folder (so `lexbench compare` works on any two); the
combined report goes to runs/scan-comparison/<model>/<hash>/ (report.md, results.json,
config.json, figures/mrr_by_type.png).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.tables import comparison_markdown, mrr_figure, paired_mrr_test
from lexbench.benchmarks.scan.benchmark import SCAN_TYPES
from lexbench.plan import CellRun, Condition
from lexbench.request import RunRequest


def check_shots(shots: Sequence[int]) -> None:
    if not shots:
        raise ValueError("SCAN's comparison needs at least one shot condition")
    if len(set(shots)) != len(shots):
        raise ValueError(f"shot conditions repeat: {list(shots)}")
    for k in shots:
        if k < 0:
            raise ValueError(f"--shots takes counts of 0 or more, got {k}")


def scan_conditions(
    request: RunRequest,
    shots: Sequence[int],
    baseline: str | None = None,
    baseline_method: str | None = None,
    baseline_options: Mapping[str, Any] | None = None,
) -> list[Condition]:
    """One condition per shot count, then the baseline on its own model (zero-shot, its
    vector method; its own model options)."""
    check_shots(shots)
    conditions = [Condition(f"{k}-shot", request.with_options(shots=k)) for k in shots]
    if baseline is not None:
        base = replace(
            request.with_options(shots=0, method=baseline_method),
            model=baseline,
            model_options=dict(baseline_options or {}),
        )
        conditions.append(Condition("baseline", base, own_model=True))
    return conditions


def condition_label(config: Mapping[str, Any]) -> str:
    """A condition's name in the combined report: the model and its shots, or a word-vector
    model and its method."""
    model = config.get("model") or {}
    benchmark = config.get("benchmark") or {}
    if "analogy" in (model.get("kinds") or ()):
        return f"{model.get('name')} ({benchmark.get('method')})"
    return f"{model.get('name')} {benchmark.get('shots')}-shot"


def combine(
    ran: Sequence[CellRun],
    *,
    resamples: int = 100_000,
    unpaired_resamples: int = 1_000_000,
    seed: int = 0,
    out: str | Path = "runs",
) -> dict[str, Any]:
    """The combined report of the conditions that ran (plan order); returns {"folder",
    "report", "results"}."""
    from lexbench.run.files import write_json
    from lexbench.run.store import read_run, run_folder

    configs = {}
    runs: dict[str, Any] = {}
    for done in ran:
        config = json.loads(Path(done.evaluation.folder.config_path).read_text())
        label = condition_label(config)
        if label in runs:
            raise ValueError(f"the baseline {label!r} is one of the model's own conditions")
        runs[label] = done.evaluation
        configs[label] = config
    samples = {label: read_run(e.folder.path)[1] for label, e in runs.items()}
    labels = list(runs)
    tests: dict[str, Any] = {}
    for i, first in enumerate(labels):
        for second in labels[i + 1 :]:
            tests[f"{first} vs {second}"] = paired_mrr_test(
                samples[first],
                samples[second],
                resamples=resamples,
                seed=seed,
                unpaired_resamples=unpaired_resamples,
            )
    conditions = {label: e.results for label, e in runs.items()}
    folders = {label: str(e.folder.path) for label, e in runs.items()}
    asked = ran[0].cell.request
    types = asked.options.get("types")
    config = {
        "benchmark": "scan-comparison",
        "conditions": folders,
        "resamples": resamples,
        "unpaired_resamples": unpaired_resamples,
        "seed": seed,
        "shots": [
            done.cell.request.options.get("shots")
            for done in ran
            if done.cell.condition != "baseline"
        ],
        "limit": asked.limit if asked.limit is not None else asked.options.get("limit"),
        "types": list(types) if types else list(SCAN_TYPES),
        "configs": configs,
    }
    target = run_folder(
        out,
        "scan-comparison",
        labels[0].split(" ")[0],
        {
            "runs": folders,
            "resamples": resamples,
            "seed": seed,
            "unpaired_resamples": unpaired_resamples,
        },
    )
    results = {
        "benchmark": "scan-comparison",
        "conditions": conditions,
        "tests": tests,
        "folders": folders,
    }
    report = comparison_markdown(f"SCAN: {', '.join(labels)}", conditions, tests, folders)
    write_json(target.config_path, config)
    write_json(target.results_path, results)
    target.report_path.write_text(report, encoding="utf-8")
    mrr_figure(target.path / "figures" / "mrr_by_type.png", conditions, title="SCAN MRR@10 by type")
    return {"folder": target.path, "report": report, "results": results}


def compare_scan(
    model: Any = "smollm2-135m",
    *,
    shots: Sequence[int] = (0, 1),
    baseline: Any = None,
    baseline_method: str | None = None,
    data: str | Path | None = None,
    seed: int = 0,
    limit: int | None = None,
    types: Sequence[str] | None = None,
    model_options: Mapping[str, Any] | None = None,
    baseline_options: Mapping[str, Any] | None = None,
    resamples: int = 100_000,
    unpaired_resamples: int = 1_000_000,
    out: str | Path = "runs",
    cache: Any = None,
    use_cache: bool = True,
    progress: bool = True,
) -> dict[str, Any]:
    """Run the model in each shot condition (and the baseline), then write one combined
    report (the module docstring): the Python face of `lexbench run scan --shots 0 1
    --baseline glove`. `model` and `baseline` are specs or opened `Model`s."""
    from lexbench.models.base import Model
    from lexbench.plan import expand, run_plan

    opened = {m.name: m for m in (model, baseline) if isinstance(m, Model)}

    def spec(value: Any) -> str | None:
        return value.name if isinstance(value, Model) else value

    request = RunRequest(
        "scan",
        options={"seed": seed, "types": types, "limit": limit, "data": data},
        model_options=dict(model_options or {}) if not isinstance(model, Model) else {},
        out=Path(out),
        use_cache=use_cache,
        progress=progress,
    )
    conditions = scan_conditions(
        request,
        shots,
        spec(baseline),
        baseline_method,
        baseline_options if not isinstance(baseline, Model) else None,
    )
    plan = expand(conditions, [str(spec(model))])
    outcome = run_plan(plan, cache=cache, opened=opened)
    return combine(
        outcome.ran,
        resamples=resamples,
        unpaired_resamples=unpaired_resamples,
        seed=seed,
        out=out,
    )
