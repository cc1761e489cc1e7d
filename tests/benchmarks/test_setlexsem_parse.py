"""SetLexSem answer parsing and per-item scoring: a bank of realistic model outputs."""

from __future__ import annotations

import pytest

from lexbench.benchmarks.setlexsem.members import words_to_number
from lexbench.benchmarks.setlexsem.parse import parse_answer
from lexbench.benchmarks.setlexsem.verdict import score_answer

A_NUM, B_NUM = (12, 47, 305), (47, 90)
A_WORD, B_WORD = ("cat", "dog", "none"), ("dog", "emu")

# (output, numbers?, expected members or None for a format failure, expected format error)
BANK = [
    # -- format failures
    ("{12, 47, 90, 305}", True, None, "no_answer_tag"),
    ("The union is 12, 47, 90 and 305.", True, None, "no_answer_tag"),
    ("<answer>{12}</answer> or maybe <answer>{47}</answer>", True, None, "multiple_answer_tags"),
    ("<answer>{12, 47}</answer><answer>", True, None, "multiple_answer_tags"),
    ("<answer>{12, 47, 90", True, None, "unclosed_answer_tag"),
    ("", True, None, "no_answer_tag"),
    # -- clean answers
    ("<answer>{12, 47, 90, 305}</answer>", True, {12, 47, 90, 305}, None),
    ("<answer>{305, 90, 47, 12}</answer>", True, {12, 47, 90, 305}, None),
    ("<ANSWER> {12,47} </ANSWER>", True, {12, 47}, None),
    # -- prose around the answer, inside and outside the tag
    (
        "Sure! Here is the result.\n<answer>{47}</answer>\nLet me know if you need more.",
        True,
        {47},
        None,
    ),
    (
        "<thinking>A has 12, 47, 305; B has 47, 90.</thinking>\n<answer>{47}</answer>",
        True,
        {47},
        None,
    ),
    ("<answer>A ∩ B = {47}.</answer>", True, {47}, None),
    ("<answer>The answer is {12, 305}.</answer>", True, {12, 305}, None),
    # -- brackets and Python spellings
    ("<answer>[12, 47]</answer>", True, {12, 47}, None),
    ("<answer>(12, 47)</answer>", True, {12, 47}, None),
    ("<answer>set([12, 47])</answer>", True, {12, 47}, None),
    ("<answer>12, 47, 305</answer>", True, {12, 47, 305}, None),
    ("<answer>12 47 305</answer>", True, {12, 47, 305}, None),
    ("<answer>{'12', '47'}</answer>", True, {12, 47}, None),
    ("<answer>{012, 47}</answer>", True, {12, 47}, None),
    # -- trailing periods
    ("<answer>{12, 47}.</answer>", True, {12, 47}, None),
    ("<answer>12, 47, and 305.</answer>", True, {12, 47, 305}, None),
    # -- numbers written as words
    ("<answer>{twelve, forty-seven}</answer>", True, {12, 47}, None),
    ("<answer>three hundred and five, ninety</answer>", True, {305, 90}, None),
    ("<answer>{one, two, three}</answer>", True, {1, 2, 3}, None),
    # -- empty set spellings
    ("<answer>set()</answer>", True, set(), None),
    ("<answer>{}</answer>", True, set(), None),
    ("<answer>{ }</answer>", True, set(), None),
    ("<answer>∅</answer>", True, set(), None),
    ("<answer>The empty set.</answer>", True, set(), None),
    ("<answer>{} (the empty set)</answer>", True, set(), None),
    ("<answer></answer>", True, set(), None),
    ("<answer>None</answer>", True, set(), None),
    # -- words: quotes, case, brackets
    ("<answer>{'cat', 'emu'}</answer>", False, {"cat", "emu"}, None),
    ('<answer>{"Cat", "DOG"}</answer>', False, {"cat", "dog"}, None),
    ("<answer>[`cat`, `dog`, `emu`]</answer>", False, {"cat", "dog", "emu"}, None),
    ("<answer>cat, dog.</answer>", False, {"cat", "dog"}, None),
    ("<answer>{cat, dog, and emu}</answer>", False, {"cat", "dog", "emu"}, None),
    ("<answer>{cat, twelve}</answer>", False, {"cat", "twelve"}, None),  # no number conversion
]


@pytest.mark.parametrize("output,numbers,expected,error", BANK)
def test_parse_bank(output, numbers, expected, error):
    parsed = parse_answer(output, numbers=numbers)
    if expected is None:
        assert parsed.members is None and parsed.format_error == error
    else:
        assert parsed.format_error is None
        assert set(parsed.members) == expected
        if numbers:
            assert all(isinstance(m, int) for m in parsed.members)


def test_none_is_a_member_when_a_or_b_holds_it():
    parsed = parse_answer(
        "<answer>{none}</answer>", numbers=False, known_members=set(A_WORD) | set(B_WORD)
    )
    assert parsed.members == frozenset({"none"}) and not parsed.explicit_empty
    parsed = parse_answer(
        "<answer>none</answer>", numbers=False, known_members=set(A_WORD) | set(B_WORD)
    )
    assert parsed.members == frozenset({"none"})
    assert parse_answer("<answer>none</answer>", numbers=False).explicit_empty


def test_stop_string_closes_an_open_tag():
    output = "<answer>{12, 47"
    assert parse_answer(output, numbers=True).format_error == "unclosed_answer_tag"
    assert parse_answer(output, numbers=True, closed_by_stop=True).members == frozenset({12, 47})


@pytest.mark.parametrize(
    "text,value",
    [
        ("zero", 0),
        ("seven", 7),
        ("thirteen", 13),
        ("forty-two", 42),
        ("ninety nine", 99),
        ("one hundred", 100),
        ("one hundred and five", 105),
        ("nine hundred ninety-nine", 999),
        ("two thousand and twenty", 2020),
        ("fifteen hundred", 1500),
        ("one two", None),
        ("twenty thirty", None),
        ("hundred", None),
        ("cat", None),
        ("", None),
    ],
)
def test_words_to_number(text, value):
    assert words_to_number(text) == value


def _score(output, truth, a=A_NUM, b=B_NUM, numbers=True):
    return score_answer(parse_answer(output, numbers=numbers), truth, a, b)


def test_scores_and_error_classes():
    right = _score("<answer>{47}</answer>", {47})
    assert right.correct and right.error_class == "correct"
    assert (right.precision, right.recall, right.jaccard) == (1.0, 1.0, 1.0)

    partial = _score("<answer>{12}</answer>", {12, 305})
    assert not partial.correct and partial.error_class == "missing_members"
    assert (partial.precision, partial.recall, partial.jaccard) == (1.0, 0.5, 0.5)

    extra = _score("<answer>{12, 47, 305}</answer>", {12, 305})
    assert extra.error_class == "extra_members" and extra.precision == pytest.approx(2 / 3)

    made_up = _score("<answer>{12, 999}</answer>", {12, 305})
    assert made_up.error_class == "hallucinated" and made_up.hallucinated == [999]

    wrong_empty = _score("<answer>{}</answer>", {47})
    assert wrong_empty.error_class == "empty_but_nonempty"
    assert (wrong_empty.precision, wrong_empty.recall, wrong_empty.jaccard) == (0.0, 0.0, 0.0)

    right_empty = _score("<answer>set()</answer>", set())
    assert right_empty.correct and right_empty.jaccard == 1.0

    missed_empty = _score("<answer>{47}</answer>", set())
    assert missed_empty.error_class == "nonempty_but_empty" and missed_empty.recall == 0.0

    failure = _score("47", {47})
    assert failure.error_class == "format_failure" and failure.format_error == "no_answer_tag"
    assert failure.answer is None and not failure.correct

    swapped = _score("<answer>{12, 90}</answer>", {12, 305})
    assert swapped.error_class == "wrong_members" and swapped.answer_size == 2


def test_lenient_reading_takes_the_first_braced_set_only_when_the_tag_is_missing():
    from lexbench.benchmarks.setlexsem.parse import lenient_parse

    assert lenient_parse("Output: {38, 58}\n\nOutput: {1}", numbers=True).members == frozenset(
        {38, 58}
    )
    assert lenient_parse("<answer>{1}</answer> {2}", numbers=True).members == frozenset({1})
    assert lenient_parse("Output: {}", numbers=True).explicit_empty
    assert lenient_parse("no set here", numbers=True).format_error == "no_answer_tag"


def test_gold_and_answer_are_normalised_the_same_way():
    # Deceptive sets hold capitalised WordNet lemmas ("Bahai"); a right answer must score
    # right whatever its case, and a made-up member is judged in the same canonical form.
    a, b = ("spy", "Bahai"), ("schoolmaam", "bystander")
    truth = {"spy", "Bahai", "schoolmaam", "bystander"}
    for written in ("Bahai", "bahai", "BAHAI", "'Bahai'"):
        output = f"<answer>{{spy, {written}, schoolmaam, bystander}}</answer>"
        verdict = score_answer(parse_answer(output, numbers=False), truth, a, b)
        assert verdict.correct and verdict.hallucinated == [], written
    made_up = score_answer(
        parse_answer("<answer>{spy, Bahai, am}</answer>", numbers=False), {"spy"}, a, b
    )
    assert made_up.hallucinated == ["am"] and made_up.hallucinated_count == 1


def test_the_papers_own_answer_spellings():
    # The paper's prompts show sets in parentheses and the empty set as "()".
    assert parse_answer("<answer>(12, 47)</answer>", numbers=True).members == frozenset({12, 47})
    for empty in (
        "<answer>()</answer>",
        "<answer>() (the empty set)</answer>",
        "<answer>{}</answer>",
    ):
        parsed = parse_answer(empty, numbers=True)
        assert parsed.members == frozenset() and parsed.explicit_empty, empty
