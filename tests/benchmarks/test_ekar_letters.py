"""Fuzz tests of the parsers that read E-KAR model output (issue 19, item 3): letter
extraction, the first line of a generated explanation, and ROUGE's tokeniser. Each must
never raise and must take time linear in its input, whatever a model writes: nesting,
huge numbers, lone surrogates, NUL, a megabyte, long whitespace runs. Before the fix,
"Answer" + 400 spaces + "x" took 15 s in `extract_letter` (583 s at 1,000 spaces)."""

from __future__ import annotations

import random
import time

import pytest

from lexbench.benchmarks.ekar.explain_prompts import first_line
from lexbench.benchmarks.ekar.letters import Extraction, extract_letter
from lexbench.metrics.rouge import rouge_n

HOWS = {
    "answer_phrase",
    "leading_letter",
    "option_phrase",
    "candidate_text",
    "standalone_letter",
    "no_letter",
    "ambiguous",
    "echoed_options",
    "empty",
}
MEGABYTE = 1_000_000


def seconds_allowed(text: str) -> float:
    """Generous: 2 s plus 4 microseconds a character (6 s for a megabyte) on a shared CPU.
    A quadratic parser needs minutes on the long inputs; a cubic one on 400 spaces."""
    return 2.0 + 4e-6 * len(text)


def hostile_inputs() -> list[tuple[str, str]]:
    """(name, text), the cheapest-to-fail first: the catastrophic-backtracking inputs come
    before the megabyte ones so a regression fails in seconds, not hours."""
    rng = random.Random(19)
    junk = "".join(rng.choice("AB CD:：()（）.;；\n\tx答案选项") for _ in range(MEGABYTE))
    return [
        ("Answer + 400 spaces", "Answer" + " " * 400 + "x"),
        ("答案 + 400 spaces", "答案" + " " * 400 + "x"),
        ("Answer + 1,000 spaces", "Answer" + " " * 1000 + "x"),
        ("答案 + 1,000 spaces", "答案" + " " * 1000 + "x"),
        ("answer is + mixed whitespace", "The answer is" + " \t\u3000\n" * 20_000 + ": ( x"),
        ("选项 + spaces and brackets", "选项" + " （" * 50_000 + "x"),
        ("Answer + 200,000 spaces", "Answer" + " " * 200_000 + "x"),
        ("answer is, repeated", "answer is " * 100_000),
        ("option, repeated", "option " * 100_000 + "E"),
        ("nested parentheses", "(" * 200_000 + "A" + ")" * 200_000),
        ("nested brackets", "[" * 100_000 + "]" * 100_000),
        ("nested JSON", '{"answer": ' * 50_000 + '"B"' + "}" * 50_000),
        ("huge number", "{" + "9" * 400 + ".0}"),
        ("5,000 digits", "9" * 5_000),
        ("overflowing float", "1e999999 answer 1e-999999"),
        ("lone surrogate", " x\udcffy"),
        ("surrogates around a letter", "\udcff\ud800B\udfff"),
        ("NUL bytes", "\x00" * 10_000 + "answer:\x00C"),
        ("A, a megabyte", "A" * MEGABYTE),
        ("A and a space, a megabyte", "A " * (MEGABYTE // 2)),
        ("echoed markers, a megabyte", "A. x；B. y；" * (MEGABYTE // 12)),
        ("non-word run after A", "A" + "!" * MEGABYTE),
        ("random junk, a megabyte", junk),
        ("emoji and full-width", "😀Ｂ😀" * 100_000),
    ]


def random_inputs(count: int = 400) -> list[str]:
    rng = random.Random(15)
    pieces = [
        "A",
        "B",
        "C",
        "D",
        "E",
        "a",
        "d",
        "答案",
        "答",
        "选项",
        "是",
        "为",
        "answer",
        "Answer",
        "is",
        "option",
        "choice",
        "the",
        " ",
        "  ",
        "\n",
        "\t",
        "\u3000",
        ":",
        "：",
        "(",
        ")",
        "（",
        "）",
        "[",
        ".",
        "．",
        "、",
        ";",
        "；",
        ",",
        "\x00",
        "\udcff",
        "Ａ",
        "Ｄ",
        "9",
        "é",
        "😀",
        "passenger : bus",
        "x",
    ]
    return ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 400))) for _ in range(count)]


def checked(parse, text: str, name: str):
    start = time.perf_counter()
    result = parse(text)
    elapsed = time.perf_counter() - start
    assert elapsed < seconds_allowed(text), f"{name}: {elapsed:.2f}s for {len(text):,} characters"
    return result


def test_letter_extraction_survives_hostile_output_in_linear_time():
    candidates = ["passenger : bus : taxi", "magazine : bookshelf", "x : y", "z : w"]
    for name, text in hostile_inputs():
        result = checked(lambda t: extract_letter(t, candidates), text, name)
        assert isinstance(result, Extraction) and result.how in HOWS, name
        assert result.letter in (None, "A", "B", "C", "D"), name
    assert extract_letter("Answer" + " " * 1000 + "x") == Extraction(None, "no_letter")
    assert extract_letter("答案" + " " * 1000 + "C").letter == "C"
    assert extract_letter("Answer" + " \n\t" * 500 + "(d)").letter == "D"


def test_letter_extraction_never_raises_on_random_output():
    for number, text in enumerate(random_inputs()):
        result = checked(
            lambda t: extract_letter(t, ["passenger : bus", "x : y"]),
            text,
            f"random input {number}",
        )
        assert result.how in HOWS and result.letter in (None, "A", "B", "C", "D")
    assert extract_letter(None) == Extraction(None, "empty")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "parse",
    [first_line, lambda t: rouge_n(t, "the cat sat on the mat")],
    ids=["first_line", "rouge2"],
)
def test_explanation_parsers_survive_hostile_output(parse):
    for name, text in hostile_inputs():
        checked(parse, text, name)
    for number, text in enumerate(random_inputs(100)):
        checked(parse, text, f"random input {number}")
    assert first_line(" \n\x00 a\udcff \nb") == "\x00 a\udcff"
    assert rouge_n("\udcff cat sat", "cat sat").f1 == pytest.approx(1.0)
