"""One lexicon of a WN-LMF file seen through NLTK's WordNet API, so the relation index of any
wordnet is built by the same loop and the same `RELATIONS` functions as WordNet 3.0's
(`lexicon.wordnet.index.index_from_reader`): the LAMBDA paper's Listing 1 rules, applied once.

What NLTK's reader does and this view does alike:

* `synsets(word)`: the word lowercased, looked up among the lowercased lemmas (spaces as
  underscores, as WordNet's index files write them), nouns, verbs, adjectives (satellites
  included), adverbs in that order. For English, through NLTK 3.10's `morphy`
  (`wordnet.senses.morphy`): the detachment rules, and the irregular forms the file lists as
  `<Form>`s of an entry standing for WordNet's exception lists. Other languages: no base-form
  lookup (the rules are English), the word only. An entry's `<Form>`s count as exception-list
  lines even when the entry has no sense (then, as NLTK with "acer acer" in adj.exc, the form
  finds no base and the rules are not tried).
* `lemma.antonyms()`, `lemma.derivationally_related_forms()`: the `SenseRelation`s of those
  types (antonym subtypes `anto_*` count as antonym), plus the `SynsetRelation`s of those
  types, which link every lemma of one synset to every lemma of the other. Read as stored,
  as NLTK reads WordNet's pointers; a wordnet that stores a relation one way only (fewer than
  half of its links have their reverse) gets the reverse added (see `one_way_relations`).
* `synset.hypernyms()` and the rest: the `SynsetRelation`s of each type, each completed from
  its inverse (`hyponym` links give `hypernyms()` too), as wordnets often store one direction.
  The meronym kinds NLTK lacks (`mero_location`, `mero_portion`, plain `meronym`) count as
  part meronyms, their holonyms likewise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from lexbench.lexicon.wordnet.senses import SEARCHED_POS, morphy

# WN-LMF sense relation types read as lexbench's lemma relations.
LEMMA_RELATION_TYPES: Mapping[str, str] = {
    "antonym": "antonym",
    "anto_gradable": "antonym",
    "anto_simple": "antonym",
    "anto_converse": "antonym",
    "derivation": "derivation",
}
# WN-LMF synset relation type -> (NLTK synset method it feeds, the method its inverse feeds).
SYNSET_RELATION_TYPES: Mapping[str, tuple[str, str]] = {
    "hypernym": ("hypernyms", "hyponyms"),
    "instance_hypernym": ("instance_hypernyms", "instance_hyponyms"),
    "hyponym": ("hyponyms", "hypernyms"),
    "instance_hyponym": ("instance_hyponyms", "instance_hypernyms"),
    "mero_part": ("part_meronyms", "part_holonyms"),
    "mero_member": ("member_meronyms", "member_holonyms"),
    "mero_substance": ("substance_meronyms", "substance_holonyms"),
    "mero_location": ("part_meronyms", "part_holonyms"),
    "mero_portion": ("part_meronyms", "part_holonyms"),
    "meronym": ("part_meronyms", "part_holonyms"),
    "holo_part": ("part_holonyms", "part_meronyms"),
    "holo_member": ("member_holonyms", "member_meronyms"),
    "holo_substance": ("substance_holonyms", "substance_meronyms"),
    "holo_location": ("part_holonyms", "part_meronyms"),
    "holo_portion": ("part_holonyms", "part_meronyms"),
    "holonym": ("part_holonyms", "part_meronyms"),
}
# Where a synset's part of speech is searched: NLTK's four, satellites with adjectives, then
# the parts of speech WN-LMF adds (conjunction, adposition, other, unknown).
_SEARCH_BUCKET = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r", "c": "c", "p": "p", "x": "x"}
SEARCH_ORDER = (*SEARCHED_POS, "c", "p", "x", "u")


def lemma_key(written_form: str) -> str:
    """How WordNet's index files write a lemma: lowercase, words joined by underscores."""
    return written_form.strip().lower().replace(" ", "_")


class LmfLemma:
    """A sense, as NLTK's `Lemma`: its name (underscores for spaces) and its lemma links."""

    __slots__ = ("_name", "links")

    def __init__(self, name: str) -> None:
        self._name = name
        self.links: dict[str, list[LmfLemma]] = {}

    def name(self) -> str:
        return self._name

    def antonyms(self) -> list[LmfLemma]:
        return self.links.get("antonym", [])

    def derivationally_related_forms(self) -> list[LmfLemma]:
        return self.links.get("derivation", [])


class LmfSynset:
    """A synset, as NLTK's `Synset`: part of speech, lemmas and synset links."""

    __slots__ = ("_lemmas", "_pos", "links")

    def __init__(self, pos: str) -> None:
        self._pos = pos
        self._lemmas: list[LmfLemma] = []
        self.links: dict[str, list[LmfSynset]] = {}

    def pos(self) -> str:
        return self._pos

    def lemmas(self) -> list[LmfLemma]:
        return self._lemmas

    def _linked(self, method: str) -> list[LmfSynset]:
        return self.links.get(method, [])

    def hypernyms(self) -> list[LmfSynset]:
        return self._linked("hypernyms")

    def instance_hypernyms(self) -> list[LmfSynset]:
        return self._linked("instance_hypernyms")

    def hyponyms(self) -> list[LmfSynset]:
        return self._linked("hyponyms")

    def instance_hyponyms(self) -> list[LmfSynset]:
        return self._linked("instance_hyponyms")

    def part_meronyms(self) -> list[LmfSynset]:
        return self._linked("part_meronyms")

    def member_meronyms(self) -> list[LmfSynset]:
        return self._linked("member_meronyms")

    def substance_meronyms(self) -> list[LmfSynset]:
        return self._linked("substance_meronyms")

    def part_holonyms(self) -> list[LmfSynset]:
        return self._linked("part_holonyms")

    def member_holonyms(self) -> list[LmfSynset]:
        return self._linked("member_holonyms")

    def substance_holonyms(self) -> list[LmfSynset]:
        return self._linked("substance_holonyms")


class LmfWordNet:
    """The reader `index_from_reader` walks, over one lexicon as `wn.lmf.load` gives it
    (dangling links and repeated ids already counted and dropped: `wordnet_lmf_read`).

    `base_forms`: apply English `morphy` (True for an English lexicon by default).
    """

    def __init__(self, lexicon: Mapping[str, Any], base_forms: bool) -> None:
        self.version = f"{lexicon['id']}:{lexicon['version']} ({lexicon['language']})"
        self.base_forms = base_forms
        self.one_way: list[str] = []  # lemma relations whose reverse links were added
        self._last_word: str | None = None
        self._last_synsets: list[LmfSynset] = []
        synsets: dict[str, LmfSynset] = {}
        entry_pos: dict[str, str] = {}
        for entry in lexicon.get("entries", []):
            for sense in entry.get("senses", []):
                entry_pos.setdefault(sense["synset"], entry["lemma"]["partOfSpeech"])
        for synset in lexicon.get("synsets", []):
            pos = synset.get("partOfSpeech") or entry_pos.get(synset["id"], "u")
            synsets[synset["id"]] = LmfSynset(pos)
        self._index: dict[str, dict[str, list[LmfSynset]]] = {p: {} for p in SEARCH_ORDER}
        self.exceptions: dict[str, dict[str, list[str]]] = {p: {} for p in SEARCH_ORDER}
        senses: dict[str, LmfLemma] = {}
        for entry in lexicon.get("entries", []):
            written = entry["lemma"]["writtenForm"].strip()
            key = lemma_key(written)
            bucket = _SEARCH_BUCKET.get(entry["lemma"]["partOfSpeech"], "u")
            for sense in entry.get("senses", []):
                synset = synsets[sense["synset"]]
                lemma = LmfLemma(written.replace(" ", "_"))
                synset.lemmas().append(lemma)
                senses[sense["id"]] = lemma
                found = self._index[bucket].setdefault(key, [])
                if synset not in found:  # a lemma's senses: a short list
                    found.append(synset)
            # Every entry's forms, with or without senses: an irregular form of a base with
            # no sense (WordNet's "acer acer") keeps the rules off the form, as in NLTK.
            for form in entry.get("forms", []):
                bases = self.exceptions[bucket].setdefault(lemma_key(form["writtenForm"]), [])
                if key not in bases:
                    bases.append(key)
        self._link_lemmas(lexicon, senses, synsets)
        self._link_synsets(lexicon, synsets)

    def _link_lemmas(
        self,
        lexicon: Mapping[str, Any],
        senses: Mapping[str, LmfLemma],
        synsets: Mapping[str, LmfSynset],
    ) -> None:
        pairs: dict[str, dict[tuple[int, int], tuple[LmfLemma, LmfLemma]]] = defaultdict(dict)

        def link(name: str, source: LmfLemma, target: LmfLemma) -> None:
            pairs[name].setdefault((id(source), id(target)), (source, target))

        for entry in lexicon.get("entries", []):
            for sense in entry.get("senses", []):
                for relation in sense.get("relations", []):
                    name = LEMMA_RELATION_TYPES.get(relation["relType"])
                    target = senses.get(relation["target"])
                    if name is not None and target is not None:
                        link(name, senses[sense["id"]], target)
        for synset in lexicon.get("synsets", []):
            for relation in synset.get("relations", []):
                name = LEMMA_RELATION_TYPES.get(relation["relType"])
                if name is None:
                    continue
                for source in synsets[synset["id"]].lemmas():
                    for target in synsets[relation["target"]].lemmas():
                        link(name, source, target)
        for name, table in sorted(pairs.items()):
            reversed_present = sum((b, a) in table for a, b in table)
            if 2 * reversed_present < len(table):
                self.one_way.append(name)
                for source, target in list(table.values()):
                    table.setdefault((id(target), id(source)), (target, source))
            for source, target in table.values():
                source.links.setdefault(name, []).append(target)

    def _link_synsets(self, lexicon: Mapping[str, Any], synsets: Mapping[str, LmfSynset]) -> None:
        # Ordered sets while linking (a synset may have thousands of hyponyms), lists after.
        linked: dict[tuple[int, str], dict[LmfSynset, None]] = {}
        for synset in lexicon.get("synsets", []):
            here = synsets[synset["id"]]
            for relation in synset.get("relations", []):
                methods = SYNSET_RELATION_TYPES.get(relation["relType"])
                if methods is None:
                    continue
                there = synsets[relation["target"]]
                forwards, backwards = methods
                linked.setdefault((id(here), forwards), {})[there] = None
                linked.setdefault((id(there), backwards), {})[here] = None
                here.links.setdefault(forwards, [])
                there.links.setdefault(backwards, [])
        for synset in synsets.values():
            for method in synset.links:
                synset.links[method] = list(linked[id(synset), method])

    # ------------------------------------------------------------------ NLTK's reader API

    def all_lemma_names(self) -> Iterable[str]:
        return {key for table in self._index.values() for key in table}

    def get_version(self) -> str:
        return self.version

    def synsets(self, word: str) -> list[LmfSynset]:
        # The index asks for one word's synsets once per relation, one word after another.
        if word == self._last_word:
            return self._last_synsets
        found = self._synsets(word)
        self._last_word, self._last_synsets = word, found
        return found

    def _synsets(self, word: str) -> list[LmfSynset]:
        form = word.lower()
        found: list[LmfSynset] = []
        for pos in SEARCH_ORDER:
            listed = self._index[pos]
            if self.base_forms and pos in SEARCHED_POS:
                forms = morphy(form, pos, listed, self.exceptions[pos])
            else:
                forms = [form] if form in listed else []
            for base in forms:
                found.extend(listed[base])
        return found

    def merged_exceptions(self) -> dict[str, tuple[str, ...]]:
        """`form -> base forms` over every part of speech, as the native index keeps them."""
        merged: dict[str, set[str]] = {}
        for table in self.exceptions.values():
            for form, bases in table.items():
                merged.setdefault(form, set()).update(bases)
        return {form: tuple(sorted(bases)) for form, bases in sorted(merged.items())}
