"""Text normalisation shared by the scorers: one definition of "the same word".

Lowercase, Unicode NFKC, underscores as spaces, straight quotes, punctuation trimmed from
word edges (inner hyphens and apostrophes kept: "x-ray", "o'clock").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
# A word: letters/digits, optionally joined by single inner hyphens or apostrophes.
WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*", re.UNICODE)


def normalise(text: str) -> str:
    """Canonical form of a phrase: lowercase words joined by single spaces.

    >>> normalise("  \u201cLarge.\u201d ")
    'large'
    >>> normalise("Canis_familiaris")
    'canis familiaris'
    """
    cleaned = unicodedata.normalize("NFKC", text).translate(_QUOTES).replace("_", " ").lower()
    return " ".join(WORD.findall(cleaned))


def words(text: str) -> list[str]:
    """The normalised words of `text`, in order."""
    return normalise(text).split()


def first_word(text: str) -> str:
    """The first normalised word, or "" when there is none.

    >>> first_word(" Small\\nhot"), first_word("..."), first_word(" 'X-ray',")
    ('small', '', 'x-ray')
    """
    found = words(text)
    return found[0] if found else ""


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Levenshtein distance; stops early (returning limit + 1) once it exceeds `limit`."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if limit is not None and len(a) - len(b) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        if limit is not None and min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    r"""`text` up to the first of the `stop` strings (all of it when none occurs).

    >>> cut_at_stop("small\nlarge", ["\n"])
    'small'
    """
    cut = len(text)
    for marker in stop:
        position = text.find(marker)
        if position != -1:
            cut = min(cut, position)
    return text[:cut]
