"""The relation index on disk: where it is cached (a file per WordNet copy and set of
relations, keyed by the WordNet's fingerprint and the relation functions), written as one
unit, read back (a format-1 file converted once), and kept in memory for the life of the
process. `load_index` builds the index on first use (about 20 s) and reads it from the
cache afterwards (about 0.3 s).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from lexbench.heartbeat import say
from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet
from lexbench.lexicon.wordnet.index import (
    NAME_SEPARATOR,
    RELATIONS,
    JoinedNames,
    RelationIndex,
    build_index,
    default_relations,
)
from lexbench.lexicon.wordnet.reader import paused_gc
from lexbench.paths import cache_dir, read_cache_json, write_atomically

# Format 2 keeps each word's related names in one string (format 1: a list of strings):
# read four times faster, and converted from a format-1 file already in the cache.
INDEX_FORMAT = 2


def _joined(names: Iterable[str]) -> str:
    names = list(names)
    if any(NAME_SEPARATOR in name for name in names):
        raise ValueError(f"a WordNet name holds {NAME_SEPARATOR!r}: {names}")
    return NAME_SEPARATOR.join(names)


def _relation_key(relations: Iterable[str]) -> str:
    names = sorted(relations)
    # The function's qualified name goes in the key so a re-registered relation rebuilds.
    described = [f"{n}={RELATIONS[n].__module__}.{RELATIONS[n].__qualname__}" for n in names]
    return hashlib.sha256("|".join(described).encode()).hexdigest()[:12]


def _index_path(directory: Path, relations: Iterable[str], version: int = INDEX_FORMAT) -> Path:
    key = f"{fingerprint(directory)[:16]}-{_relation_key(relations)}"
    return cache_dir("wordnet-index") / f"relations-v{version}-{key}.json"


def save_index(index: RelationIndex, path: Path) -> None:
    payload = {
        "format": INDEX_FORMAT,
        "version": index.version,
        "fingerprint": index.fingerprint,
        "lemma_names": list(index.lemma_names),
        "related": {r: {w: _joined(v) for w, v in t.items()} for r, t in index.related.items()},
        "pos": dict(index.pos),
        "exceptions": {w: list(v) for w, v in index.exceptions.items()},
    }
    # As one unit: a killed build never leaves a half-written index.
    write_atomically(path, json.dumps(payload, separators=(",", ":")))


def read_index(path: Path) -> RelationIndex:
    """An index file of this format, or of format 1 (names as lists)."""
    with paused_gc():  # half a million strings and no cycles (see paused_gc)
        payload = read_cache_json(path, "WordNet relation index", (1, INDEX_FORMAT))
        found = payload["format"]
        related: dict[str, Mapping[str, tuple[str, ...]]] = {
            r: JoinedNames(t) if found == INDEX_FORMAT else {w: tuple(v) for w, v in t.items()}
            for r, t in payload["related"].items()
        }
        return RelationIndex(
            version=payload["version"],
            fingerprint=payload["fingerprint"],
            lemma_names=tuple(payload["lemma_names"]),
            related=related,
            pos=payload["pos"],
            exceptions={w: tuple(v) for w, v in payload["exceptions"].items()},
        )


_LOADED: dict[Path, RelationIndex] = {}


def load_index(
    wordnet: str | os.PathLike[str] | None = None,
    relations: Iterable[str] | None = None,
    progress: bool = True,
) -> RelationIndex:
    """The relation index for the WordNet at `wordnet` (located automatically when None).

    Built on first use (about 20 s) and read from the on-disk cache afterwards (about 0.3 s);
    kept in memory for the life of the process.
    """
    directory = locate_wordnet(wordnet)
    names = tuple(relations) if relations is not None else default_relations()
    path = _index_path(directory, names)
    if path in _LOADED:
        return _LOADED[path]
    earlier = _index_path(directory, names, version=1)
    if path.is_file():
        index = read_index(path)
    elif earlier.is_file():
        index = read_index(earlier)  # written by an earlier lexbench: converted
        save_index(index, path)
        with contextlib.suppress(OSError):
            earlier.unlink()
        index = read_index(path)
    else:
        index = build_index(directory, names, progress=progress)
        save_index(index, path)
        if progress:
            say(f"lexbench: WordNet's relation index cached at {path}")
    _LOADED[path] = index
    return index


def index_cache_path(
    wordnet: str | os.PathLike[str] | None = None, relations: Iterable[str] | None = None
) -> Path:
    """Where `load_index` keeps (or would keep) the cached index."""
    directory = locate_wordnet(wordnet)
    return _index_path(
        directory, tuple(relations) if relations is not None else default_relations()
    )
