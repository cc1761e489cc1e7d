"""The benchmark contract under the name plugins were written against: it lives in
`lexbench.contract` (the ground floor, below every shared layer), and this module keeps
`from lexbench.benchmarks.base import BenchmarkSpec` working for them.
"""

from lexbench.contract import (
    CHAT,
    DEFAULT_MODEL,
    Benchmark,
    BenchmarkSpec,
    ComparisonTest,
    FinetuneTables,
    LabelSetting,
    ModelView,
    Regeneration,
    SuiteEntry,
    Tally,
    first_per_stratum,
)

__all__ = [
    "CHAT",
    "DEFAULT_MODEL",
    "Benchmark",
    "BenchmarkSpec",
    "ComparisonTest",
    "FinetuneTables",
    "LabelSetting",
    "ModelView",
    "Regeneration",
    "SuiteEntry",
    "Tally",
    "first_per_stratum",
]
