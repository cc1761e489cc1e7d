"""The values a benchmark's optional parts hand to the layers above it: a run folder read
back (`LoadedRun`), a leaderboard row (`Row`), a report section (`Reporter`, `Figure`) and
a public data file for the completion probe (`PublicFile`).

They live here, below the contract module (`lexbench.contract`), so the contract
names only types beneath it: report, robustness and the benchmarks import them from here
(report and robustness re-export them under their old names), and no import circle forms,
not even one of type annotations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class LoadedRun:
    """One run folder, read."""

    path: Path
    config: dict[str, Any]
    samples: list[dict[str, Any]]
    results: dict[str, Any]
    report_markdown: str
    label: str

    @property
    def benchmark(self) -> str:
        return str(self.results["benchmark"])

    @property
    def model_name(self) -> str:
        model = self.config.get("model")
        if isinstance(model, Mapping) and model.get("name"):
            return str(model["name"])
        return self.path.parent.name or str(self.path)

    @property
    def figure_files(self) -> list[Path]:
        """PNGs the benchmark wrote under <run>/figures/, sorted by name."""
        folder = self.path / "figures"
        return sorted(folder.glob("*.png")) if folder.is_dir() else []


def fmt(value: float) -> str:
    """A fraction with three decimals; "n/a" where there is none (no item scored)."""
    return (
        "n/a"
        if value is None or (isinstance(value, float) and math.isnan(value))
        else f"{value:.3f}"
    )


def pct(value: float) -> str:
    """A proportion in percent with one decimal; "n/a" where there is none."""
    return fmt(value) if value is None or value != value else f"{100 * value:.1f}"


@dataclass(frozen=True)
class Row:
    """One leaderboard row: a run's headline metric with its 95% interval."""

    benchmark: str
    model: str
    run: str
    scored: int
    metric: str
    estimate: float
    low: float
    high: float
    extra: dict[str, str]

    def cells(self) -> dict[str, str]:
        """The row as shown, in the units every report uses (docs/comparing-and-reporting.md):
        an accuracy in percent with one decimal, a graded metric (MRR@10) as a fraction."""
        shown = pct if self.metric == "accuracy" else fmt
        name = "accuracy %" if self.metric == "accuracy" else self.metric
        return {
            "model": self.model,
            "scored": str(self.scored),
            name: shown(self.estimate),
            "95% interval": f"[{shown(self.low)}, {shown(self.high)}]",
            **self.extra,
            "run": self.run,
        }


@dataclass(frozen=True)
class Figure:
    """A PNG in the report's output folder, with the words shown around it."""

    title: str
    path: Path
    caption: str = ""


class Reporter(Protocol):
    @property
    def benchmark(self) -> str:
        """The benchmark name its runs carry (results.json's `benchmark`)."""

    @property
    def title(self) -> str:
        """The heading of its section."""

    def summary_markdown(self, runs: Sequence[LoadedRun]) -> str:
        """The benchmark's headline table across `runs`."""

    def run_markdown(self, run: LoadedRun) -> str:
        """The detailed tables of one run (its headings start at `#`)."""

    def figures(self, runs: Sequence[LoadedRun], folder: Path) -> list[Figure]:
        """Write or copy PNGs into `folder`; return them in reading order."""


@dataclass(frozen=True)
class PublicFile:
    """A public file's rows as written there (`header`: its first line, "" if it has none).
    `prefix_fields` leading fields are shown of each probed row, with the `context_rows`
    rows before it; rows that share the first `group_fields` fields form a group, shuffled
    for the control (or `groups`: a group key per row, such as its section). `sample`:
    probe at most that many rows, a seeded sample (a large file)."""

    name: str
    header: str
    rows: tuple[str, ...]
    prefix_fields: int = 2
    group_fields: int = 2
    context_rows: int = 2
    delimiter: str = ","
    groups: tuple[str, ...] = ()
    sample: int | None = None
