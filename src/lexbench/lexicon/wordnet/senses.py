"""WordNet's senses as a precomputed table: what LAMBDA's error taxonomy asks of a word's
senses, answered without NLTK.

The drift finder (`benchmarks/lambda_taxonomy.py`) needs, for any word a model may answer:
its senses as NLTK's `wn.synsets(word)` finds them (through NLTK 3.10's `morphy`), and per
sense its part of speech, one-word lemma names, definition, similar-to and also-see senses,
direct (and instance) hypernyms, and Wu-Palmer similarity to another sense. Reading those
through NLTK costs about 3 s to import it, 2 s to open the reader and a file read and parse
per sense; at LAMBDA's scale (3,000 items) that was most of a run's scoring time.

`SenseTable` holds them as plain lists indexed by a sense number, built once per WordNet
(walking every synset through NLTK's reader, 12-17 s here) and cached as JSON beside the
relation index (about 0.3 s to read). Two pieces of NLTK are re-implemented on sense numbers,
step for step, and checked against NLTK (tests/lexicon/test_wordnet_senses.py on the tiny
WordNet, tests/benchmarks/test_lambda_speed_equivalence.py on WordNet 3.0):

* `synsets`: NLTK 3.10's `_morphy` (the exception list, or the detachment rules applied
  once, keeping the forms WordNet lists for that part of speech), noun, verb, adjective,
  adverb in that order. Older NLTK releases applied the rules again until a form matched;
  the table keeps 3.10's rule, so verdicts no longer move with the installed NLTK.
* `wup_similarity`: `Synset.wup_similarity` with its defaults (a simulated root for verbs,
  the lowest common hypernyms by minimum depth, ties broken by synset name).
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.heartbeat import long_step, say
from lexbench.lexicon.wordnet.reader import paused_gc
from lexbench.paths import cache_dir, read_cache_json, write_atomically

SENSE_FORMAT = 1
# The parts of speech `wn.synsets(word)` searches, in its order (satellites are under "a").
SEARCHED_POS = ("n", "v", "a", "r")
# NLTK 3.10's MORPHOLOGICAL_SUBSTITUTIONS, in its order (the order of the forms found).
DETACHMENT_RULES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


def morphy(
    form: str, pos: str, listed: Container[str], exceptions: Mapping[str, Sequence[str]]
) -> list[str]:
    """NLTK 3.10's `_morphy(form, pos)`: the form itself and its exception-list or detached
    forms (`DETACHMENT_RULES`), those `listed` for `pos`, each once, in NLTK's order. Shared
    by the sense table and the WN-LMF reader (`lexicon.wordnet.lmf_graph`)."""
    if form in exceptions:
        forms = list(exceptions[form])
    else:
        forms = [
            form[: len(form) - len(old)] + new
            for old, new in DETACHMENT_RULES[pos]
            if form.endswith(old)
        ]
    found: list[str] = []
    for candidate in [form, *forms]:
        if candidate in listed and candidate not in found:
            found.append(candidate)
    return found


# NLTK's simulated root: a sense above every top sense, named so it sorts as NLTK's does.
ROOT = -1
ROOT_NAME = "*ROOT*"


@dataclass(frozen=True)
class SenseTable:
    """Every synset of one WordNet, by sense number (see the module doc).

    `names[s]` is NLTK's synset name ("dog.n.01"), `hypernyms[s]` the direct and instance
    hypernyms, `similar[s]` the similar-to and also-see senses (synset pointers only, as
    NLTK's `similar_tos()` and `also_sees()`), `lemmas[s]` the lemma names as WordNet spells
    them, `definitions[s]` the gloss without its examples, `min_depth`/`max_depth` NLTK's
    hypernym depths. `senses[pos][lemma]` lists the senses of a lemma in WordNet's order,
    and `exceptions[pos][form]` the base forms of an irregular inflection.
    """

    version: str
    fingerprint: str
    names: Sequence[str]
    hypernyms: Sequence[Sequence[int]]
    similar: Sequence[Sequence[int]]
    lemmas: Sequence[Sequence[str]]
    definitions: Sequence[str]
    min_depth: Sequence[int]
    max_depth: Sequence[int]
    senses: Mapping[str, Mapping[str, Sequence[int]]]
    exceptions: Mapping[str, Mapping[str, Sequence[str]]]
    pos_letters: str = field(init=False, repr=False, compare=False)
    _paths: dict[tuple[int, bool], dict[int, int]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if not (
            len(self.names)
            == len(self.hypernyms)
            == len(self.similar)
            == len(self.lemmas)
            == len(self.definitions)
            == len(self.min_depth)
            == len(self.max_depth)
        ):
            raise ValueError("sense table: the per-sense lists differ in length")
        # One letter per sense: the scorer asks for parts of speech a quarter million times.
        object.__setattr__(self, "pos_letters", "".join(n.rsplit(".", 2)[1] for n in self.names))

    def __len__(self) -> int:
        return len(self.names)

    def pos(self, sense: int) -> str:
        """The sense's part of speech as NLTK writes it: n, v, a, s (satellite) or r."""
        return self.pos_letters[sense]

    def base_forms(self, form: str, pos: str) -> list[str]:
        """NLTK 3.10's `_morphy(form, pos)`: the form itself and its exception-list or
        detached forms, those WordNet lists for `pos`, each once, in NLTK's order."""
        return morphy(form, pos, self.senses[pos], self.exceptions[pos])

    def synsets(self, word: str) -> list[int]:
        """The senses `wn.synsets(word)` gives, in its order (underscores join phrases)."""
        lemma = word.lower()
        return [
            sense
            for pos in SEARCHED_POS
            for form in self.base_forms(lemma, pos)
            for sense in self.senses[pos][form]
        ]

    def wup_similarity(self, a: int, b: int) -> float | None:
        """NLTK 3.10's `a.wup_similarity(b)` with its defaults, on sense numbers."""
        # `_needs_root`: every part of speech but the noun, whose hierarchy has one top
        # (entity), gets the simulated root; WordNet 1.6 nouns have several tops too.
        pos = self.pos_letters
        simulate_root = self.version == "1.6" or pos[a] != "n" or pos[b] != "n"
        # The hypernyms both have (each sense counts as its own), and the simulated root.
        common = self._ancestors(a, simulate_root).keys() & self._ancestors(b, simulate_root).keys()
        if not common:
            return None
        deepest = max(self._min_depth(s) for s in common)
        lowest = sorted((s for s in common if self._min_depth(s) == deepest), key=self._name)
        subsumer = a if a in lowest else lowest[0]
        depth = self._max_depth(subsumer) + 1
        len1 = self._path_distance(a, subsumer, simulate_root)
        len2 = self._path_distance(b, subsumer, simulate_root)
        if len1 is None or len2 is None:
            return None
        len1 += depth
        len2 += depth
        return (2.0 * depth) / (len1 + len2)

    def path_similarity(self, a: int, b: int, simulate_root: bool | None = None) -> float | None:
        """NLTK 3.10's `a.path_similarity(b, simulate_root=...)` on sense numbers: one over
        one plus the shortest hypernym path between them. None: NLTK's default (a root
        simulated above every part of speech but WordNet 3.0's nouns, as Wu-Palmer)."""
        if simulate_root is None:
            pos = self.pos_letters
            simulate_root = self.version == "1.6" or pos[a] != "n" or pos[b] != "n"
        distance = self._path_distance(a, b, simulate_root)
        return None if distance is None else 1.0 / (distance + 1)

    def _name(self, sense: int) -> str:
        return ROOT_NAME if sense == ROOT else self.names[sense]

    def _min_depth(self, sense: int) -> int:
        return 0 if sense == ROOT else self.min_depth[sense]

    def _max_depth(self, sense: int) -> int:
        return 0 if sense == ROOT else self.max_depth[sense]

    def _ancestors(self, sense: int, simulate_root: bool) -> dict[int, int]:
        """NLTK's `_shortest_hypernym_paths`: every hypernym of the sense (itself included)
        with its fewest steps up, and the simulated root one step above the farthest; kept,
        as Wu-Palmer asks for the same senses again and again."""
        key = (sense, simulate_root)
        found = self._paths.get(key)
        if found is None:
            if sense == ROOT:
                found = {ROOT: 0}
            else:
                found = {}
                level, steps = [sense], 0
                while level:  # breadth first: the first visit is the fewest steps
                    following: list[int] = []
                    for s in level:
                        if s not in found:
                            found[s] = steps
                            following.extend(self.hypernyms[s])
                    level, steps = following, steps + 1
                if simulate_root:
                    found[ROOT] = max(found.values()) + 1
            self._paths[key] = found
        return found

    def _path_distance(self, a: int, b: int, simulate_root: bool) -> int | None:
        """NLTK's `a.shortest_path_distance(b, simulate_root)`."""
        if a == b:
            return 0
        from_a, from_b = self._ancestors(a, simulate_root), self._ancestors(b, simulate_root)
        return min((steps + from_b[s] for s, steps in from_a.items() if s in from_b), default=None)


# ------------------------------------------------------------------------------ build, cache


class LemmaSenses(Mapping[str, Sequence[int]]):
    """`lemma -> senses` for one part of speech, kept as the cache file stores it: the
    lemmas in one string, their senses in one flat list with each lemma's start. Read this
    way the 155,000 lemmas of WordNet 3.0 load five times faster than as a JSON object."""

    def __init__(self, lemmas: Sequence[str], starts: Sequence[int], senses: Sequence[int]):
        if len(starts) != len(lemmas) + 1 or starts[-1] != len(senses):
            raise ValueError("lemma senses: starts do not match the lemmas and senses")
        self._row = dict(zip(lemmas, range(len(lemmas))))
        self._starts = starts
        self._senses = senses

    @classmethod
    def of(cls, table: Mapping[str, Sequence[int]]) -> LemmaSenses:
        lemmas = sorted(table)
        starts = [0]
        senses: list[int] = []
        for lemma in lemmas:
            senses.extend(table[lemma])
            starts.append(len(senses))
        return cls(lemmas, starts, senses)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LemmaSenses:
        lemmas = data["lemmas"].split("\n") if data["lemmas"] else []
        return cls(lemmas, data["starts"], data["senses"])

    def to_json(self) -> dict[str, Any]:
        lemmas = list(self._row)
        if any("\n" in lemma for lemma in lemmas):
            raise ValueError("a WordNet lemma holds a line break")
        return {
            "lemmas": "\n".join(lemmas),
            "starts": list(self._starts),
            "senses": list(self._senses),
        }

    def __getitem__(self, lemma: str) -> Sequence[int]:
        row = self._row[lemma]
        return self._senses[self._starts[row] : self._starts[row + 1]]

    def __contains__(self, lemma: object) -> bool:
        return lemma in self._row

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)


def build_sense_table(reader: object, version: str, fingerprint: str) -> SenseTable:
    """Walk every synset of an open NLTK WordNet reader once and keep what the table holds."""
    synsets = [s for pos in ("n", "v", "a", "r") for s in reader.all_synsets(pos)]  # type: ignore[attr-defined]
    number = {(_file_pos(s.pos()), s.offset()): i for i, s in enumerate(synsets)}

    def numbers(related: list) -> list[int]:
        return [number[_file_pos(r.pos()), r.offset()] for r in related]

    senses: dict[str, dict[str, list[int]]] = {pos: {} for pos in SEARCHED_POS}
    for lemma, by_pos in sorted(reader._lemma_pos_offset_map.items()):  # type: ignore[attr-defined]
        for pos in SEARCHED_POS:
            if pos in by_pos:
                senses[pos][lemma] = [number[pos, offset] for offset in by_pos[pos]]
    exceptions = {
        pos: {form: list(bases) for form, bases in sorted(reader._exception_map[pos].items())}  # type: ignore[attr-defined]
        for pos in SEARCHED_POS
    }
    return SenseTable(
        version=version,
        fingerprint=fingerprint,
        names=[s.name() for s in synsets],
        hypernyms=[numbers(s.hypernyms() + s.instance_hypernyms()) for s in synsets],
        similar=[numbers(s.similar_tos() + s.also_sees()) for s in synsets],
        lemmas=[list(s.lemma_names()) for s in synsets],
        definitions=[s.definition() for s in synsets],
        min_depth=[s.min_depth() for s in synsets],
        max_depth=[s.max_depth() for s in synsets],
        senses={pos: LemmaSenses.of(table) for pos, table in senses.items()},
        exceptions=exceptions,
    )


def _file_pos(pos: str) -> str:
    return "a" if pos == "s" else pos


def save_sense_table(table: SenseTable, path: Path) -> None:
    payload = {
        "format": SENSE_FORMAT,
        "version": table.version,
        "fingerprint": table.fingerprint,
        "names": list(table.names),
        "hypernyms": list(table.hypernyms),
        "similar": list(table.similar),
        "lemmas": list(table.lemmas),
        "definitions": list(table.definitions),
        "min_depth": list(table.min_depth),
        "max_depth": list(table.max_depth),
        "senses": {
            pos: _lemma_senses(by_lemma).to_json() for pos, by_lemma in table.senses.items()
        },
        "exceptions": table.exceptions,
    }
    # As one unit: a killed build never leaves a half-written table.
    write_atomically(path, json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


def _lemma_senses(table: Mapping[str, Sequence[int]]) -> LemmaSenses:
    return table if isinstance(table, LemmaSenses) else LemmaSenses.of(table)


def read_sense_table(path: Path) -> SenseTable:
    with paused_gc():  # a million small objects and no cycles (see paused_gc)
        payload = read_cache_json(path, "WordNet sense table", (SENSE_FORMAT,))
    del payload["format"]
    payload["senses"] = {
        pos: LemmaSenses.from_json(data) for pos, data in payload["senses"].items()
    }
    return SenseTable(**payload)


_LOADED: dict[Path, SenseTable] = {}


def sense_table_path(fingerprint: str) -> Path:
    """Where the sense table of the WordNet with this content fingerprint is cached."""
    return cache_dir("wordnet-index") / f"senses-v{SENSE_FORMAT}-{fingerprint[:16]}.json"


def load_sense_table(directory: Path, fingerprint: str, progress: bool = False) -> SenseTable:
    """The sense table of the prepared WordNet in `directory` (whose content fingerprint is
    `fingerprint`): read from the cache, or built through NLTK once and cached; kept in
    memory for the life of the process."""
    path = sense_table_path(fingerprint)
    if path in _LOADED:
        return _LOADED[path]
    if path.is_file():
        table = read_sense_table(path)
    else:
        from lexbench.lexicon.wordnet.reader import open_reader

        # Often built while a run's bar shows (scoring's first wrong answer): the lines go
        # above it.
        with long_step("building WordNet's sense table (once)", quiet=not progress):
            reader = open_reader(directory)
            with paused_gc():
                table = build_sense_table(reader, str(reader.get_version()), fingerprint)
        save_sense_table(table, path)
        if progress:
            say(f"lexbench: WordNet's sense table cached at {path}")
    if table.fingerprint != fingerprint:
        raise ValueError(
            f"{path} was built from another WordNet (fingerprints differ); "
            f"delete it and lexbench builds it again"
        )
    _LOADED[path] = table
    return table
