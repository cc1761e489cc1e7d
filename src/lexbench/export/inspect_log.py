"""A lexbench run folder as an inspect_ai eval log, written through inspect_ai's own log API
(`EvalLog`, `write_eval_log`), so `inspect view` browses lexbench's runs.

    lexbench export-log runs/scan --format inspect
    inspect view --log-dir logs

The task is named by the benchmark (`scan`), the model `lexbench/NAME`. One sample per item:
lexbench's prompt as the input, the model's reply (the generated text, the ranked tokens of
a ranking request, the chosen option of a log-likelihood request; `log_view`), the target
(what the item accepts: LAMBDA's set R(E)), and a score whose value is lexbench's verdict
(`correct`) and graded value (`value`), whose answer is the parsed answer and whose metadata
holds the error class and the score's details; a sample whose request failed carries the
failure as its error and no score. The log's scores are the benchmark's headline metric
first (MRR@10 or accuracy, the viewer's SCORE column), then the run's other numbers; a run
whose requests failed is an `error` log with the reason (`log_results`). The run's
config.json is the log's metadata.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lexbench.export.log_results import OTHER_SCORE, SCORER, Metric, Outcome, outcome
from lexbench.export.log_view import (
    failure,
    sample_answer,
    sample_input,
    sample_reply,
    sample_target,
)
from lexbench.parts import LoadedRun


def eval_sample(sample: Mapping[str, Any], model: str, benchmark: str) -> Any:
    """One samples.jsonl line as an inspect_ai `EvalSample`."""
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    prompt = sample_input(sample)
    reply = sample_reply(sample, benchmark)
    failed = failure(sample)
    messages: list[Any] = [ChatMessageUser(content=prompt)]
    output = ModelOutput(model=model)
    if not failed:
        messages.append(ChatMessageAssistant(content=reply, source="generate"))
        output = ModelOutput.from_content(model, reply)
        output.choices[0].message = messages[-1]
    scores = None
    if sample.get("correct") is not None or not failed:
        correct, value = sample.get("correct"), sample.get("value")
        scores = {
            SCORER: Score(
                value={
                    "correct": None if correct is None else float(bool(correct)),
                    "value": None if value is None else float(value),
                },
                answer=sample_answer(sample, benchmark),
                explanation=f"error class: {sample.get('error_class', '')}",
                metadata={
                    "error_class": sample.get("error_class"),
                    "details": sample.get("details"),
                },
            )
        }
    return EvalSample(
        id=str(sample["id"]),
        epoch=1,
        input=prompt,
        target=sample_target(sample, benchmark),
        messages=messages,
        output=output,
        scores=scores,
        error=EvalError(message=failed, traceback="", traceback_ansi="") if failed else None,
        metadata={
            k: v for k, v in sample.items() if k not in ("responses", "prompt", "output", "id")
        },
    )


def _metrics(metrics: list[Metric]) -> dict[str, Any]:
    from inspect_ai.log import EvalMetric

    return {m.name: EvalMetric(name=m.name, value=m.value) for m in metrics}


def eval_results(result: Outcome, samples: list[dict[str, Any]]) -> Any:
    """The log's results: the headline's score first (and declared the headline), then the
    run's other numbers; no score when nothing was scored because the requests failed."""
    from inspect_ai.log import EvalResults, EvalScore, HeadlineMetric

    completed = sum(1 for s in samples if not failure(s))
    if not result.headline:
        return EvalResults(total_samples=len(samples), completed_samples=completed, scores=[])
    scored = sum(1 for s in samples if s.get("correct") is not None)
    headline = result.headline[0].name
    scores = [
        EvalScore(
            name=headline,
            scorer=SCORER,
            scored_samples=scored,
            unscored_samples=len(samples) - scored,
            metrics=_metrics(result.headline),
        )
    ]
    if result.others:
        scores.append(EvalScore(name=OTHER_SCORE, scorer=SCORER, metrics=_metrics(result.others)))
    return EvalResults(
        total_samples=len(samples),
        completed_samples=completed,
        scores=scores,
        headline=HeadlineMetric(scorer=SCORER, score=headline, metric=headline),
        metadata={"lexbench_failures": result.flag} if result.flag else None,
    )


def benchmark_of(config: Mapping[str, Any], results: Mapping[str, Any], source: Path) -> str:
    """The run's benchmark: results.json's `benchmark` (what every report reads), else the
    config's, else the folder layout's (runs/BENCHMARK/MODEL/HASH)."""
    named = results.get("benchmark") or (config.get("benchmark") or {}).get("name")
    named = named or config.get("run_options", {}).get("benchmark")
    return str(named or source.resolve().parent.parent.name)


def eval_log(
    config: Mapping[str, Any],
    samples: list[dict[str, Any]],
    results: Mapping[str, Any],
    source: Path,
) -> Any:
    """A run folder's three files as an inspect_ai `EvalLog`."""
    from inspect_ai import __version__ as inspect_version
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalSpec,
        EvalStats,
        HeadlineMetric,
    )

    from lexbench import __version__

    benchmark = benchmark_of(config, results, source)
    described = config.get("model", {})
    model = f"lexbench/{described.get('name', source.parent.name)}"
    created = _created(config, source)
    run = LoadedRun(source, dict(config), samples, dict(results), "", model)
    result = outcome(run)
    headline = result.headline[0].name if result.headline else None
    spec = EvalSpec(
        created=created,
        task=benchmark,
        task_display_name=benchmark,
        task_id=source.name,
        run_id=source.name,
        eval_id=source.name,
        task_file=str(source),
        dataset=EvalDataset(
            name=benchmark,
            location=str(source / "samples.jsonl"),
            samples=len(samples),
            sample_ids=[str(s["id"]) for s in samples],
        ),
        model=model,
        config=EvalConfig(),
        packages={"lexbench": __version__, "inspect_ai": inspect_version},
        metadata={"lexbench_config": dict(config), "lexbench_run": str(source)},
        headline_metric=HeadlineMetric(scorer=SCORER, score=headline, metric=headline)
        if headline
        else None,
    )
    return EvalLog(
        version=2,
        status=result.status,
        eval=spec,
        results=eval_results(result, samples),
        stats=EvalStats(started_at=created, completed_at=created),
        error=EvalError(message=result.error, traceback="", traceback_ansi="")
        if result.error
        else None,
        samples=[eval_sample(s, model, benchmark) for s in samples],
    )


def _created(config: Mapping[str, Any], source: Path) -> str:
    for key in ("created", "started", "finished"):
        value = config.get(key) or config.get("timing", {}).get(key)
        if isinstance(value, str):
            return value
    stamp = (source / "samples.jsonl").stat().st_mtime
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")


def write_inspect_logs(runs: Iterable[str | Path], out_dir: str | Path) -> list[Path]:
    """Write each run folder (or the run folders below each path) as an `.eval` log in
    `out_dir`; returns the files written."""
    from inspect_ai.log import write_eval_log

    from lexbench.report.runs import discover
    from lexbench.run.store import read_run

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for folder in discover(runs):
        config, samples, results = read_run(folder)
        log = eval_log(config, samples, results, folder)
        name = f"{log.eval.created.replace(':', '-')}_{log.eval.task}_{folder.name}.eval"
        path = out / name.replace("/", "-")
        write_eval_log(log, str(path))
        written.append(path)
    return written
