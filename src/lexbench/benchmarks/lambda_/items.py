"""LAMBDA's items: what defines a dataset, how it is drawn from WordNet, and its files.

Two generation profiles, both deterministic (sorted vocabularies, a seeded `random.Random`
per relation, never the global PRNG or set iteration order):

* `strict` (default): the paper's text. Vocabulary W = lowercase alphabetic lemmas of 4-15
  characters; B, D, F are single words passing W's filter; the six tokens are distinct and
  none is a substring of another. The scoring set keeps every member of R(E).
* `listing`: the paper's generation script, to reproduce its published numbers: lemmas of
  any length above 3 (alphabetic), no substring filter, B/D/F may be multi-word or
  capitalised; like the script (`len({A,B,C,D,E,F}) < 6: continue`), the six tokens must be
  distinct strings.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lexbench.hashing import sha256_text
from lexbench.lexicon.wordnet.index import PAPER_RELATIONS, RelationIndex
from lexbench.paths import refuse_special_file

PROFILES = ("strict", "listing")
# A word filter that stands in for the profile's (a language-aware one for another wordnet).
WordFilter = Callable[[str], bool]
#: The most items per relation lexbench draws (100 times the paper's 1,000; 3 x 10,000
#: items take ~2 s). WordNet gives far more distinct query triples (strict profile: 8,630
#: eligible antonym queries, so ~10^11 triples), so memory and time bind first; the cap
#: keeps a mistyped count (99999999999999) from running until memory or disk is full.
MAX_PER_RELATION = 100_000


_STRICT_WORD = re.compile(r"[a-z]{4,15}")


@dataclass(frozen=True)
class LambdaConfig:
    """What defines a LAMBDA dataset. The defaults are the paper's."""

    profile: str = "strict"
    seed: int = 42
    per_relation: int = 1000
    relations: tuple[str, ...] = PAPER_RELATIONS

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; choose from {', '.join(PROFILES)}")
        if not 1 <= self.per_relation <= MAX_PER_RELATION:
            raise ValueError(
                f"per_relation must be from 1 to {MAX_PER_RELATION:,}, got {self.per_relation}"
            )
        if not self.relations:
            raise ValueError("at least one relation is needed")
        if len(set(self.relations)) != len(self.relations):
            raise ValueError(f"relations repeat: {self.relations}")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "relations": list(self.relations)}


@dataclass(frozen=True)
class LambdaItem:
    id: str
    relation: str
    support: tuple[tuple[str, str], tuple[str, str]]
    query: str
    gold: str
    candidates: tuple[str, ...]  # R(query), sorted
    query_pos: str  # part of speech of the query's first sense
    query_length: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "relation": self.relation,
            "support": [list(pair) for pair in self.support],
            "query": self.query,
            "gold": self.gold,
            "candidates": list(self.candidates),
            "query_pos": self.query_pos,
            "query_length": self.query_length,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> LambdaItem:
        try:
            (a, b), (c, d) = row["support"]
            return cls(
                id=str(row["id"]),
                relation=str(row["relation"]),
                support=((str(a), str(b)), (str(c), str(d))),
                query=str(row["query"]),
                gold=str(row["gold"]),
                candidates=tuple(row["candidates"]),
                query_pos=str(row.get("query_pos", "")),
                query_length=int(row.get("query_length", len(row["query"]))),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a LAMBDA item row ({error}): {dict(row)!r:.200}") from None


def in_strict_vocabulary(word: str) -> bool:
    """W's filter: lowercase alphabetic, 4 to 15 characters."""
    return _STRICT_WORD.fullmatch(word) is not None


def in_listing_vocabulary(word: str) -> bool:
    """The script's filter: alphabetic lemma names longer than 3 characters."""
    return len(word) > 3 and word.isalpha()


def vocabulary(index: RelationIndex, profile: str, keep: WordFilter | None = None) -> list[str]:
    if keep is None:
        keep = in_strict_vocabulary if profile == "strict" else in_listing_vocabulary
    return [w for w in index.lemma_names if keep(w)]  # lemma_names is sorted


def partners(
    index: RelationIndex, relation: str, word: str, profile: str, keep: WordFilter | None = None
) -> tuple[str, ...]:
    """The words B/D/F may be drawn from for `word` (sorted). `keep`, when given, is the
    strict filter B/D/F must pass instead of W's."""
    related = index.relation(relation, word)
    if keep is not None:
        return tuple(w for w in related if keep(w))
    if profile == "strict":
        return tuple(w for w in related if in_strict_vocabulary(w))
    return related


def has_substring_clash(tokens: Sequence[str]) -> bool:
    lowered = [t.lower() for t in tokens]
    return any(i != j and x in y for i, x in enumerate(lowered) for j, y in enumerate(lowered))


def _draw_relation(
    index: RelationIndex, relation: str, config: LambdaConfig, keep: WordFilter | None = None
) -> list[LambdaItem]:
    words_in_w = vocabulary(index, config.profile, keep)
    table = {w: partners(index, relation, w, config.profile, keep) for w in words_in_w}
    eligible = [w for w in words_in_w if table[w]]
    if len(eligible) < 3:
        raise ValueError(
            f"relation {relation!r} has only {len(eligible)} eligible query words "
            f"under profile {config.profile!r}; need at least 3"
        )
    # A string seed is hashed with SHA-512 by random.seed: independent of PYTHONHASHSEED.
    rng = random.Random(f"lambda:{config.seed}:{relation}")
    items: list[LambdaItem] = []
    seen: set[tuple[str, str, str]] = set()
    attempts = 0
    budget = 1000 + 200 * config.per_relation
    while len(items) < config.per_relation:
        attempts += 1
        if attempts > budget:
            raise ValueError(
                f"relation {relation!r}: drew only {len(items)} of "
                f"{config.per_relation} valid items in {budget} attempts"
            )
        a, c, e = rng.sample(eligible, 3)
        b, d, f = rng.choice(table[a]), rng.choice(table[c]), rng.choice(table[e])
        if (a, c, e) in seen:
            continue
        tokens = (a, b, c, d, e, f)
        if config.profile == "strict":
            if len({t.lower() for t in tokens}) < 6 or has_substring_clash(tokens):
                continue
        elif len(set(tokens)) < 6:
            continue  # the script's own check: six distinct strings (case-sensitive)
        seen.add((a, c, e))
        items.append(
            LambdaItem(
                id=f"{relation}-{len(items):04d}",
                relation=relation,
                support=((a, b), (c, d)),
                query=e,
                gold=f,
                candidates=index.relation(relation, e),
                query_pos=index.pos.get(e, ""),
                query_length=len(e),
            )
        )
    return items


def generate_items(
    index: RelationIndex, config: LambdaConfig = LambdaConfig(), keep: WordFilter | None = None
) -> list[LambdaItem]:
    """Every item of the dataset, relation by relation, in draw order. `keep` replaces the
    strict profile's word filter (for W and B/D/F alike): see `lambda_.lmf`."""
    unknown = [r for r in config.relations if r not in index.related]
    if unknown:
        raise ValueError(f"unknown relation(s) {unknown}; available: {', '.join(index.related)}")
    return [
        item
        for relation in config.relations
        for item in _draw_relation(index, relation, config, keep)
    ]


def dumps_items(items: Sequence[LambdaItem]) -> str:
    return "".join(
        json.dumps(i.to_dict(), ensure_ascii=False, sort_keys=True) + "\n" for i in items
    )


def manifest(
    items: Sequence[LambdaItem],
    config: LambdaConfig,
    index: RelationIndex,
    jsonl_text: str,
    extra_config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The manifest; `extra_config` (see `lambda_.lmf`) joins the config when given."""
    from lexbench import __version__

    return {
        "benchmark": "lambda",
        "config": {**config.to_dict(), **(extra_config or {})},
        "wordnet_version": index.version,
        "wordnet_fingerprint": index.fingerprint,
        "items": len(items),
        "per_relation": dict(sorted(Counter(i.relation for i in items).items())),
        "content_sha256": sha256_text(jsonl_text),
        "lexbench_version": __version__,
    }


# Why an item file must be a regular file: its manifest is written beside it.
ITEMS_NEED_A_FILE = (
    "the items go to FILE and their manifest to FILE.manifest.json beside it; name a "
    "regular file (or a new name)"
)


def write_items(
    path: str | Path,
    items: Sequence[LambdaItem],
    config: LambdaConfig,
    index: RelationIndex,
    extra_config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write FILE (JSONL) and FILE.manifest.json; returns the manifest. FILE may not be a
    device or a named pipe (nothing is written beside /dev/null)."""
    path = Path(path)
    refuse_special_file(path, ITEMS_NEED_A_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = dumps_items(items)
    path.write_text(text, encoding="utf-8")
    meta = manifest(items, config, index, text, extra_config)
    Path(f"{path}.manifest.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta


def read_items(path: str | Path) -> list[LambdaItem]:
    from lexbench.run.files import read_item_file

    return read_item_file(path, LambdaItem.from_dict)


def generate_lambda(
    *,
    profile: str = "strict",
    seed: int = 42,
    per_relation: int = 1000,
    relations: Sequence[str] = PAPER_RELATIONS,
    output: str | Path | None = None,
    wordnet: str | Path | None = None,
    progress: bool = True,
) -> list[LambdaItem]:
    """Generate LAMBDA items from WordNet 3.0 (the relation index is built once, then read
    from the disk cache); with `output`, also write FILE and FILE.manifest.json. Another
    wordnet or a token filter: `lambda_.lmf.generate_from`.

    >>> items = generate_lambda(per_relation=100, output="lambda.jsonl")   # doctest: +SKIP
    """
    from lexbench.lexicon.wordnet.index import relations_for
    from lexbench.lexicon.wordnet.index_cache import load_index

    config = LambdaConfig(
        profile=profile, seed=seed, per_relation=per_relation, relations=tuple(relations)
    )
    index = load_index(wordnet, relations=relations_for(config.relations), progress=progress)
    items = generate_items(index, config)
    if output is not None:
        write_items(output, items, config, index)
    return items
