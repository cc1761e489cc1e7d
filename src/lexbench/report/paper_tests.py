"""The tests a benchmark's paper used, as `compare` runs them beside its paired tests.

A benchmark declares them in `BenchmarkSpec.comparison_tests` (SCAN and the ranking sets:
the SCAN paper's unpaired permutation test, 10^6 resamples); `lexbench compare
--paper-resamples N` changes the count, 0 drops them, `--paper-two-sided absolute` uses
lexbench's earlier two-sided p instead of scipy's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lexbench.stats import TWO_SIDED

if TYPE_CHECKING:
    from lexbench.contract import ComparisonTest


@dataclass(frozen=True)
class PaperTest:
    """A benchmark's paper test as `compare` runs it: with how many resamples, which
    two-sided p."""

    test: ComparisonTest
    resamples: int
    two_sided: str = "doubled"

    def describe(self) -> str:
        return f"{self.test.label}: {self.resamples:,} resamples, two-sided p " + (
            "doubled (scipy's)" if self.two_sided == "doubled" else "absolute (|perm| >= |obs|)"
        )


def paper_tests(
    benchmark: str, resamples: int | None = None, two_sided: str = "doubled"
) -> list[PaperTest]:
    """The tests the benchmark's spec declares, at their own resample count unless
    `resamples` is given (0: none)."""
    from lexbench import plugins

    if two_sided not in TWO_SIDED:
        raise ValueError(f"two-sided p must be one of {', '.join(TWO_SIDED)}, got {two_sided!r}")
    if resamples is not None and resamples < 0:
        raise ValueError(f"paper-test resamples must be 0 (none) or more, got {resamples}")
    spec = plugins.spec_for_run(benchmark)
    if spec is None or resamples == 0:
        return []
    return [
        PaperTest(test, test.resamples if resamples is None else resamples, two_sided)
        for test in spec.comparison_tests
    ]
