"""Any wordnet in the WN-LMF format (the Open Multilingual Wordnet's and most national
wordnets' format) as a `RelationIndex`, the same facade the English WordNet 3.0 gives, built
by the same rules.

The file is read with the LMF reader of goodmami's `wn` package (`wn.lmf.load`: no
database, no network; the checks and refusals are in `wordnet_lmf_read`). A file may hold
several lexicons; `language` (a BCP-47 code such as `fi`) or the lexicon's id picks one, and
a file with one lexicon needs neither.

The index is built by `lexicon.wordnet.index.index_from_reader`, the loop that builds WordNet
3.0's, with the same relation functions (the LAMBDA paper's Listing 1 for synonym, antonym
and derivation), over an NLTK-shaped view of the lexicon (`wordnet_lmf_graph`, which says
how WN-LMF's relation types map onto NLTK's). So WordNet 3.0 written as WN-LMF gives the
native index, and the same items (tests/lexicon/test_wordnet_lmf_equivalence.py). English
lexicons get NLTK's base-form lookup (morphy); other languages none.

Cached like the native index: on disk as JSON, keyed on the file's sha256, the lexicon and
the relations built (only those asked for); in memory for the life of the process.
A relation with no link in the lexicon is absent from `related`: `missing_relations` names it.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from lexbench.hashing import sha256_file
from lexbench.heartbeat import Step, long_step, say
from lexbench.lexicon.wordnet.index import RelationIndex, index_from_reader, relations_for
from lexbench.lexicon.wordnet.index_cache import INDEX_FORMAT, _relation_key, read_index, save_index
from lexbench.lexicon.wordnet.lmf_read import (
    cleaned,
    load_resource,
    pick_lexicon,
    unpacked,
)
from lexbench.paths import cache_dir

# The relations a WN-LMF wordnet can give (those `wordnet_lmf_graph` answers for).
LMF_RELATIONS: tuple[str, ...] = (
    "synonym",
    "antonym",
    "derivation",
    "hypernym",
    "hyponym",
    "meronym",
    "holonym",
)
# Raised whenever `wordnet_lmf_graph` reads a file differently: cached indexes rebuild.
# 3: lemmas LAMBDA's prompts cannot carry are left out (`wordnet_lmf_read.unfit_for_prompts`).
LMF_RULES_VERSION = 3
_VERSION_LANGUAGE = re.compile(r"\(([^()]*)\)$")


def index_language(index: RelationIndex) -> str:
    """The language code of a WN-LMF index ("en" for "oewn:2024 (en)")."""
    found = _VERSION_LANGUAGE.search(index.version)
    return found.group(1) if found else ""


def is_english(language: str) -> bool:
    return language.lower().split("-")[0] in ("en", "eng")


_LOADED: dict[tuple[str, int, int, str | None, tuple[str, ...]], RelationIndex] = {}


def lmf_index(
    path: str | os.PathLike[str],
    language: str | None = None,
    relations: Iterable[str] | None = None,
    progress: bool = False,
) -> RelationIndex:
    """The relation index of one lexicon of a WN-LMF file.

    `relations`: the tables built, as for WordNet 3.0 (default `relations_for(())`: synonym,
    antonym, derivation, hypernym, hyponym; meronym and holonym when named).
    `version` is "LEXICON-ID:VERSION (LANGUAGE)"; `fingerprint` the file's sha256.
    """
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"no WN-LMF file at {source}")
    names = tuple(relations) if relations is not None else relations_for(())
    unknown = [name for name in names if name not in LMF_RELATIONS]
    if unknown:
        raise ValueError(f"unknown relation(s) {unknown} for WN-LMF; known: {LMF_RELATIONS}")
    stat = source.stat()
    memo = (str(source.resolve()), stat.st_size, stat.st_mtime_ns, language, names)
    if memo in _LOADED:
        return _LOADED[memo]
    digest = sha256_file(source)
    cached = lmf_index_path(digest, language, names)
    if cached.is_file():
        index = read_index(cached)
    else:
        what = f"building the relation index of {source.name} (once)"
        with long_step(what, quiet=not progress) as step:
            index = build_lmf_index(source, language, names, digest, step)
        save_index(index, cached)
        if progress:
            say(f"lexbench: the relation index of {source.name} cached at {cached}")
    _LOADED[memo] = index
    return index


def lmf_index_path(digest: str, language: str | None, relations: Sequence[str]) -> Path:
    """Where the index of the file with this sha256 is cached."""
    lexicon = re.sub(r"[^A-Za-z0-9_-]", "_", language) if language else "only"
    key = f"{digest[:16]}-{lexicon}-{_relation_key(relations)}-r{LMF_RULES_VERSION}"
    return cache_dir("wordnet-index") / f"lmf-v{INDEX_FORMAT}-{key}.json"


def build_lmf_index(
    source: Path,
    language: str | None,
    relations: Sequence[str],
    digest: str,
    step: Step | None = None,
) -> RelationIndex:
    """Read the file (a `.gz` unpacked for the read only) and build its index (telling
    `step`, a `heartbeat.long_step` under way, how far it is)."""
    from lexbench.lexicon.wordnet.lmf_graph import LmfWordNet
    from lexbench.lexicon.wordnet.reader import paused_gc

    plain = unpacked(source, cache_dir("wordnet-lmf")) if source.suffix == ".gz" else source
    with paused_gc():  # a million small dictionaries and no cycles
        try:
            resource = load_resource(plain, str(source))
        finally:
            if plain != source:
                plain.unlink(missing_ok=True)
        lexicon, problems = cleaned(pick_lexicon(resource, language, str(source)), str(source))
        del resource
        warning = problems.warning(str(source))
        if warning:
            print(warning, file=sys.stderr)
        reader = LmfWordNet(lexicon, base_forms=is_english(lexicon["language"]))
        del lexicon
        for name in reader.one_way:
            print(
                f"lexbench: {source.name}: {reader.version} stores {name} links one way; "
                f"each counts both ways",
                file=sys.stderr,
            )
        return index_from_reader(
            reader,
            relations,
            version=reader.version,
            fingerprint=digest,
            exceptions=reader.merged_exceptions() if reader.base_forms else {},
            step=step,
        )


def missing_relations(index: RelationIndex, wanted: Sequence[str]) -> list[str]:
    """The relations of `wanted` the index has no link for."""
    return [name for name in wanted if not index.related.get(name)]
