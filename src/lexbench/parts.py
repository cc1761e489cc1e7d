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
import numbers
from collections.abc import Callable, Mapping, Sequence
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


#: What a reader is shown where there is no number (no item scored, no pair to test, a
#: statistic undefined on the data): never "nan" or "inf" (docs/comparing-and-reporting.md).
NOT_AVAILABLE = "n/a"


def is_number(value: Any) -> bool:
    """A finite number (not None, NaN or ±inf, not a bool): one that can be shown. NumPy's
    scalars count (they register as `numbers.Real`): summaries computed with NumPy are
    formatted before they pass through JSON.

    >>> import numpy as np
    >>> is_number(3), is_number(np.float32(0.5)), is_number(np.int64(2)), is_number(True)
    (True, True, True, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def shown(value: Any, spec: str = ".3f", scale: float = 1.0) -> str:
    """`value` × `scale` in format `spec`, or "n/a" where there is none (None, NaN, ±inf).

    >>> shown(0.25), shown(float("nan")), shown(None), shown(float("-inf"))
    ('0.250', 'n/a', 'n/a', 'n/a')
    >>> shown(0.0532, ".1f", 100), shown(-0.02, "+.3f")
    ('5.3', '-0.020')
    """
    return format(scale * value, spec) if is_number(value) else NOT_AVAILABLE


def fmt(value: Any) -> str:
    """A fraction with three decimals; "n/a" where there is none (no item scored)."""
    return shown(value, ".3f")


def pct(value: Any, digits: int = 1) -> str:
    """A proportion in percent with one decimal (or `digits`); "n/a" where there is none."""
    return shown(value, f".{digits}f", 100)


def interval_text(low: Any, high: Any, show: Callable[[Any], str] = fmt) -> str:
    """`[low, high]` as `show` writes each bound; "n/a" alone where neither bound is a
    number (an interval over no items), never "[n/a, n/a]"."""
    if not is_number(low) and not is_number(high):
        return NOT_AVAILABLE
    return f"[{show(low)}, {show(high)}]"


def with_interval(estimate: Any, low: Any, high: Any, show: Callable[[Any], str] = fmt) -> str:
    """`0.083 [0.041, 0.125]`; "n/a" where there is no estimate, `0.500 [n/a]` where the
    estimate has no interval (one cluster, one item).

    >>> with_interval(0.5, float("nan"), float("nan")), with_interval(None, 0.1, 0.2)
    ('0.500 [n/a]', 'n/a')
    """
    if not is_number(estimate):
        return NOT_AVAILABLE
    bounds = interval_text(low, high, show)
    return f"{show(estimate)} " + (f"[{bounds}]" if bounds == NOT_AVAILABLE else bounds)


def p_text(value: Any, spec: str = ".3g") -> str:
    """A p-value: "n/a" where the test could not be run."""
    return shown(value, spec)


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
        show = pct if self.metric == "accuracy" else fmt
        name = "accuracy %" if self.metric == "accuracy" else self.metric
        return {
            "model": self.model,
            "scored": str(self.scored),
            name: show(self.estimate),
            "95% interval": interval_text(self.low, self.high, show),
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
