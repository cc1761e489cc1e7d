"""The authors' answer reading (`--parser paper`, the default): equal to a regex reference of
their `parse_lm_response` + `is_correct` on hand-made and random outputs, quirks included;
linear on hostile input; every answer read both ways and the disagreements counted."""

from __future__ import annotations

import ast
import json
import random
import re

import pytest

from lexbench.benchmarks.setlexsem.benchmark import (
    SetLexSemBenchmark,
    build_benchmark,
    generate_items,
    score_item,
)
from lexbench.benchmarks.setlexsem.paper_parse import paper_read, paper_verdict, tagged_spans
from lexbench.benchmarks.setlexsem.parse import parse_answer
from lexbench.benchmarks.setlexsem.verdict import score_answer
from lexbench.run.evaluate import evaluate
from mock_model import ScriptedModel

_SPAN = re.compile(r"(?<=<answer>)(.*?)(?=</answer>)", re.DOTALL)


def reference(output, truth):
    """The authors' procedure as their code states it (regex, literal_eval, sorted lists),
    run only on short texts: (members or None for their {-1}, correct)."""
    try:
        if "<answer>" in output:
            spans = _SPAN.findall(output)
            if len(spans) > 1:
                raise AssertionError("more than one answer")
            text = spans[0].strip() if spans else output.strip()
            if "set(" in text:
                text = text.replace("set(", "")[:-1]
            runs = re.findall(r"[a-zA-Z0-9.\-_ ]+", text.replace(" ", ""))
            quoted = "{" + ",".join(f'"{r}"' for r in runs) + "}"
            members = set()
            for value in ast.literal_eval(quoted) if runs else ():
                try:
                    members.add(int(value))
                except ValueError:
                    members.add(value)
            if members in ({"theemptyset"}, {"emptyset"}, {"Theemptyset"}):
                members = set()
        elif "set()" in output:
            members = set()
        else:
            return None, False
        return members, sorted(truth) == sorted(members)
    except (AssertionError, TypeError):
        return None, False


# (output, gold, the paper reading's members or None, paper correct, lexbench correct)
CASES = [
    ("<answer>{1, 2}</answer>", [1, 2], {1, 2}, True, True),
    ("<answer>{one, two}</answer>", [1, 2], {"one", "two"}, False, True),
    ("<answer>{1.0, 2.0}</answer>", [1, 2], {"1.0", "2.0"}, False, True),
    ("<answer>A ∪ B = {1, 2}</answer>", [1, 2], None, False, True),  # ints and text
    ("<answer>none</answer>", [], {"none"}, False, True),
    ("<answer>nothing</answer>", [], {"nothing"}, False, True),
    ("<answer>the empty set</answer>", [], set(), True, True),
    ("<answer>{}</answer>", [], set(), True, True),
    ("So A ∩ B = set().", [], set(), True, False),  # no tag: set() anywhere is empty
    ("I think {1, 2}", [1, 2], None, False, False),
    ("<answer>{Bahai, spy}</answer>", ["Bahai", "spy"], {"Bahai", "spy"}, True, True),
    ("<answer>{bahai, spy}</answer>", ["Bahai", "spy"], {"bahai", "spy"}, False, True),
    ("<answer>{o'clock}</answer>", ["o'clock"], {"o", "clock"}, False, True),
    ("<answer>{1}</answer> <answer>{2}</answer>", [1], None, False, False),
    ("<answer>set([1, 2])</answer>", [1, 2], {1, 2}, True, True),
    ("<answer>{007, 1_0, -3}</answer>", [7, 10, -3], {7, 10, -3}, True, True),
    ("<answer>\n1\n2\n</answer>", [1, 2], {1, 2}, True, True),
    ("<answer>{cat dog}</answer>", ["cat", "dog"], {"catdog"}, False, True),
    ("Thinking... <answer>{1, 2}", [1, 2], None, False, False),  # unclosed: whole text
    ("<ANSWER>{1}</ANSWER>", [1], None, False, True),  # their tag test is case-sensitive
]


@pytest.mark.parametrize(("output", "gold", "members", "paper_ok", "lexbench_ok"), CASES)
def test_paper_reading_reproduces_the_authors_quirks(output, gold, members, paper_ok, lexbench_ok):
    reading, verdict = paper_verdict(output, gold, gold, [])
    assert (None if reading.members is None else set(reading.members)) == members
    assert verdict.correct is paper_ok
    assert reference(output, gold) == (members, paper_ok)
    numbers = all(isinstance(m, int) for m in gold) and bool(gold)
    lexbench = score_answer(parse_answer(output, numbers=numbers or gold == []), gold, gold, [])
    assert lexbench.correct is lexbench_ok
    if members is None:
        assert verdict.error_class == "format_failure" and verdict.answer is None


def test_paper_reading_equals_the_reference_on_random_outputs():
    rng = random.Random(7)
    pieces = ["<answer>", "</answer>", "{", "}", ", ", " ", "1", "2", "-", "1.0", "a", "B"]
    pieces += ["set(", "set()", ")", "'", "\n", "the empty set", "none", "<answer", "ç"]
    truths = [[1, 2], ["a", "B"], [], [1]]
    for _ in range(20_000):
        output = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 9)))
        truth = rng.choice(truths)
        reading, verdict = paper_verdict(output, truth, truth, [])
        got = None if reading.members is None else set(reading.members)
        assert (got, verdict.correct) == reference(output, truth), output
        assert tagged_spans(output) == _SPAN.findall(output), output


def test_paper_reading_is_linear_on_hostile_outputs():
    # The authors' lazy regex is quadratic on many unclosed tags; this reading is one pass.
    many_open = "<answer>" * 200_000 + "1"
    assert paper_read(many_open).members == frozenset({"answer", 1})
    many_closed = "<answer>{1}</answer>" * 100_000
    assert paper_read(many_closed).format_error == "paper_multiple_answers"
    huge = paper_read("<answer>{" + "9" * 100_000 + "}</answer>").members
    assert huge == frozenset({"9" * 100_000})  # over Python's int digit limit: stays text
    assert paper_read("<answer>\ud800</answer>").members == frozenset()
    assert paper_read(None).format_error == "paper_no_answer"  # type: ignore[arg-type]


def test_stop_at_answer_puts_the_closing_tag_back():
    assert paper_read("<answer>{1, 2}", closed_by_stop=True).members == frozenset({1, 2})
    assert paper_read("<answer>{1, 2}").members == frozenset({"answer", 1, 2})


@pytest.fixture(scope="module")
def union_items():
    return generate_items("small", limit=1, selection={"operation": ("union",), "m": ("2",)})


def test_a_run_reads_every_answer_both_ways_and_counts_the_disagreements(tmp_path, union_items):
    numbers = [i for i in union_items if i.token_type == "numbers"][:4]
    words = [i for i in union_items if i.token_type == "words"][:2]
    items = numbers[:2] + words[:1] + numbers[2:] + words[1:]
    position = {item.id: n for n, item in enumerate(items)}

    def reply(request):
        n = position[request.id]
        members = [str(m) for m in items[n].answer]
        if n == 1:  # "A ∪ B = {...}": lexbench reads it; the paper reading mixes in A, B
            return "<answer>A ∪ B = {" + ", ".join(members) + "}</answer>"
        if n == 2:  # upper case: right for lexbench only
            return "<answer>{" + ", ".join(m.upper() for m in members) + "}</answer>"
        if n == 3:  # no tag: the empty set for the paper, unreadable for lexbench; both wrong
            return "set()"
        if n == 4:  # "47.0": right for lexbench only
            return "<answer>{" + ", ".join(f"{m}.0" for m in members) + "}</answer>"
        return "<answer>{" + ", ".join(members) + "}</answer>"  # both right

    def run(parser):
        bench = SetLexSemBenchmark(dataset=items, model_name="scripted", parser=parser)
        evaluation = evaluate(
            bench, ScriptedModel(reply=reply), out_root=tmp_path / parser, progress=False
        )
        rows = [
            json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()
        ]
        return evaluation, sorted(rows, key=lambda r: position[r["id"]])

    evaluation, rows = run("paper")
    both = [(r["readings"]["paper"]["correct"], r["readings"]["lexbench"]["correct"]) for r in rows]
    right, paper_fails, lexbench_only = (True, True), (False, False), (False, True)
    assert both == [right, lexbench_only, lexbench_only, paper_fails, lexbench_only, right]
    assert [r["correct"] for r in rows] == [p for p, _ in both]
    assert rows[3]["readings"]["paper"]["error_class"] == "empty_but_nonempty"
    assert rows[3]["readings"]["lexbench"]["error_class"] == "format_failure"
    readings = evaluation.results["readings"]
    assert readings == {
        "parser": "paper",
        "items": 6,
        "disagree": 3,
        "paper_only_correct": 0,
        "lexbench_only_correct": 3,
        "paper_accuracy": 2 / 6,
        "lexbench_accuracy": 5 / 6,
    }
    assert "judge 3 of 6 answers differently" in evaluation.report
    assert "The tables use the paper reading." in evaluation.report
    assert '"parser": "paper"' in evaluation.folder.config_path.read_text()
    lenient, lenient_rows = run("lexbench")
    assert [r["correct"] for r in lenient_rows] == [x for _, x in both]
    assert lenient.results["readings"]["disagree"] == 3
    assert lenient.results["overall"]["accuracy"] == 5 / 6


def test_unknown_parser_is_an_error_naming_the_choices(union_items):
    with pytest.raises(ValueError, match=r"unknown SetLexSem parser 'strict'; choose from paper"):
        build_benchmark("m", grid="small", limit=1, parser="strict")
    with pytest.raises(ValueError, match="unknown SetLexSem parser"):
        score_item(union_items[0], "<answer>{}</answer>", parser="strict")
    from lexbench.cli import build_parser

    args = build_parser().parse_args(["run", "setlexsem", "--model", "m"])
    assert args.parser == "paper"
    args = build_parser().parse_args(["run", "setlexsem", "--model", "m", "--parser", "lexbench"])
    assert args.parser == "lexbench"
