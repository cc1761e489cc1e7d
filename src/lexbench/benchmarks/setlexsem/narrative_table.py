"""The table comparing formal, plain and narrative phrasing on the same configurations (a
SetLexSem run with a narrative phrasing gets it among lexbench's tables)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.benchmarks.setlexsem.analysis import spread
from lexbench.benchmarks.setlexsem.items import CONFIG_FIELDS
from lexbench.benchmarks.setlexsem.narrative import is_narrative

_NOT_PAIRED_ON = ("config_id", "phrasing")


def phrasing_comparison(configs: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The table comparing phrasings on the same configurations (None unless the run has a
    narrative phrasing): configurations are grouped on every hyperparameter but the
    phrasing, and only groups that every phrasing of the run covers are kept."""
    phrasings = sorted({c["phrasing"] for c in configs}, key=_order)
    if not any(is_narrative(p) for p in phrasings):
        return None
    keys = [f for f in CONFIG_FIELDS if f not in _NOT_PAIRED_ON]
    groups: dict[tuple[Any, ...], dict[str, Mapping[str, Any]]] = {}
    for config in configs:
        groups.setdefault(tuple(config[k] for k in keys), {})[config["phrasing"]] = config
    paired = [group for group in groups.values() if len(group) == len(phrasings)]
    rows = [
        {"phrasing": p, **spread([group[p] for group in paired]), **_means(paired, p)}
        for p in phrasings
    ]
    return {
        "title": "lexbench: formal, plain and narrative phrasing on the same configurations",
        "keys": ["phrasing"],
        "rows": rows,
        "note": (
            f"paired: {len(paired)} configurations that every phrasing covers, each with "
            f"the same sets A and B under every phrasing; narrative phrasings are "
            f"lexbench's, outside the paper"
        ),
    }


def _means(groups: Sequence[Mapping[str, Mapping[str, Any]]], phrasing: str) -> dict[str, Any]:
    values = [g[phrasing]["jaccard"] for g in groups if g[phrasing]["n"]]
    return {"jaccard": sum(values) / len(values) if values else float("nan")}


def _order(phrasing: str) -> tuple[int, str]:
    rank = {"formal": 0, "plain": 1}
    return (rank.get(phrasing, 3 if is_narrative(phrasing) else 2), phrasing)
