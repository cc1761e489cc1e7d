"""The members of a SetLexSem answer as text: numbers written in words, text made safe for
UTF-8, and the canonical form gold and answer members are compared in (`parse.py` reads
answers with these, see its docstring for the rules; `verdict.py` compares in that form)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from lexbench.benchmarks.setlexsem.sets import Member

# Stripped from both ends of a member: spaces, quotes, backticks, emphasis marks.
STRIP = " \t\r\n\"'`“”‘’*_"
_UNITS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}


def words_to_number(text: str) -> int | None:
    """ "forty-two" -> 42, "one hundred and five" -> 105; None if not one number in words.

    A strict grammar, so a list such as "one two three" is not read as one number.

    >>> words_to_number("three thousand four hundred and twelve")
    3412
    >>> words_to_number("one two") is None, words_to_number("cat") is None
    (True, True)
    """
    tokens = [t for t in text.lower().replace("-", " ").split() if t != "and"]
    if not tokens or len(tokens) > 12:  # no number below 10^7 needs more words
        return None
    if len(tokens) == 1:  # the common case, without the grammar
        single = _UNITS.get(tokens[0], _TENS.get(tokens[0]))
        return single
    if tokens == ["zero"]:
        return 0
    total = current = 0
    last: str | None = None  # unit, teen, tens, hundred, scale
    for token in tokens:
        value = _UNITS.get(token)
        if value is not None and 1 <= value <= 9:
            if last not in (None, "tens", "hundred", "scale"):
                return None
            current += value
            last = "unit"
        elif value is not None and value >= 10:
            if last not in (None, "hundred", "scale"):
                return None
            current += value
            last = "teen"
        elif token in _TENS:
            if last not in (None, "hundred", "scale"):
                return None
            current += _TENS[token]
            last = "tens"
        elif token == "hundred":
            if last not in ("unit", "teen") or current >= 100:
                return None
            current *= 100
            last = "hundred"
        elif token in _SCALES:
            if last in (None, "scale") or current == 0:
                return None
            total += current * _SCALES[token]
            current = 0
            last = "scale"
        else:
            return None
    return total + current


def safe_text(text: str) -> str:
    """`text` with lone surrogates (legal in JSON, not in UTF-8) replaced by '?'."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def canonical_member(member: Member) -> Member:
    """The form gold members and answer members are compared in: ints as they are, words
    lowercased with quotes, backticks, emphasis marks and trailing periods stripped."""
    if isinstance(member, int):
        return member
    if type(member) is str and len(member) <= CACHED_WORD_LENGTH:
        return _canonical_word(member)
    return clean_piece(safe_text(member)).lower()


# Gold and answer words come from a bounded vocabulary and recur across a grid's prompts:
# each is cleaned once. Longer texts (made-up answers) are cleaned each time.
CACHED_WORD_LENGTH = 64


@lru_cache(maxsize=1 << 14)
def _canonical_word(member: str) -> str:
    return clean_piece(safe_text(member)).lower()


def canonical_set(members: Iterable[Member]) -> frozenset[Member]:
    if isinstance(members, (tuple, frozenset)) and members:
        kinds = set(map(type, members))
        if kinds == _INTS:
            return frozenset(members)  # ints are their own canonical form
        if kinds == _TEXTS and type(members) is tuple:
            return _canonical_words(members)  # an item's A, B or gold words: met again soon
    return frozenset(map(canonical_member, members))


_INTS = {int}
_TEXTS = {str}


@lru_cache(maxsize=1 << 12)
def _canonical_words(members: tuple[str, ...]) -> frozenset[Member]:
    return frozenset(map(canonical_member, members))


def clean_piece(piece: str) -> str:
    piece = piece.strip(STRIP)
    if piece[:2].lower() in ("an", "or"):  # the regex only for the pieces it can change
        piece = re.sub(r"^(?:and|or)\s+", "", piece, flags=re.IGNORECASE)
    return piece.strip(STRIP).rstrip(".!;:").strip(STRIP)
