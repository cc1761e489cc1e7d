"""The SetLexSem authors' answer reading (`parse_lm_response` and `is_correct` in their
`setlexsem/experiment/lmapi.py` and `setlexsem/generate/prompt.py`), quirks included, in
time linear in the output. It is the default reading (`--parser paper`); lexbench's lenient
one (`parse.py`, `--parser lexbench`) is the alternative, and a run reads every answer both
ways.

What the authors' code does, step by step:

1. If the output contains the literal `<answer>` (case-sensitive): the text between an
   `<answer>` and the next `</answer>`, found as their regex
   `(?<=<answer>)(.*?)(?=</answer>)` finds it (`re.findall`, DOTALL). Two or more such
   spans raise an error (the answer is stored as {-1}: not followed); none (an opening tag
   never closed) takes the whole output instead; one is stripped of white space.
2. If that text contains `set(`, every `set(` is removed and so is the last character.
3. ASCII spaces are deleted, and the members are the maximal runs of `[a-zA-Z0-9.\\-_]`:
   anything else (commas, braces, quotes, apostrophes, newlines, non-ASCII letters)
   separates members. So "o'clock" reads as {"o", "clock"}, "1, 2" as {1, 2}, "{}" as {}.
4. A member that Python's `int()` accepts becomes that int ("007" -> 7, "1_0" -> 10,
   "-3" -> -3; "1.0" stays text); {"theemptyset"}, {"emptyset"}, {"Theemptyset"} become the
   empty set.
5. Without `<answer>`: the empty set if the output contains `set()` anywhere, else {-1}
   (did not follow the instructions).
6. `is_correct` compares sorted lists: exact members, case-sensitive ("bahai" is not
   "Bahai"); members of both kinds (ints and text) cannot be sorted, the comparison raises
   and the answer is stored as {-1}.

Here every {-1} outcome is a format failure (`paper_*` format errors), which the error
analysis counts under "Did Not Follow Instruction" as the authors' does.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from lexbench.benchmarks.setlexsem.members import safe_text
from lexbench.benchmarks.setlexsem.sets import Member
from lexbench.benchmarks.setlexsem.verdict import SetScore, compare_sets, unreadable

OPEN = "<answer>"
CLOSE = "</answer>"
# One character class, repeated: no alternation or nesting, so the scan is linear.
_RUN = re.compile(r"[a-zA-Z0-9.\-_]+")
_EMPTY_WORDS = ({"theemptyset"}, {"emptyset"}, {"Theemptyset"})
PARSERS = ("paper", "lexbench")
# The first characters of a run that `int()` can accept (runs hold no spaces or '+').
_INT_STARTS = frozenset("0123456789-")


@dataclass(frozen=True)
class PaperReading:
    """The authors' reading of one output: `members` is None where they stored {-1}."""

    members: frozenset[Member] | None
    format_error: str | None  # paper_no_answer | paper_multiple_answers | paper_mixed_types
    raw: str | None  # the text the members were read from


def tagged_spans(output: str) -> list[str]:
    """What `re.findall(r"(?<=<answer>)(.*?)(?=</answer>)", output, re.DOTALL)` returns, in
    one pass: a span starts right after an `<answer>` that ends at or past the end of the
    last span and runs to the next `</answer>` (an `<answer>` inside a span starts none);
    after an empty span, `re` allows no second empty one at the same place."""
    spans: list[str] = []
    position = 0  # where the next span may start
    no_empty_at = -1
    while True:
        opened = output.find(OPEN, max(0, position - len(OPEN)))
        while opened != -1 and opened + len(OPEN) < position:
            opened = output.find(OPEN, opened + 1)
        if opened == -1:
            return spans
        start = opened + len(OPEN)
        end = output.find(CLOSE, start + 1 if start == no_empty_at else start)
        if end == -1:  # no later span can close either
            return spans
        spans.append(output[start:end])
        position = end
        no_empty_at = end if end == start else -1


def _as_int(token: str) -> Member:
    """Python's `int()` on a token, as the authors' `try_convert_ints` (their code runs it
    on every member); text where it raises (a numeral over Python's digit limit too)."""
    if token[0] not in _INT_STARTS:  # a word: int() would raise, and raising is slow
        return token
    try:
        return int(token)
    except ValueError:
        return token


def read_members(text: str) -> frozenset[Member]:
    """Steps 2-4 on the text taken from the answer tag (or the whole output)."""
    if "set(" in text:
        text = text.replace("set(", "")[:-1]
    members = {_as_int(token) for token in _RUN.findall(text.replace(" ", ""))}
    if members in _EMPTY_WORDS:
        return frozenset()
    return frozenset(members)


def paper_read(output: str, closed_by_stop: bool = False) -> PaperReading:
    """The authors' `parse_lm_response` (steps 1-5). Never raises; linear in the output.
    `closed_by_stop`: generation stopped at `</answer>` (lexbench's `--stop-at-answer`; the
    authors used no stop string), so the tag the stop string removed is put back."""
    if not isinstance(output, str):
        return PaperReading(None, "paper_no_answer", None)
    output = safe_text(output)
    if closed_by_stop and OPEN in output and not output.rstrip().endswith(CLOSE):
        output += CLOSE
    if OPEN not in output:
        if "set()" in output:
            return PaperReading(frozenset(), None, "set()")
        return PaperReading(None, "paper_no_answer", None)
    spans = tagged_spans(output)
    if len(spans) > 1:
        return PaperReading(None, "paper_multiple_answers", None)
    text = spans[0].strip() if spans else output.strip()
    return PaperReading(read_members(text), None, text)


def paper_verdict(
    output: str,
    truth: Collection[Member],
    a: Collection[Member],
    b: Collection[Member],
    closed_by_stop: bool = False,
) -> tuple[PaperReading, SetScore]:
    """The authors' reading and `is_correct`: members compared exactly as written."""
    reading = paper_read(output, closed_by_stop)
    if reading.members is None:
        return reading, unreadable(reading.format_error)
    kinds = {isinstance(m, int) for m in reading.members}
    if len(kinds) > 1:  # sorted() of ints and text raises in their is_correct
        failed = PaperReading(None, "paper_mixed_types", reading.raw)
        return failed, unreadable(failed.format_error)
    return reading, compare_sets(set(reading.members), set(truth), set(a).union(b))


def reading_summary(verdict: SetScore) -> dict[str, Any]:
    """What one reading made of an answer, for the sample row."""
    return {
        "correct": verdict.correct,
        "parsed_answer": verdict.answer,
        "error_class": verdict.error_class,
    }


def reading_agreement(counts: Mapping[tuple[bool, bool], int], parser: str) -> dict[str, Any]:
    """How often the authors' reading and lexbench's judge a scored answer differently,
    from the number of answers per (paper reading right, lexbench reading right)."""
    n = sum(counts.values())
    paper_only, lexbench_only = counts.get((True, False), 0), counts.get((False, True), 0)
    both = counts.get((True, True), 0)
    return {
        "parser": parser,
        "items": n,
        "disagree": paper_only + lexbench_only,
        "paper_only_correct": paper_only,
        "lexbench_only_correct": lexbench_only,
        "paper_accuracy": (both + paper_only) / n if n else float("nan"),
        "lexbench_accuracy": (both + lexbench_only) / n if n else float("nan"),
    }
