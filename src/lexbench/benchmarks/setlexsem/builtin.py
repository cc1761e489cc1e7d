"""The built-in SetLexSem grids: `paper`, `lexbench` and `small`.

`paper` is the paper's design, study by study, as its tables' N fix it (configurations x 50
prompts; the authors' run configurations and analysis file agree):

* `main`: numbers and words of token length 1-4, operand sizes 2-16, the four operations,
  k in {0, 1, 3, 5}, the four prompting methods of Table 14, formal and plain phrasing:
  4,096 cells, of which the 128 asking for sets of 16 one-digit numbers are left out (there
  are nine), leaving 3,968 (Tables 4-6 and 10-14; Table 3 is its k = 0, formal,
  allow-empty slice: 248 configurations, the paper's 12,400 prompts).
* `deciles`: words of length 3 and 5 from frequency deciles 1-9 of the whole vocabulary,
  binned as the authors' `make_percentiles` (ten equal-width bins of normalised log counts),
  the two allow-empty methods, formal phrasing, every k: at most 128 length-5/length-3
  pairs per decile (Table 7); cells the vocabulary cannot fill are left out and listed.
* `deceptive`: WordNet hyponym sets not swapped, swapped, and the random baseline, the two
  allow-empty methods (the pair the authors' analysis file keeps for Tables 8-9; their runs
  had four), formal phrasing, every k: 128 configurations per condition (Table 8), 32 per
  condition and operation (Table 9).

The paper's "undefined" token length (Table 2) appears in its tables only through the random
baseline: word sets of unconstrained length drawn from the hyponym vocabulary, which its
Tables 4, 5, 6 and 10 pool with the main study as "words" (that is how their N add up:
51,200 prompts per operation = 992 main + 32 random-baseline configurations, x 50).

`lexbench` is `paper` plus lexbench's own studies, each reported under its own name and
never pooled into the paper's tables: unconstrained token length (numbers in [0, 9999] and
words of any length), the overlap sampler, equal-count deciles of the whole vocabulary
(lexbench's former binning) and deciles ranked within each token length (1-10),
and the three extra phrasings and methods from the authors' code.

`small` is a quick check (2 prompts per configuration) touching every study.
"""

from __future__ import annotations

from typing import Any

from lexbench.benchmarks.setlexsem.prompts import EXTRA_METHODS, EXTRA_PHRASINGS, PAPER_METHODS
from lexbench.benchmarks.setlexsem.sets import DECEPTIVE_CONDITIONS, OPERATIONS

PAPER_SIZES = [2, 4, 8, 16]
PAPER_K = [0, 1, 3, 5]
PAPER_LENGTHS = [1, 2, 3, 4]
ALLOW_EMPTY_METHODS = ["baseline_allow_empty", "cot_self_reflection_allow_empty"]

MAIN_STUDY: dict[str, Any] = {
    "name": "main",
    "token_types": ["numbers", "words"],
    "operations": list(OPERATIONS),
    "operand_sizes": PAPER_SIZES,
    "token_lengths": PAPER_LENGTHS,
    "k_shots": PAPER_K,
    "methods": list(PAPER_METHODS),
    "phrasings": ["formal", "plain"],
    "skip_infeasible": True,
}
DECILE_STUDY: dict[str, Any] = {
    "name": "deciles",
    "token_types": ["deciles"],
    "deciles": list(range(1, 10)),
    "decile_scope": "global_books_scale",
    "token_lengths": [3, 5],
    "operand_sizes": PAPER_SIZES,
    "k_shots": PAPER_K,
    "methods": ALLOW_EMPTY_METHODS,
    "phrasings": ["formal"],
    "skip_infeasible": True,
}
DECEPTIVE_STUDY: dict[str, Any] = {
    "name": "deceptive",
    "token_types": ["deceptive"],
    "deceptive_conditions": list(DECEPTIVE_CONDITIONS),
    "operand_sizes": PAPER_SIZES,
    "k_shots": PAPER_K,
    "methods": ALLOW_EMPTY_METHODS,
    "phrasings": ["formal"],
}

PAPER_GRID: dict[str, Any] = {
    "seed": 292,
    "prompts_per_config": 50,
    "study": [MAIN_STUDY, DECILE_STUDY, DECEPTIVE_STUDY],
}

LEXBENCH_GRID: dict[str, Any] = {
    "seed": 292,
    "prompts_per_config": 50,
    "study": [
        MAIN_STUDY,
        DECILE_STUDY,
        DECEPTIVE_STUDY,
        # No length constraint: numbers in [0, 9999] (the range the paper states), any word.
        {
            "name": "unconstrained_length",
            "token_types": ["numbers", "words"],
            "token_lengths": ["any"],
            "k_shots": PAPER_K,
            "methods": ALLOW_EMPTY_METHODS,
            "phrasings": ["formal"],
        },
        # B shares half of A (the authors' overlap sampler; not in the paper).
        {
            "name": "overlap",
            "token_types": ["numbers", "words"],
            "token_lengths": [2, 3, 4],
            "overlaps": [0.5],
            "k_shots": PAPER_K,
            "methods": ALLOW_EMPTY_METHODS,
            "phrasings": ["formal"],
        },
        # Equal-count tenths of the same ranking (the paper's text: "segments them into
        # deciles"), beside the authors' equal-width log bins of `deciles`.
        {
            "name": "deciles_equal_count",
            "token_types": ["deciles"],
            "deciles": list(range(1, 11)),
            "decile_scope": "global_equal_count",
            "token_lengths": [3, 5],
            "k_shots": PAPER_K,
            "methods": ALLOW_EMPTY_METHODS,
            "phrasings": ["formal"],
            "skip_infeasible": True,
        },
        # Deciles ranked within each token length, so every decile has words of each length.
        {
            "name": "deciles_within_length",
            "token_types": ["deciles"],
            "deciles": list(range(1, 11)),
            "decile_scope": "length",
            "token_lengths": [3, 5],
            "k_shots": PAPER_K,
            "methods": ALLOW_EMPTY_METHODS,
            "phrasings": ["formal"],
        },
        # The authors' other phrasings and methods.
        {
            "name": "extra_phrasings",
            "token_types": ["numbers", "words"],
            "token_lengths": [3],
            "k_shots": PAPER_K,
            "methods": ALLOW_EMPTY_METHODS,
            "phrasings": ["formal", *EXTRA_PHRASINGS],
        },
        {
            "name": "extra_methods",
            "token_types": ["numbers", "words"],
            "token_lengths": [3],
            "k_shots": PAPER_K,
            "methods": ["baseline", *EXTRA_METHODS],
            "phrasings": ["formal"],
        },
    ],
}

SMALL_GRID: dict[str, Any] = {
    "seed": 292,
    "prompts_per_config": 2,
    "decoding": {"max_new_tokens": 40, "reasoning_max_new_tokens": 96},
    "study": [
        {
            "name": "main",
            "token_types": ["numbers", "words"],
            "operand_sizes": [2, 4],
            "token_lengths": [2, 3],
            "k_shots": [0, 1],
            "methods": ["baseline_allow_empty", "cot_self_reflection_allow_empty"],
            "phrasings": ["formal", "plain"],
        },
        {
            "name": "deciles",
            "token_types": ["deciles"],
            "deciles": [5, 8],
            "decile_scope": "global",
            "token_lengths": [3, 5],
            "operand_sizes": [4],
            "operations": ["union", "intersection"],
            "methods": ["baseline_allow_empty"],
        },
        {
            "name": "deceptive",
            "token_types": ["deceptive"],
            "operand_sizes": [4],
            "deceptive_conditions": list(DECEPTIVE_CONDITIONS),
            "operations": ["union", "intersection"],
            "methods": ["baseline_allow_empty"],
        },
        {
            "name": "overlap",
            "token_types": ["numbers", "words"],
            "operand_sizes": [4],
            "token_lengths": [3],
            "overlaps": [0.5],
            "operations": ["intersection"],
            "methods": ["baseline_allow_empty"],
        },
    ],
}

BUILTIN: dict[str, dict[str, Any]] = {
    "paper": PAPER_GRID,
    "lexbench": LEXBENCH_GRID,
    "small": SMALL_GRID,
}
