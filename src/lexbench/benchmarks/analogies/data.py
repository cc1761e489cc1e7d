"""Completion-analogy datasets (a : b :: c : ?): the item type, a dataset's hash, and the
seeded per-mapping limit.

One item is an `Analogy`: a, b, c, the gold d, further accepted answers, a `type` (the table's
rows: SCAN's science/metaphor, Google's semantic/syntactic, BATS's four folders) and a
`mapping` (the cluster standard errors are computed over: SCAN's concept mapping, Google's
section, BATS's sub-relation).

The files they are read from: `google` (word2vec-format questions, the Google set) and
`pairs` (BATS 3.0 and word-pair files given by path); `sets.load_dataset` picks by name.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.hashing import sha256_text
from lexbench.text import WORD as _WORD


@dataclass(frozen=True)
class Analogy:
    """a : b :: c : d, with `alternatives` also accepted in place of d."""

    id: str
    a: str
    b: str
    c: str
    d: str
    alternatives: tuple[str, ...] = ()
    type: str = ""
    mapping: str = ""

    @property
    def accepted(self) -> tuple[str, ...]:
        """The gold answer then the alternatives, without repeats."""
        return tuple(dict.fromkeys((self.d, *self.alternatives)))

    def words(self) -> set[str]:
        """Every lower-cased word of the item (question and accepted answers)."""
        return {
            w.lower()
            for term in (self.a, self.b, self.c, *self.accepted)
            for w in _WORD.findall(term)
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "a": self.a,
            "b": self.b,
            "c": self.c,
            "d": self.d,
            "alternatives": list(self.alternatives),
            "type": self.type,
            "mapping": self.mapping,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> Analogy:
        try:
            return cls(
                id=str(row["id"]),
                a=str(row["a"]),
                b=str(row["b"]),
                c=str(row["c"]),
                d=str(row["d"]),
                alternatives=tuple(row.get("alternatives") or ()),
                type=str(row.get("type", "")),
                mapping=str(row.get("mapping", "")),
            )
        except KeyError as error:
            raise ValueError(f"not an analogy row (missing {error}): {dict(row)!r:.200}") from None


def dataset_sha256(items: Sequence[Analogy]) -> str:
    text = "".join(
        json.dumps(i.to_dict(), sort_keys=True, ensure_ascii=False) + "\n" for i in items
    )
    return sha256_text(text)


def check_unique_ids(items: Sequence[Analogy], source: str) -> None:
    repeated = [k for k, n in Counter(i.id for i in items).items() if n > 1]
    if repeated:
        raise ValueError(f"{source}: item ids repeat: {repeated[:5]}")


def limit_per_mapping(items: Sequence[Analogy], limit: int | None, seed: int = 0) -> list[Analogy]:
    """At most `limit` items of each mapping, drawn with a seeded RNG from the sorted ids
    (the file's first lines would over-represent its first pairs); file order is kept."""
    if limit is None:
        return list(items)
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    by_mapping: dict[str, list[Analogy]] = defaultdict(list)
    for item in items:
        by_mapping[item.mapping].append(item)
    keep: set[str] = set()
    for mapping in sorted(by_mapping):
        members = sorted(by_mapping[mapping], key=lambda i: i.id)
        if len(members) <= limit:
            keep.update(i.id for i in members)
        else:
            rng = random.Random(f"limit:{seed}:{mapping}")
            keep.update(i.id for i in rng.sample(members, limit))
    return [item for item in items if item.id in keep]
