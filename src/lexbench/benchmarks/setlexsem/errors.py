"""The paper's error analysis (Tables 15-18), with the authors' definitions, and Table 19.

Per group (set operation and token type; for deceptive sets, condition and operation), over
its N scored prompts ("N Comparisons"):

* Accuracy: correct / N;
* Accuracy Non Empty: prompts whose true answer is not empty and answered right, / N (a
  share of all prompts, not an accuracy conditional on a non-empty truth);
* Pct Nullset Correct: true answer empty and answered with the empty set, / N;
* Pct Nullset Wrong: true answer empty and not answered with the empty set, / N;
* Pct With Made Up Vals: made-up members summed over the prompts, / N, x 100 (members in
  neither A nor B per 100 prompts, as the authors compute it, although named a percentage);
* N Correct, N Wrong, Empty Set Equal Count, Empty Set Mismatch Count, Made Up Vals Sum;
* Did Not Follow Instruction: answers that could not be read (format failures);
* Top mistakes / top correct: the most frequent "G<true size> vs. L<answered size>" among
  wrong / right answers, as a share of them (%). An unreadable answer has no size: "L–".

The paper's layout: Tables 15 (union, intersection) and 16 (difference, symmetric
difference) give numbers and words per operation, with a "Max Value" row (-1: the authors'
code records no upper bound when the token length is fixed, as in the whole main design);
Tables 17 and 18 give two columns per operation, "Words" and "Deceptive Words", and no Max
Value row. "Words" is the deceptive study's random baseline and "Deceptive Words" its
swapped condition: the authors name their token types `words` and `deceptive_words` so,
their random baseline is a words run and their swapped run the one named "Deceptive" (the
not-swapped run is "Deceptive_NoSwap"), and each column's 1,600 comparisons are one
condition's 32 configurations. The not-swapped
condition is lexbench's own table (all three conditions by operation).

One difference from the authors' code, by design: their parser stored an unreadable answer
as the set {-1}, so each format failure also counted one made-up value and an answered size
of 1; here a format failure counts only under Did Not Follow Instruction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.benchmarks.setlexsem.sets import OPERATIONS
from lexbench.types import Score

TOP = 3


def _item_fields(item: Any) -> dict[str, Any]:
    return {
        "token_type": item.token_type,
        "operation": item.operation,
        "m": item.m,
        "token_length": item.token_length,
        "overlap": item.overlap,
        "k": item.k,
        "method": item.method,
        "phrasing": item.phrasing,
        "decile": item.decile,
        "decile_scope": item.decile_scope,
        "deceptive_condition": item.deceptive_condition,
    }


def _top(counter: Counter[str], total: int) -> list[list[Any]]:
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    return [[label, round(100 * count / total, 2)] for label, count in ranked] if total else []


def error_row(pairs: Sequence[tuple[Any, Mapping[str, Any]]]) -> dict[str, Any]:
    """The paper's error measures over (item, verdict) pairs of one group."""
    n = len(pairs)
    correct = [(i, v) for i, v in pairs if v.get("correct")]
    wrong = [(i, v) for i, v in pairs if not v.get("correct")]
    empty_truth = [(i, v) for i, v in pairs if not i.answer]
    empty_equal = sum(1 for _, v in empty_truth if v.get("parsed_answer") == [])
    made_up = sum(
        int(v.get("hallucinated_count", len(v.get("hallucinated") or []))) for _, v in pairs
    )
    unreadable = sum(1 for _, v in pairs if v.get("error_class") == "format_failure")
    bounds = {-1 if i.token_length is not None else i.number_range for i, _ in pairs}

    def label(item: Any, verdict: Mapping[str, Any]) -> str:
        size = verdict.get("answer_size")
        return f"G{len(item.answer)} vs. L{'–' if size is None else size}"

    def pct(count: int) -> float:
        return 100 * count / n if n else float("nan")

    return {
        "max_value": bounds.pop() if len(bounds) == 1 else sorted(bounds, key=str),
        "n_comparisons": n,
        "n_correct": len(correct),
        "n_wrong": len(wrong),
        "accuracy": pct(len(correct)),
        "accuracy_non_empty": pct(sum(1 for i, _ in correct if i.answer)),
        "pct_nullset_correct": pct(empty_equal),
        "pct_nullset_wrong": pct(len(empty_truth) - empty_equal),
        "pct_with_made_up_vals": pct(made_up),
        "empty_set_equal_count": empty_equal,
        "empty_set_mismatch_count": len(empty_truth) - empty_equal,
        "made_up_vals_sum": made_up,
        "did_not_follow_instruction": unreadable,
        "top_mistakes": _top(Counter(label(i, v) for i, v in wrong), len(wrong)),
        "top_correct": _top(Counter(label(i, v) for i, v in correct), len(correct)),
    }


def error_table(
    items: Sequence[Any], scores: Sequence[Score], keep: Any, keys: Sequence[str]
) -> list[dict[str, Any]]:
    from lexbench.benchmarks.setlexsem.designs import paper_order

    groups: dict[tuple[Any, ...], list[tuple[Any, Mapping[str, Any]]]] = {}
    for item, score in zip(items, scores):
        if score.correct is None:
            continue
        fields = _item_fields(item)
        if keep(fields):
            groups.setdefault(tuple(fields[k] for k in keys), []).append((item, score.details))
    return [
        {**dict(zip(keys, level)), **error_row(groups[level])}
        for level in sorted(groups, key=lambda lv: tuple(paper_order(v) for v in lv))
    ]


OPERATION_PAIRS = {
    ("table15", "table17"): ("union", "intersection"),
    ("table16", "table18"): ("difference", "symmetric_difference"),
}
# Tables 17-18's columns per operation, in the paper's order.
DECEPTIVE_COLUMNS = {"random_baseline": "Words", "swapped": "Deceptive Words"}


def paper_error_tables(items: Sequence[Any], scores: Sequence[Score]) -> dict[str, dict[str, Any]]:
    """Tables 15-18 in the paper's layout (see the module docstring)."""
    from lexbench.benchmarks.setlexsem.designs import in_deceptive_design, in_main_design

    main = error_table(items, scores, in_main_design, ["operation", "token_type"])
    deceptive = error_table(
        items,
        scores,
        lambda f: in_deceptive_design(f) and f["deceptive_condition"] in DECEPTIVE_COLUMNS,
        ["operation", "deceptive_condition"],
    )
    columns = list(DECEPTIVE_COLUMNS)
    deceptive.sort(
        key=lambda r: (OPERATIONS.index(r["operation"]), columns.index(r["deceptive_condition"]))
    )
    tables: dict[str, dict[str, Any]] = {}
    for (words_table, deceptive_table), operations in OPERATION_PAIRS.items():
        names = " and ".join(o.replace("_", " ") for o in operations)
        tables[words_table] = {
            "title": f"Table {words_table[5:]}: error analysis of numbers and words, {names}",
            "keys": ["token_type", "operation"],
            "rows": [r for r in main if r["operation"] in operations],
            "max_value_row": True,
            "note": "main design",
        }
        tables[deceptive_table] = {
            "title": f"Table {deceptive_table[5:]}: error analysis of words and deceptive "
            f"words, {names}",
            "keys": ["deceptive_condition", "operation"],
            "rows": [r for r in deceptive if r["operation"] in operations],
            "labels": {"deceptive_condition": DECEPTIVE_COLUMNS},
            "headers": {"deceptive_condition": "token type"},
            "note": "deceptive design: Words = the random baseline, Deceptive Words = the "
            "swapped condition",
        }
    return {name: table for name, table in sorted(tables.items()) if table["rows"]}


def lexbench_error_tables(
    items: Sequence[Any], scores: Sequence[Score]
) -> dict[str, dict[str, Any]]:
    """lexbench's: the error analysis of every deceptive condition, not swapped included."""
    from lexbench.benchmarks.setlexsem.designs import in_deceptive_design

    rows = error_table(items, scores, in_deceptive_design, ["deceptive_condition", "operation"])
    table = {
        "title": "lexbench: error analysis of the deceptive study by condition and operation",
        "keys": ["deceptive_condition", "operation"],
        "rows": rows,
        "note": "deceptive design, all three conditions",
    }
    return {"deceptive_by_condition": table} if rows else {}


def deceptive_examples(items: Sequence[Any], scores: Sequence[Score]) -> list[dict[str, Any]]:
    """Table 19: per set operation, the first right and the first wrong answer on a
    deceptive set (not swapped or swapped), with the sets, the truth and the answer."""
    from lexbench.benchmarks.setlexsem.designs import in_deceptive_design, paper_order

    chosen: dict[tuple[str, bool], dict[str, Any]] = {}
    for item, score in zip(items, scores):
        fields = _item_fields(item)
        if (
            score.correct is None
            or not in_deceptive_design(fields)
            or item.deceptive_condition == "random_baseline"
        ):
            continue
        key = (item.operation, bool(score.correct))
        if key not in chosen:
            answer = score.details.get("parsed_answer")
            chosen[key] = {
                "operation": item.operation,
                "condition": item.deceptive_condition,
                "set_a": list(item.set_a),
                "set_b": list(item.set_b),
                "ground_truth": list(item.answer),
                "answer": answer,
                "answer_text": score.details.get("answer_text"),
                "correct": bool(score.correct),
            }
    return [chosen[key] for key in sorted(chosen, key=lambda k: (paper_order(k[0]), not k[1]))]
