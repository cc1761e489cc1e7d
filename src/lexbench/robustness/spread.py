"""The spread of accuracy across runs of one design: fresh item sets (`kind="sets"`: mean,
SD and t interval over the fresh sets, the published set placed among them) or wordings
(`kind="prompts"`: the same over every wording, the paper's placed among them, and a
bootstrap interval over items per wording). Per cell too: the values of the benchmark's
`spread_fields` in the samples (a relation, an operation, a token type).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench import parts
from lexbench.parts import NOT_AVAILABLE
from lexbench.robustness.stats import published_position, sample_sd, t_interval
from lexbench.stats import bootstrap_interval

OVERALL = "overall"
SCORE_LABEL = "score (mean value ×100)"


@dataclass(frozen=True)
class Member:
    """One run of the spread: its label ("seed 3", "guard"), folder, whether it is the
    published one, and its samples' `correct` values with their cells."""

    label: str
    folder: Path
    published: bool
    correct: tuple[bool, ...]
    cells: tuple[tuple[str, ...], ...]  # per sample, the cells it counts in
    values: tuple[float, ...] = ()  # per sample, its graded value (MRR's reciprocal rank)


def cells_of(sample: Mapping[str, Any], fields: Sequence[str]) -> tuple[str, ...]:
    """The cells a sample counts in: "relation=synonym", "token_type+operation=words+union"."""
    out = []
    for spec in fields:
        parts = spec.split("+")
        if all(p in sample for p in parts):
            out.append(f"{spec}=" + "+".join(str(sample[p]) for p in parts))
    return tuple(out)


def member_from_samples(
    label: str,
    folder: Path,
    published: bool,
    samples: Sequence[Mapping[str, Any]],
    fields: Sequence[str],
) -> Member:
    scored = [s for s in samples if s.get("correct") is not None]
    return Member(
        label,
        folder,
        published,
        tuple(bool(s["correct"]) for s in scored),
        tuple(cells_of(s, fields) for s in scored),
        tuple(_value(s) for s in scored),
    )


def _value(sample: Mapping[str, Any]) -> float:
    value = sample.get("value")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
        return float(value)
    return float(bool(sample["correct"]))


def mean_value(member: Member) -> float:
    return sum(member.values) / len(member.values) if member.values else math.nan


def graded(members: Sequence[Member]) -> bool:
    """Whether any sample's value is other than its right/wrong (a ranking score)."""
    return any(v != float(c) for m in members for v, c in zip(m.values, m.correct))


def accuracy(member: Member, cell: str = OVERALL) -> float:
    hits = [c for c, cells in zip(member.correct, member.cells) if cell == OVERALL or cell in cells]
    return sum(hits) / len(hits) if hits else math.nan


def _summary(values: Sequence[float], published: float, others: Sequence[float]) -> dict[str, Any]:
    """Mean, SD and t interval of `values`; the published run placed among `others`."""
    interval = t_interval(values)
    # Every value here is a proportion (an accuracy, a mean of values in [0, 1]): so is
    # its interval, which a t interval over few sets would push below 0 or above 1.
    return {
        "mean": interval.estimate,
        "sd": sample_sd(values),
        "low": max(0.0, interval.low) if interval.low == interval.low else interval.low,
        "high": min(1.0, interval.high) if interval.high == interval.high else interval.high,
        "n": interval.n,
        **{k: v for k, v in published_position(published, others).items() if k != "method"},
    }


def summarise(kind: str, members: Sequence[Member], bootstrap: bool = False) -> dict[str, Any]:
    """The spread record (without identity fields): per member its accuracies, and per cell
    the summary. For sets the summary is over the fresh sets and places the published one
    among them; for wordings it is over every wording and places the paper's among the
    others."""
    (published,) = [m for m in members if m.published]
    others = [m for m in members if not m.published]
    compared = others if kind == "sets" else list(members)
    cells = sorted({c for m in members for cells in m.cells for c in cells})
    summary = {}
    for cell in [OVERALL, *cells]:
        summary[cell] = _summary(
            [accuracy(m, cell) for m in compared],
            accuracy(published, cell),
            [accuracy(m, cell) for m in others],
        )
    if graded(members):  # the benchmark's own score too (MRR@10 for the ranking sets)
        summary["score"] = _summary(
            [mean_value(m) for m in compared],
            mean_value(published),
            [mean_value(m) for m in others],
        )
    rows = []
    for m in members:
        row: dict[str, Any] = {
            "label": m.label,
            "folder": str(m.folder),
            "published": m.published,
            "scored": len(m.correct),
            "accuracy": accuracy(m),
            **({"score": mean_value(m)} if "score" in summary else {}),
            "cells": {cell: accuracy(m, cell) for cell in cells},
        }
        if bootstrap and m.correct:
            interval = bootstrap_interval([float(c) for c in m.correct], resamples=2000, seed=0)
            row["bootstrap"] = {"low": interval.low, "high": interval.high, "resamples": 2000}
            if "score" in summary:
                interval = bootstrap_interval(list(m.values), resamples=2000, seed=0)
                row["score_bootstrap"] = {"low": interval.low, "high": interval.high}
        rows.append(row)
    return {
        "kind": kind,
        "published_folder": str(published.folder),
        "members": rows,
        "summary": summary,
        "interval": "t interval of the mean across "
        + ("the fresh sets (published set excluded)" if kind == "sets" else "every wording"),
    }


def pct(value: float) -> str:
    """Percent, one decimal; "n/a" where there is none (nothing scored, one set: no SD)."""
    return parts.pct(value)


def place(summary: Mapping[str, Any]) -> str:
    """'rank of K + 1', or 'n/a' where the published value is missing (rank None)."""
    return NOT_AVAILABLE if summary.get("rank") is None else f"{summary['rank']} of {summary['of']}"


def score_text(value: float | None) -> str:
    return parts.fmt(value)


def spread_table(record: Mapping[str, Any]) -> str:
    """Markdown: the per-run accuracies, then mean, SD, 95% interval and the published
    run's place, per cell."""
    kind = record["kind"]
    what = "set" if kind == "sets" else "wording"
    boot = any("bootstrap" in m for m in record["members"])
    lines = [
        f"| {what} | scored | accuracy (%) |" + (" bootstrap 95% (%) |" if boot else ""),
        "|---|---:|---:|" + ("---|" if boot else ""),
    ]
    if "score" in record["summary"]:
        lines[0] += " score (mean value) |" if not boot else " score (mean value, bootstrap 95%) |"
        lines[1] += "---:|"
    for m in record["members"]:
        label = m["label"] + (" (published)" if m["published"] else "")
        interval = m.get("bootstrap")
        tail = (
            f" {parts.interval_text(interval['low'], interval['high'], pct)} |" if interval else ""
        )
        if "score" in m:
            score_interval = m.get("score_bootstrap")
            around = (
                " " + parts.interval_text(score_interval["low"], score_interval["high"])
                if score_interval
                else ""
            )
            tail += f" {score_text(m['score'])}{around} |"
        lines.append(f"| {label} | {m['scored']} | {pct(m['accuracy'])} |{tail}")
    over = "fresh sets" if kind == "sets" else "wordings"
    lines += [
        "",
        f"| cell | mean over {over} (%) | SD (pp) | 95% interval (%) | published (%) | rank | z |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for cell, s in record["summary"].items():
        z = parts.shown(s["z"], "+.2f")
        lines.append(
            f"| {SCORE_LABEL if cell == 'score' else cell} | {pct(s['mean'])} | {pct(s['sd'])} "
            f"| {parts.interval_text(s['low'], s['high'], pct)} "
            f"| {pct(s['published'])} | {place(s)} | {z} |"
        )
    return "\n".join(lines)


def spread_record(
    spec: Any, kind: str, runs: Sequence[tuple[str, bool, Any]]
) -> tuple[dict[str, Any], Path]:
    """The spread of one model's runs of one design, written beside its published run:
    `runs` are (step label, published?, its Evaluation) in plan order; a fresh set is
    named by the seed its config records. Returns (record, its path)."""
    import json

    from lexbench.robustness.files import spread_path, write_record
    from lexbench.run.files import read_jsonl

    members = []
    for label, published, evaluation in runs:
        if kind == "sets":
            config = json.loads(evaluation.folder.config_path.read_text(encoding="utf-8"))
            seed = _seed_in(config["benchmark"])
            label = f"seed {seed}" if seed is not None else label
        members.append(
            member_from_samples(
                label,
                evaluation.folder.path,
                published,
                read_jsonl(evaluation.folder.samples_path),
                spec.spread_fields,
            )
        )
    folders = [str(evaluation.folder.path) for _, _, evaluation in runs]
    if len(set(folders)) < len(folders):
        raise ValueError(
            f"the {spec.name} runs of two {'sets' if kind == 'sets' else 'wordings'} wrote "
            f"the same run folder ({folders[0]}): its builder ignores the option that "
            f"tells them apart"
        )
    record = summarise(kind, members, bootstrap=kind == "prompts")
    published = next(evaluation for _, first, evaluation in runs if first)
    record = {
        "benchmark": spec.name,
        "model": published.results.get("model") or published.folder.path.parent.name,
        "cost": [
            {
                "label": member.label,
                **{k: e.stats.to_dict()[k] for k in ("requests", "cached", "sent", "seconds")},
            }
            for member, (_, _, e) in zip(members, runs)
        ],
        **record,
    }
    return record, write_record(spread_path(published.folder.path, kind), record)


def _seed_in(config: Any) -> int | None:
    """The item seed a benchmark config records (its `seed` at any depth, first found)."""
    if isinstance(config, Mapping):
        if isinstance(config.get("seed"), int):
            return int(config["seed"])
        for value in config.values():
            found = _seed_in(value)
            if found is not None:
                return found
    return None
