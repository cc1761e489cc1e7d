"""Prompt wordings, as the robustness commands and the benchmarks' `variants` modules name
them: the types and functions live in `lexbench.wordings` (below the contract module and
`api`); this module keeps their robustness-side names.

    >>> from lexbench.types import Request
    >>> v = PromptVariant("shout", "upper case", lambda item, r: reword(r, r.prompt.upper()))
    >>> v.rewrite(None, Request(id="1", kind="generate", prompt="a : b")).prompt
    'A : B'
"""

from __future__ import annotations

from lexbench.run.cells import with_cell_wording as with_active_variant
from lexbench.wordings import (
    ALL,
    PAPER,
    PromptVariant,
    VariantBenchmark,
    apply_variant,
    chosen_variants,
    declared_variants,
    one_variant,
    replace_required,
    reword,
)

__all__ = [
    "ALL",
    "PAPER",
    "PromptVariant",
    "VariantBenchmark",
    "apply_variant",
    "chosen_variants",
    "declared_variants",
    "one_variant",
    "replace_required",
    "reword",
    "with_active_variant",
]
