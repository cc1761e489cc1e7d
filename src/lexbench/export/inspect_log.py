"""A lexbench run folder as an inspect_ai eval log, written through inspect_ai's own log API
(`EvalLog`, `write_eval_log`), so `inspect view` browses lexbench's runs.

    lexbench export-log runs/scan --format inspect -o logs
    inspect view --log-dir logs

One sample per item: lexbench's prompt as the input (the prompt text, also where a chat run
wrapped it in the model's chat template), the raw output as the model's reply, the target
(the item's gold answer), and a score whose value is lexbench's verdict (`correct`) and
graded value (`value`), whose answer is the parsed answer and whose metadata holds the
error class and the score's details. The run's config.json is the log's metadata (its model
named `lexbench/NAME`); the headline numbers of results.json (the plain numbers of its
`overall` block) are the log's results.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: samples.jsonl fields that name what an item accepts, in the order they are looked for.
TARGET_FIELDS = ("gold", "golds", "target", "targets", "expected", "answer_key", "answer")
SCORER = "lexbench"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def sample_target(sample: Mapping[str, Any]) -> str | list[str]:
    for name in TARGET_FIELDS:
        value = sample.get(name)
        if value not in (None, "", []):
            return [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value)
    return ""


def sample_output(sample: Mapping[str, Any]) -> str:
    """The model's raw answer: the generated text, else the top-ranked token(s), else the
    most likely choice."""
    if isinstance(sample.get("output"), str):
        return str(sample["output"])
    response = (sample.get("responses") or [{}])[0]
    if response.get("text") is not None:
        return str(response["text"])
    ranked = response.get("ranked") or []
    if ranked:
        return " | ".join(_text(t.get("text") if isinstance(t, dict) else t) for t in ranked)
    if response.get("error"):
        return f"(error: {response['error']})"
    return _text(sample.get("output"))


def _messages(sample: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

    prompt = sample.get("prompt")
    if prompt is None:
        prompt = ((sample.get("responses") or [{}])[0]).get("prompt", "")
    user = ChatMessageUser(content=_text(prompt))
    reply = ChatMessageAssistant(content=sample_output(sample), source="generate")
    return _text(prompt), [user, reply]


def eval_sample(sample: Mapping[str, Any], model: str) -> Any:
    """One samples.jsonl line as an inspect_ai `EvalSample`."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    prompt, messages = _messages(sample)
    correct = sample.get("correct")
    value = sample.get("value")
    score = Score(
        value={
            "correct": None if correct is None else float(bool(correct)),
            "value": None if value is None else float(value),
        },
        answer=None if sample.get("answer") is None else _text(sample.get("answer")),
        explanation=f"error class: {sample.get('error_class', '')}",
        metadata={
            "error_class": sample.get("error_class"),
            "details": sample.get("details"),
        },
    )
    output = ModelOutput.from_content(model, sample_output(sample))
    output.choices[0].message = messages[1]
    return EvalSample(
        id=str(sample["id"]),
        epoch=1,
        input=prompt,
        target=sample_target(sample),
        messages=messages,
        output=output,
        scores={SCORER: score},
        metadata={
            k: v for k, v in sample.items() if k not in ("responses", "prompt", "output", "id")
        },
    )


def _headline(results: Mapping[str, Any]) -> dict[str, float]:
    """The run's headline numbers: the plain numbers of results.json's `overall` block."""
    overall = results.get("overall", results)
    if not isinstance(overall, Mapping):
        return {}
    return {
        str(k): float(v)
        for k, v in overall.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }


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
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
    )

    from lexbench import __version__

    benchmark = str(config.get("run_options", {}).get("benchmark") or source.parent.parent.name)
    described = config.get("model", {})
    model = f"lexbench/{described.get('name', source.parent.name)}"
    created = _created(config, source)
    spec = EvalSpec(
        created=created,
        task=f"lexbench_{benchmark}",
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
    )
    metrics = {
        name: EvalMetric(name=name, value=value) for name, value in _headline(results).items()
    }
    scored = sum(1 for s in samples if s.get("correct") is not None)
    eval_results = EvalResults(
        total_samples=len(samples),
        completed_samples=len(samples),
        scores=[
            EvalScore(
                name=SCORER,
                scorer=SCORER,
                scored_samples=scored,
                unscored_samples=len(samples) - scored,
                metrics=metrics,
            )
        ],
    )
    return EvalLog(
        version=2,
        status="success",
        eval=spec,
        results=eval_results,
        stats=EvalStats(started_at=created, completed_at=created),
        samples=[eval_sample(s, model) for s in samples],
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
