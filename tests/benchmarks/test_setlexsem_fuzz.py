"""The SetLexSem answer parser never raises and is linear in its input (issue 19, item 2).

Hostile outputs that crashed a run before (OverflowError on `{9...9.0}`, the int conversion
limit on 5,000 digits, RecursionError on 3,000 nested braces) or took quadratic time (10,000
`<answer>` tags: 4 s) must each become a format failure or a plain wrong answer for that
item; random strings built from the parser's own vocabulary, lone surrogates, NUL and 1 MB
inputs go through the whole scoring path, and what the run writes stays valid UTF-8 JSON.
"""

from __future__ import annotations

import json
import random
import time

import pytest

from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark, generate_items
from lexbench.benchmarks.setlexsem.grid_read import grid_from_mapping
from lexbench.benchmarks.setlexsem.parse import lenient_parse, parse_answer
from lexbench.benchmarks.setlexsem.verdict import score_answer
from lexbench.types import Request, Response

MB = 1_000_000
HOSTILE = {
    "huge float": "<answer>{" + "9" * 400 + ".0}</answer>",
    "5,000 digits": "<answer>{" + "7" * 5000 + "}</answer>",
    "3,000 nested braces": "<answer>" + "{" * 3000 + "1" + "}" * 3000 + "</answer>",
    "30,000 nested mixed": "<answer>set(" + "[({" * 10_000 + "x" + "})]" * 10_000 + ")</answer>",
    "unbalanced 1 MB": "<answer>" + "{" * MB + "</answer>",
    "10,000 answer tags": "<answer>" * 10_000,
    "10,000 closed tags": "<answer>1</answer>" * 10_000,
    "lone surrogate": "<answer>{x\udcff, \udcffy}</answer>",
    "surrogate outside": "\udcff<answer>{1}</answer>\ud800",
    "NUL": "<answer>{a\x00b, 1\x00}</answer>\x00",
    "1 MB of members": "<answer>{" + ", ".join(["7"] * (MB // 3)) + "}</answer>",
    "1 MB single token": "<answer>" + "x" * MB + "</answer>",
    "1 MB of spaces after <answer": "<answer" + " " * MB + "x",
    "1 MB of <": "<" * MB,
    "number words": "<answer>" + "one hundred " * 80_000 + "</answer>",
    "negative and signs": "<answer>{-0, +5, --3, 1e999, 0x1F, ١٢}</answer>",
}
TOKENS = [
    "<answer>",
    "</answer>",
    "< answer >",
    "</ANSWER>",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "set(",
    "frozenset(",
    ",",
    ";",
    "\n",
    " ",
    "1",
    "42",
    "9" * 60,
    ".0",
    ".5",
    "-",
    "+",
    "one",
    "hundred",
    "thousand",
    "and",
    "none",
    "empty set",
    "∅",
    "'",
    '"',
    "`",
    "*",
    "\udcff",
    "\ud800",
    "\x00",
    "Bahai",
    "cat",
    "١",
    "\u200b",
    "\\",
    "<",
    ">",
    "/",
]


@pytest.fixture(scope="module")
def items():
    grid = grid_from_mapping(
        {
            "prompts_per_config": 1,
            "study": [
                {
                    "name": "numbers",
                    "token_types": ["numbers"],
                    "token_lengths": [2],
                    "operand_sizes": [4],
                    "operations": ["union"],
                },
                {
                    "name": "deceptive",
                    "token_types": ["deceptive"],
                    "deceptive_conditions": ["swapped"],
                    "operand_sizes": [4],
                    "operations": ["intersection"],
                },
            ],
        }
    )
    numbers, words = generate_items(grid)
    return numbers, words


def _score_everything(text: str, items, thorough: bool = True) -> None:
    """Every entry point a run goes through, and the JSON line it writes."""
    for item in items:
        numbers = item.token_type == "numbers"
        for closed in (False, True) if thorough else ():
            parsed = parse_answer(
                text,
                numbers=numbers,
                closed_by_stop=closed,
                known_members=set(item.set_a) | set(item.set_b),
            )
            assert parsed.ok == (parsed.format_error is None)
            score_answer(parsed, item.answer, item.set_a, item.set_b)
        if thorough:
            lenient_parse(text, numbers=numbers)
        bench = SetLexSemBenchmark(dataset=[item])
        request = Request(id=item.id, kind="generate", prompt=item.prompt)
        response = Response(request_id=item.id, text=text)
        score = bench.score(item, [response])
        row = bench.sample(item, [request], [response], score)
        json.dumps(row, ensure_ascii=False, sort_keys=True).encode("utf-8")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_outputs_are_scored_not_raised(name, items):
    started = time.perf_counter()
    big = len(HOSTILE[name]) > 100_000
    _score_everything(HOSTILE[name], items[:1] if big else items, thorough=not big)
    # Linear: even the 1 MB inputs take seconds, not minutes (the old parser took 4 s on
    # 10,000 tags and never finished the nested cases).
    assert time.perf_counter() - started < 30, name


def test_the_issue_reproductions_read_as_the_issue_asks():
    started = time.perf_counter()
    assert (
        parse_answer(HOSTILE["10,000 answer tags"], numbers=True).format_error
        == "multiple_answer_tags"
    )
    assert time.perf_counter() - started < 1.0  # was 4 s (quadratic), 15 s on a busy machine
    huge = parse_answer(HOSTILE["huge float"], numbers=True)
    assert huge.ok and huge.members == frozenset({"9" * 400 + ".0"})  # readable, and wrong
    digits = parse_answer(HOSTILE["5,000 digits"], numbers=True)
    assert digits.ok and digits.members == frozenset({"7" * 5000})
    nested = parse_answer(HOSTILE["3,000 nested braces"], numbers=True)
    assert nested.members == frozenset({1})  # unwrapped to the set
    surrogate = parse_answer(HOSTILE["lone surrogate"], numbers=False)
    assert surrogate.members == frozenset({"x?", "?y"})


def test_many_tags_cost_time_in_proportion_to_their_number():
    def seconds(count: int) -> float:
        text = "<answer>" * count + "</answer>" * count
        started = time.perf_counter()
        for _ in range(3):
            parse_answer(text, numbers=True)
        return time.perf_counter() - started

    seconds(1000)  # warm up
    small, large = seconds(20_000), seconds(160_000)
    assert large < 0.5 or large / max(small, 1e-4) < 40  # 8x the input; quadratic would be 64x


def test_random_strings_from_the_parsers_vocabulary(items):
    rng = random.Random(20240519)
    for _ in range(1500):
        text = "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 40)))
        _score_everything(text, items)
    for _ in range(300):  # arbitrary code points, surrogates included
        text = "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randint(0, 60)))
        _score_everything("<answer>{" + text + "}</answer>", items)
        _score_everything(text, items)
