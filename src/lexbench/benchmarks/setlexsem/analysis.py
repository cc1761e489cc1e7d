"""SetLexSem's tables: the paper's, each on the configurations the paper computes it on.

The paper's figure of merit is the spread of accuracy across incidental variations, so its
tables summarise *per-configuration* accuracy (a configuration = every hyperparameter fixed,
50 prompts): for each level of a factor, the mean and standard deviation (SD, n - 1) of the
configurations' accuracies, and N, the number of prompts behind them (configurations x
prompts per configuration). Which configurations feed which table follows the paper's N
(see `setlexsem_builtin`):

* main design: numbers and words of token length 1-4, sizes 2-16, k in {0, 1, 3, 5}, the
  four paper methods, formal or plain phrasing (no overlap);
* Tables 4, 5, 6, 10 (Figures 4, 5, 9): the main design plus the deceptive study's random
  baseline, counted as words of undefined length, as the paper pools them;
* Table 3 (Figure 3): the main design at k = 0, formal, the two allow-empty methods;
* Tables 11-14: the main design at operand sizes 2 and 4 (the only sizes they show);
* Table 7 (Figure 6a): length-5 minus length-3 accuracy of decile configurations that agree
  on every other hyperparameter (global deciles 1-9, allow-empty methods, formal);
* Tables 8, 9 (Figure 7): the deceptive design (allow-empty methods, formal, k in {0,1,3,5});
* Tables 15-18: the error analysis (`setlexsem_errors`) of the main and deceptive designs;
  Table 19: examples of right and wrong answers on deceptive sets.

A configuration outside these designs (another length, phrasing, method, the overlap
sampler, deciles ranked within a length) never enters a paper table; lexbench's own tables
cover them, each named as lexbench's. Extra columns (configurations, min, max, pooled
accuracy with a Wilson interval) are lexbench's too and named so in the report.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from lexbench.benchmarks.setlexsem.designs import (
    ALLOW_EMPTY,
    PAPER_DECILES,
    Config,
    authors_decile_scope,
    in_deceptive_design,
    in_decile_design,
    in_main_design,
    paper_order,
    pooled_main,
)
from lexbench.stats import wilson_interval


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample SD (n - 1, as pandas); SD is NaN for fewer than two values."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n == 1:
        return mean, float("nan")
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


# ------------------------------------------------------------------------------ spreads


def spread(configs: Sequence[Config]) -> dict[str, Any]:
    """Mean/SD/min/max of per-configuration accuracy, N (prompts) and the pooled accuracy."""
    values = [c["accuracy"] for c in configs if c["n"]]
    mean, sd = mean_sd(values)
    n = sum(c["n"] for c in configs)
    k = sum(c["correct"] for c in configs)
    return {
        "configurations": len(values),
        "prompts": n,
        "mean": mean,
        "sd": sd,
        "min": min(values) if values else float("nan"),
        "max": max(values) if values else float("nan"),
        "pooled": k / n if n else float("nan"),
        "wilson": wilson_interval(k, n).to_dict(),
    }


def factor_table(configs: Sequence[Config], keys: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of `spread` per combination of `keys`, levels in the paper's order."""
    groups: dict[tuple[Any, ...], list[Config]] = {}
    for config in configs:
        groups.setdefault(tuple(config[k] for k in keys), []).append(config)
    return [
        {**dict(zip(keys, level)), **spread(groups[level])}
        for level in sorted(groups, key=lambda lv: tuple(paper_order(v) for v in lv))
    ]


def decile_differences(
    configs: Sequence[Config],
    keep: Callable[[Config], bool] | None = None,
    deciles: Sequence[int] = PAPER_DECILES,
) -> list[dict[str, Any]]:
    """Table 7: per decile, accuracy at length 5 minus length 3 (in points) over the pairs of
    configurations that agree on every other hyperparameter: mean, SD, min, max, N pairs.
    `keep` (default: the decile design in the run's `authors_decile_scope`) picks them."""
    if keep is None:
        scope = authors_decile_scope(configs)
        keep = lambda c: in_decile_design(c, scope)  # noqa: E731
    by_key: dict[tuple[Any, ...], dict[int, float]] = defaultdict(dict)
    for c in configs:
        if keep(c) and c["n"]:
            key = (
                c["decile"],
                c["decile_scope"],
                c["operation"],
                c["m"],
                c["k"],
                c["method"],
                c["phrasing"],
            )
            by_key[key][c["token_length"]] = c["accuracy"]
    per_decile: dict[int, list[float]] = defaultdict(list)
    for key, lengths in by_key.items():
        if 3 in lengths and 5 in lengths:
            per_decile[key[0]].append(100 * (lengths[5] - lengths[3]))
    rows = []
    for decile in sorted(set(deciles) | set(per_decile)):
        values = per_decile.get(decile, [])
        mean, sd = mean_sd(values)
        rows.append(
            {
                "decile": decile,
                "pairs": len(values),
                "mean": mean,
                "sd": sd,
                "min": min(values) if values else float("nan"),
                "max": max(values) if values else float("nan"),
                "differences": values,
            }
        )
    return rows


# ------------------------------------------------------------------------------ the tables


def _table(
    title: str, keys: Sequence[str], rows: list[dict[str, Any]], note: str = ""
) -> dict[str, Any]:
    return {"title": title, "keys": list(keys), "rows": rows, "note": note}


def paper_tables(configs: Sequence[Config], model: str) -> dict[str, dict[str, Any]]:
    main = [c for c in configs if in_main_design(c)]
    pooled = pooled_main(configs)
    small = [c for c in main if c["m"] in (2, 4)]
    deceptive = [c for c in configs if in_deceptive_design(c)]
    by_model = [
        {**c, "model": model}
        for c in main
        if c["k"] == 0 and c["phrasing"] == "formal" and c["method"] in ALLOW_EMPTY
    ]
    pool_note = (
        "main design plus the deceptive random baseline as words of undefined "
        "length, as the paper pools them"
    )
    tables = {
        "table3": _table(
            "Table 3: accuracy by model (Figure 3)",
            ["model"],
            factor_table(by_model, ["model"]),
            "main design, k = 0, formal phrasing, the two allow-empty methods",
        ),
        "table4": _table(
            "Table 4: accuracy across set operations (Figure 4a)",
            ["operation"],
            factor_table(pooled, ["operation"]),
            pool_note,
        ),
        "table5": _table(
            "Table 5: accuracy across operand sizes (Figure 4b)",
            ["m"],
            factor_table(pooled, ["m"]),
            pool_note,
        ),
        "table6": _table(
            "Table 6: accuracy across set operations for different token types (Figure 5)",
            ["operation", "token_type"],
            factor_table(pooled, ["operation", "token_type"]),
            pool_note,
        ),
        "table7": _table(
            "Table 7: length-5 minus length-3 accuracy (points) by decile of rank "
            "frequency (Figure 6a)",
            ["decile"],
            decile_differences(configs),
            "pairs of decile configurations equal in every other hyperparameter; "
            "global deciles 1-9 (1 = rarest), allow-empty methods, formal",
        ),
        "table8": _table(
            "Table 8: deceptive words, random baseline (Figure 7a)",
            ["deceptive_condition"],
            factor_table(deceptive, ["deceptive_condition"]),
            "allow-empty methods, formal, k in {0, 1, 3, 5}",
        ),
        "table9": _table(
            "Table 9: deceptive words by set operation (Figure 7b)",
            ["deceptive_condition", "operation"],
            factor_table(deceptive, ["deceptive_condition", "operation"]),
            "allow-empty methods, formal, k in {0, 1, 3, 5}",
        ),
        "table10": _table(
            "Table 10: formal and plain phrasing (Figure 9)",
            ["phrasing"],
            factor_table(pooled, ["phrasing"]),
            pool_note,
        ),
        "table11": _table(
            "Table 11: token type, token length and operand size",
            ["token_type", "token_length", "m"],
            factor_table(small, ["token_type", "token_length", "m"]),
            "main design at operand sizes 2 and 4, as the paper shows",
        ),
        "table12": _table(
            "Table 12: token type and token length",
            ["token_type", "token_length"],
            factor_table(small, ["token_type", "token_length"]),
            "main design at operand sizes 2 and 4",
        ),
        "table13": _table(
            "Table 13: token type and operand size",
            ["token_type", "m"],
            factor_table(small, ["token_type", "m"]),
            "main design at operand sizes 2 and 4",
        ),
        "table14": _table(
            "Table 14: token type, prompting method and k",
            ["token_type", "method", "k"],
            factor_table(small, ["token_type", "method", "k"]),
            "main design at operand sizes 2 and 4",
        ),
    }
    return {
        name: table
        for name, table in tables.items()
        if table["rows"] and (name != "table7" or any(r["pairs"] for r in table["rows"]))
    }


def _plain(c: Config) -> bool:
    return c["token_type"] in ("numbers", "words")


def lexbench_tables(configs: Sequence[Config]) -> dict[str, dict[str, Any]]:
    """lexbench's own tables: what the paper's designs leave out, never pooled into them."""
    outside = [c for c in configs if _plain(c) and not in_main_design(c)]
    decile_length = [c for c in configs if c["token_type"] == "deciles"]
    tables = {
        "all_by_token_type": _table(
            "lexbench: every configuration by token type",
            ["token_type"],
            factor_table(configs, ["token_type"]),
            "all configurations of the run, whatever their study",
        ),
        "outside_main_design": _table(
            "lexbench: numbers and words outside the paper's main design",
            ["token_type", "token_length", "overlap", "method", "phrasing"],
            factor_table(outside, ["token_type", "token_length", "overlap", "method", "phrasing"]),
            "unconstrained lengths, the overlap sampler, extra methods and phrasings",
        ),
        "intersection_by_overlap": _table(
            "lexbench: intersection with and without the overlap sampler",
            ["token_type", "overlap"],
            factor_table(
                [c for c in configs if _plain(c) and c["operation"] == "intersection"],
                ["token_type", "overlap"],
            ),
        ),
        "deciles_by_length": _table(
            "lexbench: decile configurations by decile, scope and token length",
            ["decile_scope", "decile", "token_length"],
            factor_table(decile_length, ["decile_scope", "decile", "token_length"]),
        ),
        "deciles_equal_count_difference": _table(
            "lexbench: length-5 minus length-3 accuracy (points), equal-count deciles of the "
            "whole vocabulary",
            ["decile"],
            decile_differences(
                configs,
                lambda c: (
                    c["token_type"] == "deciles" and c["decile_scope"] == "global_equal_count"
                ),
                deciles=(),
            ),
        ),
        "deciles_within_length_difference": _table(
            "lexbench: length-5 minus length-3 accuracy (points), deciles ranked within length",
            ["decile"],
            decile_differences(
                configs,
                lambda c: c["token_type"] == "deciles" and c["decile_scope"] == "length",
                deciles=(),
            ),
        ),
        "method_by_k": _table(
            "lexbench: every method by k (numbers and words)",
            ["method", "k"],
            factor_table([c for c in configs if _plain(c)], ["method", "k"]),
        ),
        "phrasing": _table(
            "lexbench: every phrasing (numbers and words)",
            ["phrasing"],
            factor_table([c for c in configs if _plain(c)], ["phrasing"]),
        ),
    }
    return {
        name: table
        for name, table in tables.items()
        if table["rows"]
        and (not name.endswith("_difference") or any(r["pairs"] for r in table["rows"]))
    }


def vocabulary_lengths_by_decile(scope: str = "global_books_scale") -> list[dict[str, Any]]:
    """Figure 6b's data: the token lengths of the vocabulary in each decile of `scope` (one
    of `AUTHORS_DECILE_SCOPES`: the whole vocabulary, binned the authors' way)."""
    from lexbench.benchmarks.setlexsem.deciles import decile_table

    table = decile_table(scope)
    rows = []
    for decile in range(1, 11):
        lengths = Counter(len(w) for w in table.decile(decile))
        rows.append(
            {
                "decile": decile,
                "words": sum(lengths.values()),
                "length_counts": {str(n): lengths[n] for n in sorted(lengths)},
            }
        )
    return rows
