"""SetLexSem as stories (beyond the paper): "narrative" phrasings that tell the same set
operation as a short scenario (two baskets, two guest lists, two shelves).

The scenarios are data (`data/narrative.toml`), one phrasing `narrative_<name>` each: a
`setup` that replaces the paper's set construction and a task line per operation that
replaces its `<task>` text. Everything else in the prompt is the paper's (demonstrations,
the method's instructions, the `<answer>` tags), so the same scorer applies, and since
sets are drawn per set configuration, whatever the phrasing, every phrasing of a
configuration shows the same A and B.

The table comparing phrasings on the same configurations is `narrative_table`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lexbench.benchmarks.setlexsem.sets import OPERATIONS

NARRATIVE_FILE = Path(__file__).parent / "data" / "narrative.toml"
PREFIX = "narrative_"
_KEYS = ("label", "setup", "task")


@dataclass(frozen=True)
class Scenario:
    name: str
    label: str
    setup: str  # with {a} and {b}
    tasks: Mapping[str, str]  # operation -> task text

    @property
    def phrasing(self) -> str:
        return PREFIX + self.name


def scenarios_from(data: Mapping[str, Any], where: str) -> tuple[Scenario, ...]:
    """Validated scenarios from parsed TOML: every key known, `setup` naming {a} and {b}
    once each, one task per operation."""
    out = []
    for name, table in data.items():
        at = f"{where}: scenario {name!r}"
        if not name.replace("_", "").isalnum() or not isinstance(table, Mapping):
            raise ValueError(f"{at}: a scenario is a [table] whose name is letters, digits, '_'")
        unknown = sorted(set(table) - set(_KEYS))
        missing = [key for key in _KEYS if key not in table]
        if unknown or missing:
            raise ValueError(f"{at}: unknown keys {unknown}, missing keys {missing}")
        setup = table["setup"]
        if not isinstance(setup, str) or setup.count("{a}") != 1 or setup.count("{b}") != 1:
            raise ValueError(f"{at}: setup must name {{a}} and {{b}} once each")
        tasks = table["task"]
        if not isinstance(tasks, Mapping) or sorted(tasks) != sorted(OPERATIONS):
            raise ValueError(f"{at}: [task] needs exactly one line per operation {OPERATIONS}")
        if not all(isinstance(text, str) and text.strip() for text in tasks.values()):
            raise ValueError(f"{at}: every task line must be non-empty text")
        out.append(Scenario(name, str(table["label"]), setup, dict(tasks)))
    if not out:
        raise ValueError(f"{where}: no scenarios")
    return tuple(out)


@cache
def scenarios() -> tuple[Scenario, ...]:
    """The packaged scenarios, in file order."""
    with open(NARRATIVE_FILE, "rb") as handle:
        return scenarios_from(tomllib.load(handle), str(NARRATIVE_FILE))


def narrative_phrasings() -> tuple[str, ...]:
    return tuple(s.phrasing for s in scenarios())


def scenario(phrasing: str) -> Scenario:
    for found in scenarios():
        if found.phrasing == phrasing:
            return found
    raise ValueError(f"unknown narrative phrasing {phrasing!r}; have {narrative_phrasings()}")


def is_narrative(phrasing: str) -> bool:
    return phrasing.startswith(PREFIX)


def narrative_setup(phrasing: str, a_text: str, b_text: str) -> str:
    """The story's opening with the sets filled in (plain replacement: members may hold
    braces, which `str.format` would misread)."""
    return scenario(phrasing).setup.replace("{a}", a_text).replace("{b}", b_text)


def narrative_task(phrasing: str, operation: str) -> str:
    return scenario(phrasing).tasks[operation]
