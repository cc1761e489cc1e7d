"""Run folders -> the Results page's numbers (the `results` of measurements/records/results_page.json).

For every benchmark and condition (LAMBDA's two prompt styles; one condition elsewhere),
per model: the leaderboard's headline with its 95% interval (`lexbench.report.leaderboard`),
what the model answered when it was wrong (the benchmark's error classes in samples.jsonl,
the format-failure share, the reasons the parser gave, one real example), the paired tests
between the models (`lexbench.report.compare`), and the papers' published rows beside them
(`lexbench.report.published.published_for_run`): the comparable headline rows with their N
and interval, and those not comparable with each difference named.

Everything is plain JSON (no NaN: a missing number is null) keyed by name, so a figure on
the page is a dotted path into the record (measurements/figures.toml).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

#: Error classes that mean "not an answer of the expected form" in each benchmark's taxonomy:
#: LAMBDA's format_failure (prose or scaffolding) and no_answer (no word at all), SetLexSem's
#: format_failure (no readable set), E-KAR's and the choice sets' unparsed.
FORMAT_CLASSES = ("format_failure", "no_answer", "unparsed")
#: Below this headline (5% accuracy, MRR@10 0.05) the page says what the model answered.
NEAR_ZERO = 0.05
#: How much of a model's answer the page quotes.
QUOTE = 160


def finite(value: Any) -> float | None:
    """A number for JSON: None for NaN, infinity or anything not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def model_key(run: Any) -> str:
    """The model as the command named it (`glove`), else the backend's name for it."""
    request = run.config.get("request")
    if isinstance(request, dict) and request.get("model"):
        return str(request["model"])
    return str(run.model_name)


def condition_key(run: Any) -> str:
    """The condition a run belongs to: LAMBDA's prompt style; "" for one condition."""
    benchmark = run.config.get("benchmark")
    style = benchmark.get("prompt_style") if isinstance(benchmark, dict) else None
    return str(style) if style else ""


def _quote(text: Any) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= QUOTE else text[:QUOTE] + "…"


def _words(value: Any) -> str:
    """A gold answer or an accepted set as a short list ("a, b, c")."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _ranked(sample: dict[str, Any], top: int = 3) -> str:
    tokens = [entry[1] for entry in sample.get("ranked") or [] if len(entry) > 1]
    return ", ".join(repr(t) for t in tokens[:top])


def example(benchmark: str, sample: dict[str, Any]) -> dict[str, str]:
    """One sample as the page quotes it: what was asked, answered, and expected."""
    prompt = str(sample.get("prompt") or "")
    lines = [line for line in prompt.splitlines() if line.strip()]
    asked = lines[-1] if lines else ""
    answered = _quote(sample.get("output"))
    expected = _words(sample.get("gold"))
    if benchmark == "lambda":
        support = "; ".join(f"{a} : {b}" for a, b in sample.get("support") or [])
        asked = f"{support}; {sample.get('query')} : ?"
        expected = _words(sample.get("candidates"))
    elif benchmark == "setlexsem":
        operation = str(sample.get("operation", "")).replace("_", " ")
        a, b = (_words(sample.get(key)) for key in ("set_a", "set_b"))
        asked = f"the {operation} of A = {{{a}}} and B = {{{b}}}"
        expected = _words(sample.get("answer"))
        expected = "{" + expected + "}" if expected else "the empty set"
    elif "ranked" in sample:  # a ranking set: its prompt is the analogy, its answer a ranking
        asked = prompt or f"{sample.get('a')} : {sample.get('b')} :: {sample.get('c')} : ?"
        answered = _ranked(sample)
        expected = _words([sample.get("d"), *(sample.get("alternatives") or [])])
    elif benchmark == "hypernyms":
        expected = _words(sample.get("accepted"))
    return {
        "id": str(sample.get("id", "")),
        "asked": _quote(asked),
        "answered": answered,
        "expected": _quote(expected),
    }


def answers(benchmark: str, samples: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What a model answered: the classes of its wrong answers, the format failures among
    them (and the parser's reasons), and one example of the commonest wrong class."""
    scored = [s for s in samples if s.get("correct") is not None]
    wrong = [s for s in scored if not s.get("correct")]
    classes = Counter(str(s.get("error_class") or "unclassified") for s in wrong)
    failures = [s for s in wrong if s.get("error_class") in FORMAT_CLASSES]
    reasons = Counter(str(s["format_error"]) for s in failures if s.get("format_error"))
    found: dict[str, Any] = {
        "scored": len(scored),
        "wrong": len(wrong),
        "classes": dict(classes.most_common()),
        "format_failures": len(failures),
        "format_share": len(failures) / len(scored) if scored else None,
        "format_reasons": dict(reasons.most_common()),
        "example": None,
    }
    if wrong:
        commonest = classes.most_common(1)[0][0]
        first = next(s for s in wrong if str(s.get("error_class") or "unclassified") == commonest)
        found["example"] = {"class": commonest, **example(benchmark, first)}
    return found


def cell(run: Any) -> dict[str, Any]:
    """One run's cell of the page."""
    from lexbench.report.leaderboard import headline

    row = headline(run)
    failed = sum(1 for s in run.samples if s.get("error"))
    found = {
        "model": model_key(run),
        "name": run.model_name,
        "label": run.label,
        "run": str(Path(*run.path.parts[-3:])),
        "metric": row.metric,
        "n": row.scored,
        "estimate": finite(row.estimate),
        "low": finite(row.low),
        "high": finite(row.high),
        "interval": "Wilson" if row.metric == "accuracy" else "clustered by mapping",
        "acc_at_1": finite(_number(row.extra.get("acc@1"))),
        "failed_requests": failed,
        "answers": answers(run.benchmark, run.samples),
        # A ranking set's answer is a ranking of tokens, which has no format to fail.
        "ranking": any("ranked" in s for s in run.samples),
    }
    found["near_zero"] = found["estimate"] is not None and found["estimate"] < NEAR_ZERO
    return found


def _number(text: Any) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def comparisons(runs: Sequence[Any]) -> list[dict[str, Any]]:
    """The paired tests between the models' runs of one condition (none for one run)."""
    from lexbench.report.compare import compare_runs

    if len(runs) < 2:
        return []
    models = {run.label: model_key(run) for run in runs}
    result = compare_runs(list(runs)).to_dict()
    out = []
    for pair in result["comparisons"]:
        difference = pair["difference"]
        out.append(
            {
                "a": models.get(pair["a"], pair["a"]),
                "b": models.get(pair["b"], pair["b"]),
                "metric": pair["metric"],
                "family": pair.get("family", ""),
                "test": pair["test"],
                "items": pair.get("used", pair.get("shared")),
                "mean_a": finite(pair["mean_a"]),
                "mean_b": finite(pair["mean_b"]),
                "difference": finite(difference["estimate"]),
                "low": finite(difference["low"]),
                "high": finite(difference["high"]),
                "only_a": pair.get("only_a"),
                "only_b": pair.get("only_b"),
                "p": finite(pair["p_value"]),
                "p_holm": finite(pair["p_holm"]),
            }
        )
    return out


def skipped(lines: Iterable[str]) -> list[dict[str, Any]]:
    """`skipped BENCH (MODEL): REASON` lines of `run all`, one entry per benchmark and
    reason with its models; a failed download said in a few words (the URL is in the run's
    output)."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for line in lines:
        head, _, reason = line.removeprefix("skipped ").partition(": ")
        benchmark, _, model = head.partition(" (")
        if reason.startswith("could not download"):
            reason = "its data is downloaded on first use, and this machine is offline"
        grouped.setdefault((benchmark, reason), []).append(model.rstrip(")"))
    return [
        {"benchmark": benchmark, "models": models, "reason": reason}
        for (benchmark, reason), models in grouped.items()
    ]


def _paper_first(item: tuple[str, Any]) -> tuple[bool, str]:
    return item[0] not in ("paper", ""), item[0]


def summarise_runs(out: Path, *, models: Sequence[str], order: Sequence[str]) -> dict[str, Any]:
    """Every run folder under `out` (a comparison's or a report's folder is not one), by
    benchmark (in `order`, then any other) and condition, models in `models` order."""
    from results_published import published

    from lexbench.report.runs import discover, load_runs

    folders = [f for f in discover([out]) if not {"suite", "compare"} & set(f.parts)]
    runs = load_runs(folders)
    rank = {name: i for i, name in enumerate(order)}
    position = {name: i for i, name in enumerate(models)}
    runs.sort(key=lambda r: (position.get(model_key(r), len(position)), model_key(r)))
    grouped: dict[str, dict[str, list[Any]]] = {}
    for run in runs:
        grouped.setdefault(run.benchmark, {}).setdefault(condition_key(run), []).append(run)
    benchmarks: dict[str, Any] = {}
    for benchmark in sorted(grouped, key=lambda b: (rank.get(b, len(rank)), b)):
        conditions = {}
        for condition, members in sorted(grouped[benchmark].items(), key=_paper_first):
            conditions[condition or "default"] = {
                "cells": {model_key(run): cell(run) for run in members},
                "comparisons": comparisons(members),
                "published": published(members),
            }
        benchmarks[benchmark] = conditions
    return {"models": list(models), "benchmarks": benchmarks}
