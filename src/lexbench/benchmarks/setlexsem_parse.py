"""Parse a model's SetLexSem answer and score it against the ground truth.

The answer is the text inside the one `<answer>...</answer>` tag:

* no tag, two or more tags, or an opening tag never closed is a format failure
  (an opening tag cut off by a `</answer>` stop string counts as closed);
* inside the tag, a bracketed group ({...}, [...], (...), set(...)) is taken if there is
  one, so "A ∪ B = {1, 2}." reads as {1, 2}; otherwise the whole text;
* members are split on commas, semicolons and line breaks (and on spaces when a piece holds
  several bare numbers or words, since every member is a single token), stripped of quotes,
  backticks, trailing periods and a leading "and"; words are lowercased;
* for number sets, numerals become ints ("042" -> 42) and numbers written as words
  ("forty-two", "one hundred and five") are converted;
* an explicit empty set is recognised: {}, set(), [], (), ∅, "empty", "the empty set",
  "{} (the empty set)", and "none"/"nothing" unless that word is itself a member of A or B.

Accuracy is exact set equality. Precision = |P ∩ G| / |P|, recall = |P ∩ G| / |G|,
Jaccard = |P ∩ G| / |P ∪ G|; when a side is empty the ratio is 1 if both are empty, else 0.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from lexbench.benchmarks.setlexsem_sets import Member, sort_members

OPEN_TAG = re.compile(r"<\s*answer\s*>", re.IGNORECASE)
CLOSE_TAG = re.compile(r"<\s*/\s*answer\s*>", re.IGNORECASE)
ANSWER_BLOCK = re.compile(r"<\s*answer\s*>(.*?)<\s*/\s*answer\s*>", re.IGNORECASE | re.DOTALL)
_EMPTY_PHRASES = {"", "empty", "empty set", "the empty set", "an empty set", "emptyset",
                  "theemptyset", "∅", "ø", "{}", "set()", "[]", "()", "{ }", "set([])", "set({})",
                  "frozenset()", "no members", "no elements"}
_SOFT_EMPTY = {"none", "nothing", "null"}
_STRIP = " \t\r\n\"'`“”‘’*_"
_BRACKETS = {"{": "}", "[": "]", "(": ")"}

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}


def words_to_number(text: str) -> int | None:
    """"forty-two" -> 42, "one hundred and five" -> 105; None if not one number in words.

    A strict grammar, so a list such as "one two three" is not read as one number.

    >>> words_to_number("three thousand four hundred and twelve")
    3412
    >>> words_to_number("one two") is None, words_to_number("cat") is None
    (True, True)
    """
    tokens = [t for t in re.split(r"[\s-]+", text.lower().strip()) if t and t != "and"]
    if not tokens:
        return None
    if tokens == ["zero"]:
        return 0
    total = current = 0
    last: str | None = None          # unit, teen, tens, hundred, scale
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


@dataclass(frozen=True)
class ParsedAnswer:
    """What the parser made of one output. `members` is None on a format failure."""

    members: frozenset[Member] | None
    format_error: str | None          # no_answer_tag | multiple_answer_tags | unclosed_answer_tag
    raw: str | None                   # the text inside the tag
    explicit_empty: bool = False

    @property
    def ok(self) -> bool:
        return self.members is not None


def answer_text(output: str, closed_by_stop: bool = False) -> tuple[str | None, str | None]:
    """(text inside the single answer tag, format error)."""
    opens = len(OPEN_TAG.findall(output))
    blocks = ANSWER_BLOCK.findall(output)
    if opens == 0:
        return None, "no_answer_tag"
    if opens > 1 or len(blocks) > 1:
        return None, "multiple_answer_tags"
    if not blocks:
        if closed_by_stop:
            return output[OPEN_TAG.search(output).end():], None  # type: ignore[union-attr]
        return None, "unclosed_answer_tag"
    return blocks[0], None


def _bracketed(text: str) -> str | None:
    """The contents of the first balanced bracket group (set(...) unwrapped), or None."""
    start = next((i for i, c in enumerate(text) if c in _BRACKETS), None)
    if start is None:
        return None
    depth = 0
    for position in range(start, len(text)):
        char = text[position]
        if char in _BRACKETS:
            depth += 1
        elif char in _BRACKETS.values():
            depth -= 1
            if depth == 0:
                inner = text[start + 1:position].strip()
                # set([1, 2]) / set({1, 2}) / frozenset({...}): unwrap the inner group too.
                nested = _bracketed(inner) if inner[:1] in _BRACKETS and inner[-1:] in _BRACKETS.values() else None
                return nested if nested is not None else inner
    return text[start + 1:].strip()  # unbalanced: take the rest


def _clean_piece(piece: str) -> str:
    piece = piece.strip(_STRIP)
    piece = re.sub(r"^(?:and|or)\s+", "", piece, flags=re.IGNORECASE)
    return piece.strip(_STRIP).rstrip(".!;:").strip(_STRIP)


def _member(piece: str, numbers: bool) -> Member:
    if numbers:
        compact = piece.replace(",", "").replace("_", "")
        if re.fullmatch(r"[+-]?\d+", compact):
            return int(compact)
        if re.fullmatch(r"[+-]?\d+\.0+", compact):
            return int(float(compact))
        spelled = words_to_number(piece)
        if spelled is not None:
            return spelled
    return piece.lower()


def split_members(body: str, numbers: bool) -> list[Member]:
    """The members listed in `body` (already stripped of brackets)."""
    out: list[Member] = []
    for chunk in re.split(r"[,;\n]+", body):
        piece = _clean_piece(chunk)
        if not piece:
            continue
        if numbers and words_to_number(piece) is not None:
            out.append(words_to_number(piece))  # type: ignore[arg-type]
            continue
        tokens = piece.split()
        if len(tokens) > 1:
            # Members are single tokens; "1 2 3" or "cat dog" lists several.
            out.extend(_member(_clean_piece(t), numbers) for t in tokens if _clean_piece(t))
        else:
            out.append(_member(piece, numbers))
    return out


def parse_answer(output: str, *, numbers: bool, known_members: Collection[Member] = (),
                 closed_by_stop: bool = False) -> ParsedAnswer:
    """Parse one output. `known_members` (A ∪ B) keeps a member named "none" from being read
    as the empty set."""
    raw, error = answer_text(output, closed_by_stop)
    if raw is None:
        return ParsedAnswer(None, error, None)
    text = raw.strip().strip(_STRIP).rstrip(".").strip()
    lowered = re.sub(r"\s+", " ", text.lower())
    if lowered in _EMPTY_PHRASES or re.fullmatch(r"(\{\s*\}|set\(\s*\)|∅)\s*\(?(the )?empty set\)?", lowered):
        return ParsedAnswer(frozenset(), None, raw, explicit_empty=True)
    if lowered in _SOFT_EMPTY and lowered not in {str(m) for m in known_members}:
        return ParsedAnswer(frozenset(), None, raw, explicit_empty=True)
    body = _bracketed(text)
    if body is None:
        body = text
    elif re.sub(r"\s+", " ", body.lower()).strip(_STRIP) in _EMPTY_PHRASES:
        return ParsedAnswer(frozenset(), None, raw, explicit_empty=True)
    members = split_members(body, numbers)
    return ParsedAnswer(frozenset(members), None, raw, explicit_empty=False)


def lenient_parse(output: str, *, numbers: bool, known_members: Collection[Member] = (),
                  closed_by_stop: bool = False) -> ParsedAnswer:
    """A secondary, forgiving reading for models that ignore the answer tag: the strict
    parse when it succeeds, else the first {...} group anywhere in the output. It never
    replaces the strict verdict; it shows how much of a score is lost to format alone."""
    strict = parse_answer(output, numbers=numbers, known_members=known_members,
                          closed_by_stop=closed_by_stop)
    if strict.ok:
        return strict
    start = output.find("{")
    if start == -1:
        return strict
    end = output.find("}", start)
    body = output[start + 1:] if end == -1 else output[start + 1:end]
    if not body.strip():
        return ParsedAnswer(frozenset(), None, body, explicit_empty=True)
    return ParsedAnswer(frozenset(split_members(body, numbers)), None, body)


def _ratio(numerator: int, denominator: int, both_empty: bool) -> float:
    if denominator == 0:
        return 1.0 if both_empty else 0.0
    return numerator / denominator


@dataclass(frozen=True)
class SetScore:
    correct: bool
    precision: float
    recall: float
    jaccard: float
    error_class: str
    answer: list[Member] | None
    answer_size: int | None
    hallucinated: list[Member] = field(default_factory=list)
    format_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "precision": self.precision, "recall": self.recall,
                "jaccard": self.jaccard, "error_class": self.error_class,
                "parsed_answer": self.answer, "answer_size": self.answer_size,
                "hallucinated": self.hallucinated, "format_error": self.format_error}


ERROR_CLASSES = ("format_failure", "empty_but_nonempty", "nonempty_but_empty", "hallucinated",
                 "missing_members", "extra_members", "wrong_members")


def score_answer(parsed: ParsedAnswer, truth: Collection[Member], a: Sequence[Member],
                 b: Sequence[Member]) -> SetScore:
    """Exact-set verdict, overlap metrics and the error class (first match wins):
    format_failure; empty_but_nonempty (answered the empty set, truth is not empty);
    nonempty_but_empty (truth is empty); hallucinated (a member in neither A nor B);
    missing_members (a strict subset); extra_members (a strict superset); wrong_members."""
    if parsed.members is None:
        return SetScore(False, 0.0, 0.0, 0.0, "format_failure", None, None,
                        format_error=parsed.format_error)
    predicted = set(parsed.members)
    gold = set(truth)
    hit = len(predicted & gold)
    both_empty = not predicted and not gold
    precision = _ratio(hit, len(predicted), both_empty)
    recall = _ratio(hit, len(gold), both_empty)
    jaccard = _ratio(hit, len(predicted | gold), both_empty)
    universe = set(a) | set(b)
    made_up = sort_members([m for m in predicted if m not in universe])
    answer = sort_members(list(predicted))
    if predicted == gold:
        error_class = "correct"
    elif not predicted:
        error_class = "empty_but_nonempty"
    elif not gold:
        error_class = "nonempty_but_empty"
    elif made_up:
        error_class = "hallucinated"
    elif predicted < gold:
        error_class = "missing_members"
    elif predicted > gold:
        error_class = "extra_members"
    else:
        error_class = "wrong_members"
    return SetScore(predicted == gold, precision, recall, jaccard, error_class, answer,
                    len(predicted), made_up)
