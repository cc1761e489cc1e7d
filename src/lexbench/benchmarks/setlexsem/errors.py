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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lexbench.benchmarks.setlexsem.sets import OPERATIONS

TOP = 3


class ErrorCounts:
    """The error measures' counts over a group of scored prompts: all a row needs, so a run
    keeps one per group (`error_group`), added to as answers arrive, and never the prompts.
    `labels` counts (true size, answered size, right) for the "G vs. L" columns."""

    __slots__ = (
        "correct",
        "correct_non_empty",
        "empty_equal",
        "empty_truth",
        "labels",
        "made_up",
        "n",
        "unreadable",
    )

    def __init__(self) -> None:
        self.n = self.correct = self.correct_non_empty = 0
        self.empty_truth = self.empty_equal = self.made_up = self.unreadable = 0
        self.labels: dict[tuple[int, Any, bool], int] = {}

    def add(self, truth_size: int, verdict: Mapping[str, Any]) -> None:
        """One scored prompt: the size of its true answer and its verdict (Score.details)."""
        right = bool(verdict.get("correct"))
        self.n += 1
        if right:
            self.correct += 1
            if truth_size:
                self.correct_non_empty += 1
        if not truth_size:
            self.empty_truth += 1
            if verdict.get("parsed_answer") == []:
                self.empty_equal += 1
        made_up = (
            verdict["hallucinated_count"]
            if "hallucinated_count" in verdict
            else len(verdict.get("hallucinated") or [])
        )
        self.made_up += int(made_up)
        if verdict.get("error_class") == "format_failure":
            self.unreadable += 1
        key = (truth_size, verdict.get("answer_size"), right)
        self.labels[key] = self.labels.get(key, 0) + 1

    def merge(self, other: ErrorCounts) -> None:
        self.n += other.n
        self.correct += other.correct
        self.correct_non_empty += other.correct_non_empty
        self.empty_truth += other.empty_truth
        self.empty_equal += other.empty_equal
        self.made_up += other.made_up
        self.unreadable += other.unreadable
        for key, count in other.labels.items():
            self.labels[key] = self.labels.get(key, 0) + count


def max_value(config: Mapping[str, Any]) -> Any:
    """A configuration's Max Value: -1 where the token length is fixed (the authors' code
    records no upper bound then), else its number range."""
    return -1 if config["token_length"] is not None else config["number_range"]


def _top(counter: Counter[str], total: int) -> list[list[Any]]:
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    return [[label, round(100 * count / total, 2)] for label, count in ranked] if total else []


def _labels(counts: ErrorCounts, right: bool) -> Counter[str]:
    labels: Counter[str] = Counter()
    for (truth_size, size, correct), count in counts.labels.items():
        if correct == right:
            labels[f"G{truth_size} vs. L{'–' if size is None else size}"] += count
    return labels


def error_row(counts: ErrorCounts, bounds: set[Any]) -> dict[str, Any]:
    """The paper's error measures over one group's counts; `bounds`: its Max Values."""
    n = counts.n
    wrong = n - counts.correct
    bounds = set(bounds)

    def pct(count: int) -> float:
        return 100 * count / n if n else float("nan")

    return {
        "max_value": bounds.pop() if len(bounds) == 1 else sorted(bounds, key=str),
        "n_comparisons": n,
        "n_correct": counts.correct,
        "n_wrong": wrong,
        "accuracy": pct(counts.correct),
        "accuracy_non_empty": pct(counts.correct_non_empty),
        "pct_nullset_correct": pct(counts.empty_equal),
        "pct_nullset_wrong": pct(counts.empty_truth - counts.empty_equal),
        "pct_with_made_up_vals": pct(counts.made_up),
        "empty_set_equal_count": counts.empty_equal,
        "empty_set_mismatch_count": counts.empty_truth - counts.empty_equal,
        "made_up_vals_sum": counts.made_up,
        "did_not_follow_instruction": counts.unreadable,
        "top_mistakes": _top(_labels(counts, False), wrong),
        "top_correct": _top(_labels(counts, True), counts.correct),
    }


# The error analysis counts a configuration's scored prompts in one group: its design (main
# or deceptive) and these fields; every error table is a grouping of these groups.
GROUP_FIELDS = ("operation", "token_type", "deceptive_condition")
ErrorGroups = Mapping[tuple[Any, ...], ErrorCounts]


def error_group(config: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The group a configuration's scored prompts count in; None where no error table
    shows it (a configuration outside the main and the deceptive design)."""
    from lexbench.benchmarks.setlexsem.designs import in_deceptive_design, in_main_design

    for design, within in (("main", in_main_design), ("deceptive", in_deceptive_design)):
        if within(config):
            return (design, *(config[f] for f in GROUP_FIELDS))
    return None


def error_table(
    groups: ErrorGroups,
    configs: Sequence[Mapping[str, Any]],
    design: str,
    keys: Sequence[str],
    keep: Callable[[Mapping[str, Any]], bool] = lambda fields: True,
) -> list[dict[str, Any]]:
    """Rows of `error_row` per level of `keys` over the groups of `design` that `keep`
    accepts, in the paper's order; `configs` (results.json's) give each group's Max Values.
    A group without a scored prompt has no row."""
    from lexbench.benchmarks.setlexsem.designs import paper_order

    bounds: dict[tuple[Any, ...], set[Any]] = {}
    for config in configs:
        key = error_group(config) if config["n"] else None
        if key is not None:
            bounds.setdefault(key, set()).add(max_value(config))
    rows = []
    for key, counts in groups.items():
        fields = dict(zip(GROUP_FIELDS, key[1:]))
        if key[0] == design and counts.n and keep(fields):
            rows.append({**{k: fields[k] for k in keys}, **error_row(counts, bounds[key])})
    return sorted(rows, key=lambda row: tuple(paper_order(row[k]) for k in keys))


OPERATION_PAIRS = {
    ("table15", "table17"): ("union", "intersection"),
    ("table16", "table18"): ("difference", "symmetric_difference"),
}
# Tables 17-18's columns per operation, in the paper's order.
DECEPTIVE_COLUMNS = {"random_baseline": "Words", "swapped": "Deceptive Words"}


def paper_error_tables(
    groups: ErrorGroups, configs: Sequence[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Tables 15-18 in the paper's layout (see the module docstring)."""
    main = error_table(groups, configs, "main", ["operation", "token_type"])
    deceptive = error_table(
        groups,
        configs,
        "deceptive",
        ["operation", "deceptive_condition"],
        lambda f: f["deceptive_condition"] in DECEPTIVE_COLUMNS,
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
    groups: ErrorGroups, configs: Sequence[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """lexbench's: the error analysis of every deceptive condition, not swapped included."""
    rows = error_table(groups, configs, "deceptive", ["deceptive_condition", "operation"])
    table = {
        "title": "lexbench: error analysis of the deceptive study by condition and operation",
        "keys": ["deceptive_condition", "operation"],
        "rows": rows,
        "note": "deceptive design, all three conditions",
    }
    return {"deceptive_by_condition": table} if rows else {}


def shows_examples(config: Mapping[str, Any]) -> bool:
    """Whether Table 19 takes its examples from this configuration: a deceptive set (not
    swapped or swapped) of the deceptive design."""
    from lexbench.benchmarks.setlexsem.designs import in_deceptive_design

    return in_deceptive_design(config) and config["deceptive_condition"] != "random_baseline"


def deceptive_example(item: Any, details: Mapping[str, Any], correct: bool) -> dict[str, Any]:
    """One Table 19 row: the sets, the truth and the answer of a scored prompt."""
    return {
        "operation": item.operation,
        "condition": item.deceptive_condition,
        "set_a": list(item.set_a),
        "set_b": list(item.set_b),
        "ground_truth": list(item.answer),
        "answer": details.get("parsed_answer"),
        "answer_text": details.get("answer_text"),
        "correct": correct,
    }


def deceptive_examples(chosen: Mapping[tuple[str, bool], dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 19: per set operation, the first right and the first wrong answer on a
    deceptive set (`chosen`, keyed by operation and rightness, in item order), right first."""
    from lexbench.benchmarks.setlexsem.designs import paper_order

    return [chosen[key] for key in sorted(chosen, key=lambda k: (paper_order(k[0]), not k[1]))]
