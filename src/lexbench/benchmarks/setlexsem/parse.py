"""lexbench's lenient reading of a SetLexSem answer (`--parser lexbench`; the authors'
reading, the default, is `paper_parse`).

The answer is the text inside the one `<answer>...</answer>` tag:

* no tag, two or more opening tags, or an opening tag never closed is a format failure
  (an opening tag cut off by a `</answer>` stop string counts as closed);
* inside the tag, a bracketed group ({...}, [...], (...), set(...)) is taken if there is
  one, so "A ∪ B = {1, 2}." reads as {1, 2}; otherwise the whole text;
* members are split on commas, semicolons and line breaks (and on spaces when a piece holds
  several bare numbers or words, since every member is a single token), stripped of quotes,
  backticks, trailing periods and a leading "and";
* for number sets, numerals become ints ("042" -> 42) and numbers written as words
  ("forty-two", "one hundred and five") are converted; a numeral longer than
  `MAX_NUMERAL_DIGITS` stays text (no gold number is that long, so it is simply wrong);
* an explicit empty set is recognised: {}, set(), [], (), ∅, "empty", "the empty set",
  "{} (the empty set)", and "none"/"nothing" unless that word is itself a member of A or B.

Words are compared in one canonical form on both sides (`canonical_member`: lowercase, the
same edge characters stripped), so "Bahai" in the gold set matches "bahai" in an answer.

The parser never raises and is linear in its input: whatever it cannot read is a format
failure for that item. Text it keeps (the answer text, the members) has lone surrogates
replaced, so a hostile output cannot break the JSON written after it.

The verdict on what it read (accuracy, the overlap metrics, the error class) is `verdict`'s.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

from lexbench.benchmarks.setlexsem.members import (
    CACHED_WORD_LENGTH,
    STRIP,
    clean_piece,
    safe_text,
    words_to_number,
)
from lexbench.benchmarks.setlexsem.sets import Member

__all__ = [
    "CLOSE_TAG",
    "OPEN_TAG",
    "ParsedAnswer",
    "answer_text",
    "lenient_parse",
    "parse_answer",
    "split_members",
]

OPEN_TAG = re.compile(r"<\s*answer\s*>", re.IGNORECASE)
CLOSE_TAG = re.compile(r"<\s*/\s*answer\s*>", re.IGNORECASE)
MAX_NUMERAL_DIGITS = 30
_EMPTY_PHRASES = {
    "",
    "empty",
    "empty set",
    "the empty set",
    "an empty set",
    "emptyset",
    "theemptyset",
    "∅",
    "ø",
    "{}",
    "set()",
    "[]",
    "()",
    "{ }",
    "set([])",
    "set({})",
    "frozenset()",
    "no members",
    "no elements",
}
_EMPTY_WITH_NOTE = re.compile(r"(\{\s*\}|\(\s*\)|set\(\s*\)|∅)\s*\(?(the )?empty set\)?")
_SOFT_EMPTY = {"none", "nothing", "null"}
_OPENERS = "{[("
_CLOSERS = "}])"
_OPENER = re.compile(r"[{\[(]")
_BRACKET = re.compile(r"[{\[(}\])]")
_INTEGER = re.compile(r"[+-]?\d+")
_INTEGER_POINT_ZERO = re.compile(r"([+-]?\d+)\.0+")


@dataclass(frozen=True)
class ParsedAnswer:
    """What the parser made of one output. `members` is None on a format failure."""

    members: frozenset[Member] | None
    format_error: str | None  # no_answer_tag | multiple_answer_tags | unclosed_answer_tag
    raw: str | None  # the text inside the tag
    explicit_empty: bool = False

    @property
    def ok(self) -> bool:
        return self.members is not None


def answer_text(output: str, closed_by_stop: bool = False) -> tuple[str | None, str | None]:
    """(text inside the single answer tag, format error). Two regex scans, both linear."""
    if "<" not in output:  # every tag starts with one; most unfollowed answers have none
        return None, "no_answer_tag"
    opens = OPEN_TAG.finditer(output)
    first = next(opens, None)
    if first is None:
        return None, "no_answer_tag"
    if next(opens, None) is not None:
        return None, "multiple_answer_tags"
    close = CLOSE_TAG.search(output, first.end())
    if close is None:
        if closed_by_stop:
            return output[first.end() :], None
        return None, "unclosed_answer_tag"
    return output[first.end() : close.start()], None


def _matching_closers(text: str, start: int) -> dict[int, int]:
    """Opening position -> closing position for the bracket groups from `start` until the
    first group closes, in one pass with a stack (any closer closes the latest opener)."""
    matches: dict[int, int] = {}
    stack: list[int] = []
    # Only the brackets are visited (a regex finds them), not every character between.
    for bracket in _BRACKET.finditer(text, start):
        position = bracket.start()
        if text[position] in _OPENERS:
            stack.append(position)
        elif stack:
            matches[stack.pop()] = position
            if not stack:
                break
    return matches


def _bracketed(text: str) -> str | None:
    """The contents of the first bracket group, unwrapping groups that fill it wholly
    (set([1, 2]) -> "1, 2"), or None when there is no bracket. Unbalanced: the rest."""
    first = _OPENER.search(text)
    if first is None:
        return None
    start = first.start()
    matches = _matching_closers(text, start)
    if start not in matches:
        return text[start + 1 :].strip()
    left, right = start, matches[start]
    while True:
        inner_left, inner_right = left + 1, right - 1
        while inner_left <= inner_right and text[inner_left].isspace():
            inner_left += 1
        while inner_right >= inner_left and text[inner_right].isspace():
            inner_right -= 1
        if (
            inner_left < inner_right
            and text[inner_left] in _OPENERS
            and matches.get(inner_left) == inner_right
        ):
            left, right = inner_left, inner_right
            continue
        return text[left + 1 : right].strip()


def _member(piece: str, numbers: bool) -> Member:
    if numbers:
        compact = piece.replace(",", "").replace("_", "")
        if len(compact) <= MAX_NUMERAL_DIGITS + 2:
            if _INTEGER.fullmatch(compact):
                return int(compact)
            point_zero = _INTEGER_POINT_ZERO.fullmatch(compact)
            if point_zero:
                return int(point_zero.group(1))
        if not piece[:1].isdigit():
            spelled = words_to_number(piece)
            if spelled is not None:
                return spelled
    return piece.lower()


def split_members(body: str, numbers: bool) -> list[Member]:
    """The members listed in `body` (already stripped of brackets)."""
    out: list[Member] = []
    for chunk in _SEPARATORS.split(body):
        if len(chunk) <= CACHED_WORD_LENGTH:
            out.extend(_short_chunk_members(chunk, numbers))
        else:
            out.extend(_chunk_members(chunk, numbers))
    return out


_SEPARATORS = re.compile(r"[,;\n]+")


def _chunk_members(chunk: str, numbers: bool) -> tuple[Member, ...]:
    """The members in one comma-separated piece of an answer (none, one or several)."""
    piece = clean_piece(chunk)
    if not piece:
        return ()
    spelled = words_to_number(piece) if numbers else None
    if spelled is not None:
        return (spelled,)
    tokens = piece.split()
    if len(tokens) > 1:
        # Members are single tokens; "1 2 3" or "cat dog" lists several.
        cleaned = (clean_piece(token) for token in tokens)
        return tuple(_member(token, numbers) for token in cleaned if token)
    return (_member(piece, numbers),)


# Answers repeat their pieces (" 42", " apple") across a grid's prompts: each short piece
# is read once. The cache holds at most 2^14 of them (a few MB).
_short_chunk_members = lru_cache(maxsize=1 << 14)(_chunk_members)


def parse_answer(
    output: str,
    *,
    numbers: bool,
    known_members: Collection[Member] = (),
    closed_by_stop: bool = False,
) -> ParsedAnswer:
    """Parse one output. `known_members` (A ∪ B) keeps a member named "none" from being read
    as the empty set. Never raises; linear in `len(output)`."""
    if not isinstance(output, str):
        return ParsedAnswer(None, "no_answer_tag", None)
    raw, error = answer_text(output, closed_by_stop)
    if raw is None:
        return ParsedAnswer(None, error, None)
    raw = safe_text(raw)
    text = raw.strip().strip(STRIP).rstrip(".").strip()
    lowered = " ".join(text.lower().split())
    if lowered in _EMPTY_PHRASES or _EMPTY_WITH_NOTE.fullmatch(lowered):
        return ParsedAnswer(frozenset(), None, raw, explicit_empty=True)
    if lowered in _SOFT_EMPTY and lowered not in {str(m).lower() for m in known_members}:
        return ParsedAnswer(frozenset(), None, raw, explicit_empty=True)
    body = _bracketed(text)
    if body is None:
        body = text
    elif " ".join(body.lower().split()).strip(STRIP) in _EMPTY_PHRASES:
        return ParsedAnswer(frozenset(), None, raw, explicit_empty=True)
    # split_members already yields canonical members (cleaned, lowercased).
    return ParsedAnswer(frozenset(split_members(body, numbers)), None, raw, explicit_empty=False)


def lenient_parse(
    output: str,
    *,
    numbers: bool,
    known_members: Collection[Member] = (),
    closed_by_stop: bool = False,
    strict: ParsedAnswer | None = None,
) -> ParsedAnswer:
    """A secondary, forgiving reading for models that ignore the answer tag: the strict
    parse when it succeeds, else the first {...} group anywhere in the output. It never
    replaces the strict verdict; it shows how much of a score is lost to format alone.
    `strict`: `parse_answer`'s reading of this output with these options, when the
    caller has it already (it is not parsed twice)."""
    if strict is None:
        strict = parse_answer(
            output, numbers=numbers, known_members=known_members, closed_by_stop=closed_by_stop
        )
    if strict.ok or not isinstance(output, str):
        return strict
    start = output.find("{")
    if start == -1:
        return strict
    end = output.find("}", start)
    body = safe_text(output[start + 1 :] if end == -1 else output[start + 1 : end])
    if not body.strip():
        return ParsedAnswer(frozenset(), None, body, explicit_empty=True)
    return ParsedAnswer(frozenset(split_members(body, numbers)), None, body)
