"""Offline WordNet 3.0: the relation index the benchmarks read.

Two layers, after goodmami's `wn`:

* the raw-data layer (`lexicon/wordnet/files.py`) finds a WordNet 3.0
  database directory (a path the user gives, a copy lexbench prepared earlier, Debian's
  `wordnet-base` package, NLTK's own data, or NLTK's downloader when online) and prepares a
  copy NLTK's reader (`lexicon/wordnet/reader.py`) opens;
* `RelationIndex` is the thin, immutable facade the benchmarks use: for every lemma name, the
  sets that NLTK's API gives for each registered relation, built once and cached on disk as
  JSON (`lexicon/wordnet/index_cache.py`, `load_index`) so later commands start in about
  0.3 s instead of walking WordNet again.

Relations are pluggable: `RELATIONS` maps a name to a function `(reader, word) -> set[str]`.
Register a new one with `register_relation` before building an index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from lexbench.heartbeat import Step, long_step
from lexbench.lexicon.wordnet.files import fingerprint
from lexbench.lexicon.wordnet.reader import open_reader

# --------------------------------------------------------------------------------------------
# Relations: what NLTK's API gives for a word, as the LAMBDA paper specifies
# --------------------------------------------------------------------------------------------

RelationFunction = Callable[[Any, str], set[str]]


def _clean(name: str) -> str:
    return name.replace("_", " ")


def _lemmas(reader: Any, word: str) -> list[Any]:
    return [lemma for synset in reader.synsets(word) for lemma in synset.lemmas()]


def synonyms(reader: Any, word: str) -> set[str]:
    """Names of the lemmas of every synset in `wn.synsets(word)`."""
    return {_clean(lemma.name()) for lemma in _lemmas(reader, word)}


def antonyms(reader: Any, word: str) -> set[str]:
    """`lemma.antonyms()` of the lemmas of every synset of the word."""
    return {_clean(ant.name()) for lemma in _lemmas(reader, word) for ant in lemma.antonyms()}


def derivations(reader: Any, word: str) -> set[str]:
    """`lemma.derivationally_related_forms()` of the lemmas of every synset of the word."""
    return {
        _clean(form.name())
        for lemma in _lemmas(reader, word)
        for form in lemma.derivationally_related_forms()
    }


def hypernyms(reader: Any, word: str) -> set[str]:
    """Lemma names of the direct (and instance) hypernyms of every synset of the word."""
    return {
        _clean(lemma.name())
        for synset in reader.synsets(word)
        for parent in synset.hypernyms() + synset.instance_hypernyms()
        for lemma in parent.lemmas()
    }


def hyponyms(reader: Any, word: str) -> set[str]:
    """Lemma names of the direct (and instance) hyponyms of every synset of the word."""
    return {
        _clean(lemma.name())
        for synset in reader.synsets(word)
        for child in synset.hyponyms() + synset.instance_hyponyms()
        for lemma in child.lemmas()
    }


def meronyms(reader: Any, word: str) -> set[str]:
    """Lemma names of the part, member and substance meronyms of every synset of the word."""
    return {
        _clean(lemma.name())
        for synset in reader.synsets(word)
        for part in synset.part_meronyms() + synset.member_meronyms() + synset.substance_meronyms()
        for lemma in part.lemmas()
    }


def holonyms(reader: Any, word: str) -> set[str]:
    """Lemma names of the part, member and substance holonyms of every synset of the word."""
    return {
        _clean(lemma.name())
        for synset in reader.synsets(word)
        for whole in synset.part_holonyms() + synset.member_holonyms() + synset.substance_holonyms()
        for lemma in whole.lemmas()
    }


RELATIONS: dict[str, RelationFunction] = {
    "synonym": synonyms,
    "antonym": antonyms,
    "derivation": derivations,
    "hypernym": hypernyms,
    "hyponym": hyponyms,
    "meronym": meronyms,
    "holonym": holonyms,
}
PAPER_RELATIONS: tuple[str, ...] = ("synonym", "antonym", "derivation")
# Indexed only when asked for by name: the default index (its cache file, and the links the
# error taxonomy follows) stays what it was before these relations existed.
OPT_IN_RELATIONS: tuple[str, ...] = ("meronym", "holonym")


def default_relations() -> tuple[str, ...]:
    """The relations an index holds when none are named: every registered one but the
    opt-in ones."""
    return tuple(name for name in RELATIONS if name not in OPT_IN_RELATIONS)


def relations_for(wanted: Iterable[str]) -> tuple[str, ...]:
    """The default relations plus any opt-in ones of `wanted` (the index a dataset with
    those relations needs)."""
    extra = [name for name in OPT_IN_RELATIONS if name in set(wanted)]
    return default_relations() + tuple(extra)


def register_relation(name: str, function: RelationFunction) -> None:
    """Add a relation; indexes built afterwards include it (the cache key changes)."""
    if not name.isidentifier():
        raise ValueError(f"relation name must be an identifier, got {name!r}")
    RELATIONS[name] = function


# --------------------------------------------------------------------------------------------
# The facade: an immutable relation index, and how it is built
# --------------------------------------------------------------------------------------------

NAME_SEPARATOR = "|"
_POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


@dataclass(frozen=True)
class RelationIndex:
    """Every WordNet lemma name with its related words, per relation.

    `related[relation][word]` is a sorted tuple of names (underscores already spaces, the
    word itself excluded case-insensitively). Words with an empty set are absent.
    `pos[word]` is the part of speech of the word's first (most frequent) sense.
    `exceptions` holds WordNet's irregular inflections (`geese` -> `goose`), used to
    recognise surface variants of a word without opening NLTK.

    >>> index = load_index()                       # doctest: +SKIP
    >>> index.relation("antonym", "large")[:2]     # doctest: +SKIP
    ('little', 'small')
    """

    version: str
    fingerprint: str
    lemma_names: tuple[str, ...]
    related: Mapping[str, Mapping[str, tuple[str, ...]]]
    pos: Mapping[str, str]
    exceptions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def relations(self) -> tuple[str, ...]:
        return tuple(self.related)

    def relation(self, relation: str, word: str) -> tuple[str, ...]:
        """R(word) for the named relation; empty when the word has none."""
        try:
            table = self.related[relation]
        except KeyError:
            known = ", ".join(self.related)
            raise KeyError(f"unknown relation {relation!r}; this index has: {known}") from None
        return table.get(word, ())

    def all_related(self, word: str) -> set[str]:
        """Every word linked to `word` by any indexed relation (for semantic-drift checks)."""
        joined_tables = self._joined_tables
        if joined_tables is not None:
            # As read from the cache: the joined names of every relation, split once.
            joined = [found for table in joined_tables if (found := table.get(word))]
            return set(NAME_SEPARATOR.join(joined).split(NAME_SEPARATOR)) if joined else set()
        out: set[str] = set()
        for table in self.related.values():
            out.update(table.get(word, ()))
        return out

    def joined_related(self, word: str) -> str:
        """The names of `all_related(word)` in one "name|name" string, repeats and all
        ("" when none): one string to search, without making a set."""
        joined_tables = self._joined_tables
        if joined_tables is not None:
            return NAME_SEPARATOR.join(filter(None, [table.get(word) for table in joined_tables]))
        return NAME_SEPARATOR.join(
            name for table in self.related.values() for name in table.get(word, ())
        )

    @cached_property
    def _joined_tables(self) -> list[dict[str, str]] | None:
        """The relations' `word -> "name|name"` dictionaries when all are read from the
        cache as joined names (see JoinedNames), else None."""
        tables = list(self.related.values())
        if all(type(table) is JoinedNames for table in tables):
            return [table._joined for table in tables]  # type: ignore[attr-defined]
        return None


class JoinedNames(Mapping[str, tuple[str, ...]]):
    """One relation's table as the cache file keeps it, `word -> "name|name|..."`, split
    into a tuple when a word is asked for: a run asks for a few thousand of 150,000 words,
    and the million names it never asks for are never made into objects."""

    def __init__(self, joined: dict[str, str]):
        self._joined = joined

    def __getitem__(self, word: str) -> tuple[str, ...]:
        return tuple(self._joined[word].split(NAME_SEPARATOR))

    def get(self, word: str, default: Any = None) -> Any:
        joined = self._joined.get(word)
        return default if joined is None else tuple(joined.split(NAME_SEPARATOR))

    def __contains__(self, word: object) -> bool:
        return word in self._joined

    def __iter__(self) -> Iterator[str]:
        return iter(self._joined)

    def __len__(self) -> int:
        return len(self._joined)


def _read_exceptions(directory: Path) -> dict[str, tuple[str, ...]]:
    table: dict[str, set[str]] = {}
    for name in ("noun.exc", "verb.exc", "adj.exc", "adv.exc"):
        path = directory / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                table.setdefault(parts[0], set()).update(parts[1:])
    return {word: tuple(sorted(bases)) for word, bases in sorted(table.items())}


def build_index(
    directory: Path, relations: Iterable[str] | None = None, progress: bool = False
) -> RelationIndex:
    """Walk WordNet once through NLTK's API and collect every relation for every lemma."""
    names = tuple(relations) if relations is not None else default_relations()
    unknown = [n for n in names if n not in RELATIONS]
    if unknown:
        raise KeyError(f"unknown relation(s) {unknown}; registered: {sorted(RELATIONS)}")
    with long_step("building WordNet's relation index (once)", quiet=not progress) as step:
        reader = open_reader(directory)
        return index_from_reader(
            reader,
            names,
            version=str(reader.get_version()),
            fingerprint=fingerprint(directory),
            exceptions=_read_exceptions(directory),
            step=step,
        )


def index_from_reader(
    reader: Any,
    names: Iterable[str],
    version: str,
    fingerprint: str,
    exceptions: Mapping[str, tuple[str, ...]],
    step: Step | None = None,
) -> RelationIndex:
    """The index of any wordnet a reader with NLTK's API answers for (`synsets(word)`,
    `all_lemma_names()`, synsets' and lemmas' relation methods): WordNet 3.0 through NLTK,
    or a WN-LMF wordnet through `lexicon.wordnet.lmf_graph`. One loop and the same
    `RELATIONS` functions for both, so the two paths cannot apply different rules.
    `step`: the long step under way (`heartbeat.long_step`), told each name done."""
    names = tuple(names)
    lemma_names = tuple(sorted(reader.all_lemma_names()))
    related: dict[str, dict[str, tuple[str, ...]]] = {n: {} for n in names}
    pos: dict[str, str] = {}
    if step is not None:
        step.total, step.unit = len(lemma_names), "lemma names"
    for word in lemma_names:
        if step is not None:
            step.done += 1
        synsets = reader.synsets(word)
        if synsets:
            pos[word] = _POS_NAMES.get(synsets[0].pos(), "")  # WN-LMF has more
        lowered = word.lower()
        for name in names:
            members = {m for m in RELATIONS[name](reader, word) if m.lower() != lowered}
            if members:
                related[name][word] = tuple(sorted(members))
    return RelationIndex(
        version=version,
        fingerprint=fingerprint,
        lemma_names=lemma_names,
        related=related,
        pos=pos,
        exceptions=dict(exceptions),
    )
