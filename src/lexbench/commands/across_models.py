"""Several models in one command: `--model A,B` (or repeated) read into `args.models`, the
plan a benchmark command's options ask for, and the end of a plan that ran several models:
one leaderboard over every run it wrote, and per benchmark (and per wording or set, when
the plan had several) the paired comparisons between the models (`lexbench.report.compare`,
as `lexbench compare` makes them), written to `<out>/<benchmark>/compare/<A>--<B>[...].md` and `.json`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.run.store import slug


class ModelList(argparse.Action):
    """`--model A,B` and `--model A --model B`: `args.models` lists them in order and
    `args.model` is the first (what a one-model command reads)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = [part.strip() for part in str(values).split(",")]
        if not all(given):
            raise argparse.ArgumentError(self, f"an empty model name in {values!r}")
        models = [*(getattr(namespace, "models", None) or []), *given]
        namespace.models = models
        namespace.model = models[0]


def models_of(args: argparse.Namespace) -> list[str]:
    """The models `--model` named (`A,B`, or repeated), in order; one when not plural."""
    models = getattr(args, "models", None)
    return list(models) if models else [args.model]


def one_model(args: argparse.Namespace, command: str) -> None:
    """Refuse, in one line, several models for a command that runs one."""
    models = models_of(args)
    if len(models) > 1:
        raise ValueError(
            f"{command} takes one model; --model named {', '.join(models)}: run them one at a time"
        )


def plan_of(args: argparse.Namespace) -> tuple[Any, Any] | None:
    """(spec, plan) when the options ask for more than one plain run: several models, a
    spread, or another wording; None for one plain run."""
    from lexbench import plugins
    from lexbench.robustness.plan import expand

    variant = getattr(args, "prompt_variant", "paper") or "paper"
    sets = getattr(args, "sets", None)
    name = getattr(args, "benchmark", None)
    models = models_of(args)
    if name is None or (not sets and variant == "paper" and len(models) == 1):
        return None
    spec = plugins.benchmark(name)
    return spec, expand(spec, models, sets, variant)


def leaderboard_text(folders: Sequence[Path]) -> str:
    """One leaderboard (a table per benchmark) over the run folders."""
    from lexbench.report.leaderboard import leaderboards, to_markdown
    from lexbench.report.runs import load_runs

    return to_markdown(leaderboards(load_runs(folders)))


def compare_models(
    groups: Mapping[tuple[str, str], Sequence[Path]], out: Path, models: Sequence[str]
) -> list[tuple[Path, str]]:
    """Paired comparisons between the models' runs of each group ((benchmark, step label)
    -> the models' run folders, in model order); a group with fewer than two runs has
    nothing to compare. Returns (Markdown file, its text) per comparison written."""
    from lexbench.report import compare, compare_format
    from lexbench.report.runs import load_runs

    written: list[tuple[Path, str]] = []
    name = "--".join(slug(m) for m in models)
    for (benchmark, label), folders in groups.items():
        if len(folders) < 2:
            continue
        runs = load_runs(folders)
        result = compare.compare_runs(runs)  # with the tests the benchmark's paper used
        text = compare_format.to_markdown(result)
        suffix = "" if label == "paper" else f"-{slug(label)}"
        path = out / slug(benchmark) / "compare" / f"{name}{suffix}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        path.with_suffix(".json").write_text(
            json.dumps(result.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        written.append((path, text))
    return written
