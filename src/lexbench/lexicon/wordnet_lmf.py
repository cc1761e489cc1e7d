"""Any wordnet in the WN-LMF format (the Open Multilingual Wordnet's and most national
wordnets' format) as a `RelationIndex`, the same facade the English WordNet 3.0 gives.

The file is read with the LMF reader of goodmami's `wn` package (`wn.lmf.load`: no
database, no network). A file may hold several lexicons; `language` (a BCP-47 code such as
`fi`) or the lexicon's id picks one, and a file with one lexicon needs neither.

Relations, named as lexbench names them (`lexicon.wordnet.RELATIONS`), and what each is in
LMF terms; each word's set is the union over its senses, as NLTK's API gives for English:

* synonym: the other lemmas of the word's synsets;
* antonym, derivation: `SenseRelation`s of those types (either direction);
* hypernym / hyponym: `SynsetRelation`s `hypernym`, `instance_hypernym` and their inverses
  `hyponym`, `instance_hyponym` (wordnets often encode one direction only, so both are read
  and each is completed from the other);
* meronym / holonym: `mero_*` and `holo_*` (part, member, substance, location, portion,
  plain), completed the same way.

A relation with no link in the lexicon is absent from `related`: `missing_relations` names it.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.hashing import sha256_file
from lexbench.lexicon.wordnet import RelationIndex

LMF_INSTALL_HINT = (
    "reading WN-LMF files needs the `wn` package: pip install 'lexbench[multilingual]' "
    "(or pip install wn)"
)

# The WN-LMF synset relation types of each direction (the generic type and its kinds).
_UP = frozenset({"hypernym", "instance_hypernym"})
_DOWN = frozenset({"hyponym", "instance_hyponym"})
_PARTS = ("part", "member", "substance", "location", "portion")
_MERO = frozenset({"meronym", *(f"mero_{kind}" for kind in _PARTS)})
_HOLO = frozenset({"holonym", *(f"holo_{kind}" for kind in _PARTS)})
# lexbench relation -> (synset relation types read forwards, ... read backwards).
_SYNSET_RELATIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "hypernym": (_UP, _DOWN),
    "hyponym": (_DOWN, _UP),
    "meronym": (_MERO, _HOLO),
    "holonym": (_HOLO, _MERO),
}
# Symmetric sense relations: a link counts both ways.
_SENSE_RELATIONS = {"antonym": "antonym", "derivation": "derivation"}
LMF_RELATIONS: tuple[str, ...] = ("synonym", "antonym", "derivation", *_SYNSET_RELATIONS)
_POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


def _plain_xml(source: Path) -> Path:
    """`source`, or for a gzipped file (`.xml.gz`, as wordnets are often published) its
    content unpacked once into lexbench's cache (keyed by the file's sha256)."""
    if source.suffix != ".gz":
        return source
    import gzip
    import shutil

    from lexbench.paths import cache_dir

    target = cache_dir("wordnet-lmf") / f"{sha256_file(source)[:16]}-{source.stem}"
    if not target.is_file():
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            with gzip.open(source, "rb") as packed, open(partial, "wb") as out:
                shutil.copyfileobj(packed, out)
        except OSError as error:
            partial.unlink(missing_ok=True)
            raise ValueError(f"{source}: cannot unpack the gzipped file ({error})") from None
        partial.replace(target)
    return target


def read_lmf(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file's lexical resource as `wn.lmf.load` gives it (a `.gz` file is unpacked
    first); a clear error for a file that is missing or not WN-LMF."""
    given = Path(path)
    if not given.is_file():
        raise FileNotFoundError(f"no WN-LMF file at {given}")
    source = _plain_xml(given)
    try:
        import wn.lmf
    except ImportError:
        raise ImportError(LMF_INSTALL_HINT) from None
    if not wn.lmf.is_lmf(source):
        raise ValueError(f"{source} is not a WN-LMF file (no LexicalResource header)")
    try:
        return dict(wn.lmf.load(source, progress_handler=None))
    except wn.lmf.LMFError as error:
        raise ValueError(f"{source}: not a valid WN-LMF file ({error})") from None


def pick_lexicon(resource: Mapping[str, Any], language: str | None, where: str) -> dict[str, Any]:
    """The lexicon for `language` (its language code or its id); the only one when None."""
    lexicons = [lex for lex in resource["lexicons"] if "extends" not in lex]
    held = ", ".join(f"{lex['id']} ({lex['language']})" for lex in lexicons) or "none"
    if language is None:
        if len(lexicons) != 1:
            raise ValueError(f"{where} holds several lexicons ({held}); pick one with --language")
        return dict(lexicons[0])
    found = [lex for lex in lexicons if language in (lex["language"], lex["id"])]
    if len(found) != 1:
        what = "no" if not found else "more than one"
        raise ValueError(f"{where} has {what} lexicon for language {language!r}; it holds {held}")
    return dict(found[0])


def _name(form: str) -> str:
    return form.replace("_", " ").strip()


_LOADED: dict[tuple[str, int, int, str | None, tuple[str, ...]], RelationIndex] = {}


def lmf_index(
    path: str | os.PathLike[str], language: str | None = None, relations: Iterable[str] = ()
) -> RelationIndex:
    """The relation index of one lexicon of a WN-LMF file, kept in memory for the life of
    the process (keyed by the file's path, size and modification time).

    `relations` limits the tables built (default: every relation of `LMF_RELATIONS`).
    `version` is "LEXICON-ID:VERSION (LANGUAGE)"; `fingerprint` the file's sha256.
    """
    source = Path(path)
    wanted = tuple(relations)  # read once: a generator would be empty the second time
    stat = source.stat() if source.is_file() else None
    key = (
        str(source.resolve()),
        stat.st_size if stat else -1,
        stat.st_mtime_ns if stat else -1,
        language,
        wanted,
    )
    if key not in _LOADED:
        _LOADED[key] = _build_lmf_index(source, language, wanted)
    return _LOADED[key]


def _build_lmf_index(path: Path, language: str | None, relations: tuple[str, ...]) -> RelationIndex:
    names = tuple(relations) or LMF_RELATIONS
    unknown = [name for name in names if name not in LMF_RELATIONS]
    if unknown:
        raise ValueError(f"unknown relation(s) {unknown} for WN-LMF; known: {LMF_RELATIONS}")
    lexicon = pick_lexicon(read_lmf(path), language, str(path))
    sense_word: dict[str, str] = {}
    synset_words: dict[str, list[str]] = defaultdict(list)
    word_synsets: dict[str, list[str]] = defaultdict(list)
    pos: dict[str, str] = {}
    for entry in lexicon.get("entries", []):
        word = _name(entry["lemma"]["writtenForm"])
        pos.setdefault(word, _POS_NAMES.get(entry["lemma"].get("partOfSpeech", ""), ""))
        for sense in entry.get("senses", []):
            sense_word[sense["id"]] = word
            synset_words[sense["synset"]].append(word)
            word_synsets[word].append(sense["synset"])
    tables: dict[str, dict[str, set[str]]] = {name: defaultdict(set) for name in names}
    if "synonym" in tables:
        for word, synsets in word_synsets.items():
            for synset in synsets:
                tables["synonym"][word].update(synset_words[synset])
    for entry in lexicon.get("entries", []):
        for sense in entry.get("senses", []):
            for link in sense.get("relations", []):
                name = _SENSE_RELATIONS.get(link["relType"])
                other = sense_word.get(link["target"])
                if name in tables and other is not None:
                    word = sense_word[sense["id"]]
                    tables[name][word].add(other)
                    tables[name][other].add(word)
    for synset in lexicon.get("synsets", []):
        for link in synset.get("relations", []):
            for name, (forwards, backwards) in _SYNSET_RELATIONS.items():
                if name not in tables:
                    continue
                if link["relType"] in forwards:
                    source, target = synset["id"], link["target"]
                elif link["relType"] in backwards:
                    source, target = link["target"], synset["id"]
                else:
                    continue
                for word in synset_words.get(source, ()):
                    tables[name][word].update(synset_words.get(target, ()))
    related = {
        name: {
            word: tuple(sorted(m for m in members if m.lower() != word.lower()))
            for word, members in sorted(table.items())
            if any(m.lower() != word.lower() for m in members)
        }
        for name, table in tables.items()
    }
    return RelationIndex(
        version=f"{lexicon['id']}:{lexicon['version']} ({lexicon['language']})",
        fingerprint=sha256_file(path),
        lemma_names=tuple(sorted(word_synsets)),
        related={name: table for name, table in related.items() if table},
        pos=pos,
        exceptions={},
    )


def missing_relations(index: RelationIndex, wanted: Sequence[str]) -> list[str]:
    """The relations of `wanted` the index has no link for."""
    return [name for name in wanted if not index.related.get(name)]


def lmf_lexicons(path: str | os.PathLike[str]) -> list[tuple[str, str, str]]:
    """(id, version, language) of each lexicon in the file, for messages and manifests."""
    return [(lex["id"], lex["version"], lex["language"]) for lex in read_lmf(path)["lexicons"]]
