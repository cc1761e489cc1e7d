"""Which letter A-D a free-text E-KAR answer chooses.

The rule for every parser of model output: it never raises and its time is linear in the
length of what it reads; whatever it cannot read is a format failure for that item
(`letter=None`, with `how` saying why), never an error that stops the run.

Linear time: every pattern below is tried on text whose whitespace runs were first squeezed
to one character. Patterns such as `answer\\s*(is)?\\s*[:：]?\\s*` have several optional
parts between whitespace quantifiers; on raw text an "Answer" followed by N spaces and no
letter makes the regex engine try every way of sharing the spaces among them (O(N^3) per
start position: 15 s at N=400, 583 s at N=1,000). With single spaces each quantifier has at
most two choices, so a failing match costs a constant per position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

LABELS = ("A", "B", "C", "D")

_CJK_ANSWER = re.compile(
    r"(?:答案|选项|应选|选择|答)\s?(?:是|为|应为|应该是)?\s?[：:]?\s?[（(]?\s?"
    r"([A-Da-d])(?![A-Za-z])"
)
_EN_ANSWER = re.compile(
    r"\banswer\s?(?:is|would be|should be)?\s?[:：]?\s?(?:option\s|choice\s)?"
    r"[(\[]?\s?([A-Da-d])\b(?!['’]\w)",
    re.IGNORECASE,
)
_OPTION = re.compile(r"\b(?:option|choice|candidate)\s?[(\[]?([A-D])\b", re.IGNORECASE)
_LEADING = re.compile(r"^\W*?[(\[（]?([A-D])(?:[)\]）.:：、,，。]|\s*$)")
_LEADING_SPACE = re.compile(r"^\W*?([A-D])\s(\S+)")
_STANDALONE = re.compile(r"(?<![A-Za-z])([A-D])(?![A-Za-z'’])")
_ARTICLE_A = re.compile(r"(?<![A-Za-z])A\s(\S+)")
_A_ALONE = re.compile(r"(?<![A-Za-z])A(?:\W*$|[).:：、,，。])")
# An option marker starting an item of a list: "A." / "(B)" / "C、" at the start, after a
# line break, a space or a list separator. An echoed list is "A. …；B. …" -- markers A then
# B -- not an answer A.
_OPTION_MARKER = re.compile(r"(?:^|[\s；;，,、。])[(（]?([A-D])[.)）．、:：]")
_WHITESPACE = re.compile(r"\s+")
_FULL_WIDTH = str.maketrans("ＡＢＣＤ", "ABCD")
_NOT_ARTICLE_FOLLOWERS = frozenset(
    {"is", "seems", "fits", "matches", "or", "and", "nor", "looks", "would", "should", "because"}
)


@dataclass(frozen=True)
class Extraction:
    """The letter found in an output (None when none could be) and how it was found."""

    letter: str | None
    how: str  # answer_phrase, leading_letter, option_phrase, candidate_text,
    # standalone_letter, no_letter, ambiguous, echoed_options, empty


def squeeze_whitespace(text: str) -> str:
    """Each whitespace run becomes one character: a line break if it held one, else a space."""
    return _WHITESPACE.sub(lambda m: "\n" if "\n" in m.group() else " ", text)


def echoes_options(text: str) -> bool:
    """True when the text lists the options ("A. 密码：账户；B. 门：窗户" or one per line):
    its first two option markers are A then B."""
    markers = []
    for match in _OPTION_MARKER.finditer(text):
        markers.append(match.group(1))
        if len(markers) == 2:
            break
    return markers == ["A", "B"]


def extract_letter(output: str | None, candidates: Sequence[str] = ()) -> Extraction:
    """The letter A-D a free-text answer chooses.

    Tried in order: an echoed option list ("A. …；B. …": only an explicit answer phrase
    after it counts, else `echoed_options`); a letter alone at the very start ("B", "(B)",
    "C.", "D)"); an explicit answer phrase ("Answer: c", "the answer is (D).", "答案：B");
    a letter starting the text ("B is the best" -- but "A cat ..." is the article);
    "option B"; the output starting with a candidate's text; a single distinct standalone
    capital letter anywhere. Several different letters with no answer phrase is
    `ambiguous`.

    >>> extract_letter("The answer is D.").letter, extract_letter("答案：B").letter
    ('D', 'B')
    """
    if not isinstance(output, str):
        return Extraction(None, "empty")
    text = squeeze_whitespace(output.translate(_FULL_WIDTH)).strip()
    if not text:
        return Extraction(None, "empty")
    if echoes_options(text):
        for pattern in (_CJK_ANSWER, _EN_ANSWER):
            match = pattern.search(text)
            if match:
                return Extraction(match.group(1).upper(), "answer_phrase")
        return Extraction(None, "echoed_options")
    # A bare letter first ("A", "(B)", "C." on the first line) is the answer even when a
    # rambling continuation later names another one ("A\nThe answer is D ...").
    match = _LEADING.match(text.split("\n", 1)[0])
    if match:
        return Extraction(match.group(1), "leading_letter")
    for pattern in (_CJK_ANSWER, _EN_ANSWER):
        match = pattern.search(text)
        if match:
            return Extraction(match.group(1).upper(), "answer_phrase")
    match = _LEADING_SPACE.match(text)
    # "B is the best" names B; "A passenger ..." is the article, not a choice.
    if (
        match
        and not _is_article(match.group(1), match.group(2))
        and match.group(2).lower() not in ("or", "and", "nor", "/")
    ):
        return Extraction(match.group(1), "leading_letter")
    match = _OPTION.search(text)
    if match:
        return Extraction(match.group(1).upper(), "option_phrase")
    found = _candidate_text(text, candidates)
    if found is not None:
        return Extraction(found, "candidate_text")
    letters = sorted(set(_STANDALONE.findall(text)))
    # "A" followed by an ordinary lowercase word is the article, not a choice.
    if (
        "A" in letters
        and _ARTICLE_A.search(text)
        and not _A_ALONE.search(text)
        and all(_is_article("A", word) for word in _ARTICLE_A.findall(text))
    ):
        letters.remove("A")
    if len(letters) == 1:
        return Extraction(letters[0], "standalone_letter")
    if len(letters) > 1:
        return Extraction(None, "ambiguous")
    return Extraction(None, "no_letter")


def _candidate_text(text: str, candidates: Sequence[str]) -> str | None:
    """The label of the candidate whose text the output starts with (longest first)."""
    if not candidates:
        return None
    for body in (text, re.sub(r"^(?:a|an|the)\s", "", text, flags=re.IGNORECASE)):
        lowered = _squash(body)
        for label, candidate in sorted(zip(LABELS, candidates), key=lambda pair: -len(pair[1])):
            if candidate and lowered.startswith(_squash(candidate)):
                return label
    return None


def _is_article(letter: str, next_word: str) -> bool:
    """ "A cat" (article) versus "A is right" / "A or B" (the choice A)."""
    return (
        letter == "A"
        and next_word[:1].islower()
        and next_word.lower().strip(".,;:!?") not in _NOT_ARTICLE_FOLLOWERS
    )


def _squash(text: str) -> str:
    """Lowercase with separators and spaces removed, to compare candidate texts loosely."""
    return re.sub(r"[\s:：,，;；]+", "", text.lower())
