"""The definitions panel: any word looked up in WordNet 3.0, as a dictionary would show it.

The LAMBDA paper's annotator "was provided with the ability to determine word definitions".
A dictionary gives senses with their part of speech, gloss and examples, and so does this;
it never lists a sense's other lemmas, antonyms or derived forms, which would hand over the
very relations LAMBDA asks about. Inflected forms are found through WordNet's morphology
(NLTK's `morphy`: "geese" finds "goose").

WordNet comes from lexbench's own setup (`lexbench.lexicon.wordnet.files.locate_wordnet`), opened
once with NLTK's reader on the first look-up.
"""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass
from typing import Any

POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective", "r": "adverb"}
LOOKUP = re.compile(r"[^\W\d_](?:[^\W_]|[ '\-.])*", re.UNICODE)
MAX_WORD = 60
MAX_SENSES = 16


@dataclass(frozen=True)
class Sense:
    pos: str
    gloss: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class Definition:
    word: str
    senses: tuple[Sense, ...]
    more: int  # senses beyond MAX_SENSES, not shown

    def to_dict(self) -> dict[str, Any]:
        return {
            "word": self.word,
            "found": bool(self.senses),
            "more": self.more,
            "senses": [{**asdict(s), "examples": list(s.examples)} for s in self.senses],
        }


def clean_word(text: str) -> str:
    """The word to look up, or a ValueError saying why it cannot be one."""
    word = " ".join((text or "").split())
    if not word:
        raise ValueError("type a word to look up")
    if len(word) > MAX_WORD or not LOOKUP.fullmatch(word):
        raise ValueError("look up one word or phrase (letters, spaces, hyphens, apostrophes)")
    return word


class Dictionary:
    """WordNet senses of a word; the NLTK reader opens on first use (a second or two)."""

    def __init__(self, wordnet: str | None = None, reader: Any = None):
        self._wordnet = wordnet
        self._reader = reader
        self._lock = threading.Lock()

    def reader(self) -> Any:
        with self._lock:
            if self._reader is None:
                from lexbench.lexicon.wordnet.files import locate_wordnet
                from lexbench.lexicon.wordnet.reader import open_reader

                self._reader = open_reader(locate_wordnet(self._wordnet, allow_install=False))
            return self._reader

    def define(self, text: str) -> Definition:
        word = clean_word(text)
        reader = self.reader()
        with self._lock:  # NLTK's reader loads its files lazily and is not thread-safe
            synsets = reader.synsets(word.replace(" ", "_"))
            senses = tuple(
                Sense(POS_NAMES.get(s.pos(), s.pos()), s.definition(), tuple(s.examples()))
                for s in synsets[:MAX_SENSES]
            )
        return Definition(word, senses, max(0, len(synsets) - MAX_SENSES))
