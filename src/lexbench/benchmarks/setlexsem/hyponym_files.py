"""The deceptive study's hyponym graph read straight from WordNet's data files, in flat memory.

`hyponym_pools.build_hyponym_pools` needs, per noun and verb synset, its name, its lemma
names and its hyponyms. Through NLTK's reader (every synset of the database built as
objects, its lemma index loaded) that first build peaked at 618 MB and 14 s of CPU: a fresh
machine's first `lexbench run setlexsem --grid paper` paid it inside the run (the 781 MB of
issue 39). This module reads the same facts line by line from `data.noun` and `data.verb`,
and the sense numbers of the names from `index.noun` and `index.verb`, keeping only strings
and offsets.

It answers exactly as NLTK's reader does (a test compares the pools both ways on the tiny
WordNet and on WordNet 3.0):

* a synset's name is its first lemma lowercased, its part of speech and its sense number:
  the position of the synset's offset in that lemma's `index.<pos>` line, from 1 (NLTK's
  `_synset_from_pos_and_line`);
* lemma names are the data line's words as written, a syntactic marker such as "(a)"
  stripped; the word count is hexadecimal, the pointer count decimal;
* hyponyms are the `~` pointers between synsets (source/target "0000"); `~i` (instance
  hyponyms) and lemma-level pointers are not hyponyms.

Adjectives and adverbs have no hyponyms, so they never enter a pool and are not read.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

POOL_PARTS_OF_SPEECH = {"noun": "n", "verb": "v"}
_MARKER = re.compile(r"(.*?)(\(.*\))?$")


def _lines(path: Path) -> Iterator[str]:
    """The entry lines of a WordNet file (its licence lines start with a space)."""
    if not path.is_file():
        raise FileNotFoundError(f"the WordNet at {path.parent} has no {path.name}")
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line and not line.startswith(" "):
                yield line


def _parse_synset(line: str) -> tuple[int, str, list[str], set[tuple[str, int]]]:
    """(offset, part of speech, lemma names, hyponyms as (pos, offset)) of one data line."""
    tokens = line.split(" | ", 1)[0].split()
    offset, pos = int(tokens[0]), tokens[2]
    count = int(tokens[3], 16)
    names = [_lemma_name(tokens[4 + 2 * i]) for i in range(count)]
    at = 4 + 2 * count
    hyponyms = set()
    for i in range(int(tokens[at])):
        symbol, target, target_pos, link = tokens[at + 1 + 4 * i : at + 5 + 4 * i]
        if symbol == "~" and link == "0000":
            hyponyms.add((target_pos, int(target)))
    return offset, pos, names, hyponyms


def _lemma_name(word: str) -> str:
    """A data line's word without its syntactic marker ("(a)", "(p)", "(ip)")."""
    match = _MARKER.match(word)
    return match.group(1) if match else word


def _sense_offsets(directory: Path, suffix: str, lemmas: set[str]) -> dict[str, list[int]]:
    """lemma -> its synset offsets in sense order (`index.<suffix>`), for `lemmas` only."""
    out: dict[str, list[int]] = {}
    for line in _lines(directory / f"index.{suffix}"):
        tokens = line.split()
        if tokens[0] not in lemmas:
            continue
        synsets, pointers = int(tokens[2]), int(tokens[3])
        start = 4 + pointers + 2  # past the pointer symbols, sense_cnt and tagsense_cnt
        out[tokens[0]] = [int(t) for t in tokens[start : start + synsets]]
    return out


def read_hyponym_graph(
    directory: Path, clean: Callable[[Sequence[str], random.Random], list[str]]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(children, own words) per noun and verb synset name, as
    `hyponym_pools.build_hyponym_pools` takes them from NLTK: children sorted, own words
    `clean`ed with the synset's own seeded stream (`random.Random("lemmata:" + name)`)."""
    synsets: list[tuple[int, str, list[str], set[tuple[str, int]]]] = []
    names_of: dict[tuple[str, int], str] = {}
    for suffix, pos in POOL_PARTS_OF_SPEECH.items():
        read = [_parse_synset(line) for line in _lines(directory / f"data.{suffix}")]
        senses = _sense_offsets(directory, suffix, {names[0].lower() for _, _, names, _ in read})
        for offset, kind, names, _ in read:
            lemma = names[0].lower()
            if kind != pos or offset not in senses.get(lemma, ()):
                raise ValueError(
                    f"the WordNet at {directory}: synset {offset} of data.{suffix} ({kind}) is "
                    f"not among the senses of {lemma!r} in index.{suffix}"
                )
            names_of[pos, offset] = f"{lemma}.{pos}.{senses[lemma].index(offset) + 1:02d}"
        synsets += read
    children: dict[str, list[str]] = {}
    own_words: dict[str, list[str]] = {}
    for offset, pos, names, hyponyms in synsets:
        name = names_of[pos, offset]
        children[name] = sorted(names_of[h] for h in hyponyms)
        own_words[name] = clean(names, random.Random(f"lemmata:{name}"))
    return children, own_words
