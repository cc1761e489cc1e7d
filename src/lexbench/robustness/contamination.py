"""The contamination probes, as records and plain words.

A generated benchmark: its published set (the default seed) against K fresh sets of the
same design. The gap (published − mean of fresh), the exact permutation test over sets
(the published set's rank among all K + 1: p = share of sets scoring at least as high),
an item-level test (a one-sided Fisher exact test: the published set's items right more
often than the fresh sets' items pooled), and what the gap can and cannot mean.

A fixed public file: the completion probe (`lexbench.robustness.completion`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.parts import is_number, p_text, shown
from lexbench.robustness.stats import fisher_exact_greater, published_position


def contamination_from_spread(spread: Mapping[str, Any]) -> dict[str, Any]:
    """The generated-benchmark probe from a `--sets K` spread record."""
    if spread.get("kind") != "sets":
        raise ValueError("the contamination probe of a generated benchmark needs a --sets spread")
    members = spread["members"]
    (published,) = [m for m in members if m["published"]]
    fresh = [m for m in members if not m["published"]]
    if not fresh:
        raise ValueError("the contamination probe needs at least one fresh set (--sets K)")
    position = published_position(published["accuracy"], [m["accuracy"] for m in fresh])
    right = _right(published)
    fresh_right = sum(_right(m) for m in fresh)
    fresh_total = sum(m["scored"] for m in fresh)
    item_p = fisher_exact_greater(right, published["scored"], fresh_right, fresh_total)
    record = {
        "kind": "contamination",
        "benchmark": spread.get("benchmark"),
        "model": spread.get("model"),
        "published_folder": spread["published_folder"],
        "sets": len(fresh),
        "set_test": position,
        "item_test": {
            "published": {"right": right, "scored": published["scored"]},
            "fresh": {"right": fresh_right, "scored": fresh_total},
            "p_value": item_p,
            "method": "one-sided Fisher exact (published items right more often than fresh)",
        },
    }
    # Flagged: the published set beats every fresh set (the set test at its smallest p,
    # 1/(K+1)) and its items are right more often than fresh items (item test p < 0.05).
    record["flagged"] = bool(position["rank"] == 1 and position["gap"] > 0 and item_p < 0.05)
    record["reading"] = reading_sets(record)
    return record


def _right(member: Mapping[str, Any]) -> int:
    """Items right: accuracy × scored (0 when nothing was scored: accuracy NaN or None)."""
    accuracy = member.get("accuracy")
    if not member["scored"] or accuracy is None or accuracy != accuracy:
        return 0
    return round(accuracy * member["scored"])


def _pct(value: float | None, fmt: str = ".1f", unit: str = "%") -> str:
    """ "52.3%"; "n/a" (no unit) where nothing was scored."""
    text = shown(value, fmt, 100)
    return text + unit if is_number(value) else text


def reading_sets(record: Mapping[str, Any]) -> str:
    test = record["set_test"]
    items = record["item_test"]
    k = record["sets"]
    if test["rank"] is None:
        fresh = (
            f"the {k} fresh sets scored {_pct(test['fresh_mean'])} on average"
            if is_number(test["fresh_mean"])
            else f"nor have the {k} fresh sets"
        )
        head = (
            f"The published set has no scored items ({fresh}): nothing was measured, so "
            f"there is no gap, rank or p-value."
        )
    else:
        head = (
            f"The published set scored {_pct(test['published'])}, the {k} fresh sets "
            f"{_pct(test['fresh_mean'])} on average: a gap of "
            f"{_pct(test['gap'], '+.1f', ' points')}. It ranks {test['rank']} of "
            f"{test['of']} (exact permutation p = "
            f"{p_text(test['p_value'])}; with {k} fresh sets p can go no lower than "
            f"{p_text(test['smallest_possible_p'])}); item by item, one-sided Fisher exact "
            f"p = {p_text(items['p_value'])}."
        )
    if record["flagged"]:
        meaning = (
            " Flagged: the published set beats every fresh set and its items are right "
            "more often than fresh items (p < 0.05)."
            if test["smallest_possible_p"] > 0.05
            else " Flagged."
        )
        meaning += (
            " The published items are answered better than fresh items of the same design, "
            "beyond what redrawing explains. That is what training on the published set "
            "would do; it is also what a published seed that happened to draw easier items "
            "would do, so look at which items differ before concluding."
        )
    elif test["rank"] is None:
        meaning = ""
    else:
        meaning = " No sign that the published set is answered better than fresh ones." + (
            f" With {k} fresh sets the set test cannot reach p = 0.05; run --sets 19 or"
            " more for it to be able to."
            if test["smallest_possible_p"] > 0.05
            else ""
        )
    limits = (
        " What the gap cannot mean: proof. A model can have seen the published items without "
        "scoring better on them, or have learnt the generator's sources (its lexicon, its word "
        "lists) so that fresh sets are contaminated too; neither shows up as a gap."
    )
    return head + meaning + limits
