"""SetLexSem's report.md: the paper's tables first, then lexbench's own, from results.json."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.benchmarks.setlexsem.prompts import METHOD_LABELS, NARRATIVE_LABELS
from lexbench.parts import NOT_AVAILABLE, is_number, shown, with_interval

PAPER_ORDER = (
    "table3",
    "table4",
    "table5",
    "table6",
    "table7",
    "table8",
    "table9",
    "table10",
    "table11",
    "table12",
    "table13",
    "table14",
)
HEADERS = {
    "operation": "set operation",
    "m": "operand size",
    "token_type": "token type",
    "token_length": "token length",
    "deceptive_condition": "sampling",
    "k": "k shots",
    "method": "prompting method",
    "phrasing": "prompt language",
    "decile": "decile",
    "decile_scope": "decile scope",
    "overlap": "overlap",
    "model": "LLM",
}
_LEVELS = {
    "union": "Union",
    "intersection": "Intersection",
    "difference": "Difference",
    "symmetric_difference": "Symmetric difference",
    "numbers": "Numbers",
    "words": "Words",
    "not_swapped": "Deceptive, not swapped",
    "swapped": "Deceptive, swapped",
    "random_baseline": "Random Baseline",
    "formal": "Formal Language",
    "plain": "Plain Language",
    **METHOD_LABELS,
    **NARRATIVE_LABELS,
}


def pct(value: Any, digits: int = 2) -> str:
    """A proportion in percent; "n/a" where there is none (no prompt scored)."""
    return shown(value, f".{digits}f", 100)


def percent(value: Any, digits: int = 1) -> str:
    """ "41.7%" in a sentence; "n/a" (no sign) where there is none."""
    text = pct(value, digits)
    return text if text == NOT_AVAILABLE else f"{text}%"


def percent_interval(value: Any, low: Any, high: Any) -> str:
    """ "41.7% [33.1, 50.8]" in a sentence; "n/a" where nothing was scored."""
    return pooled(value, low, high).replace(" ", "% ", 1) if is_number(value) else NOT_AVAILABLE


def pooled(value: Any, low: Any, high: Any) -> str:
    """ "41.7 [33.1, 50.8]": a pooled accuracy in % with its Wilson interval; "n/a"."""
    return with_interval(value, low, high, lambda v: pct(v, 1))


def num(value: Any, digits: int = 2) -> str:
    return shown(value, f".{digits}f")


def level(value: Any, key: str) -> str:
    if value is None:
        return "undefined" if key == "token_length" else "none"
    if isinstance(value, float):
        return f"{value:g}"
    return _LEVELS.get(value, str(value)).replace("|", "\\|")


def spread_table(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> str:
    """Paper columns (mean, SD, N), then lexbench's (configurations, min, max, pooled)."""
    head = [HEADERS.get(k, k) for k in keys] + [
        "Mean %",
        "Std",
        "N (prompts)",
        "configurations",
        "min %",
        "max %",
        "pooled % [Wilson 95%]",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(keys) + "---:|" * 6 + "---|"]
    for r in rows:
        w = r["wilson"]
        lines.append(
            "| "
            + " | ".join(level(r[k], k) for k in keys)
            + f" | {pct(r['mean'])} | {pct(r['sd'])} | {r['prompts']} | "
            f"{r['configurations']} | {pct(r['min'], 1)} | {pct(r['max'], 1)} | "
            f"{pooled(r['pooled'], w['low'], w['high'])} |"
        )
    return "\n".join(lines)


def difference_table(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = ["| Decile | Mean | Std | Min | Max | N (pairs) |", "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {_ordinal(r['decile'])} | {num(r['mean'])} | {num(r['sd'])} | "
            f"{num(r['min'])} | {num(r['max'])} | {r['pairs']} |"
        )
    return "\n".join(lines)


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


ERROR_ROWS = (
    ("Accuracy", "accuracy", "pct"),
    ("Accuracy Non Empty", "accuracy_non_empty", "pct"),
    ("Pct Nullset Correct", "pct_nullset_correct", "pct"),
    ("Pct Nullset Wrong", "pct_nullset_wrong", "pct"),
    ("Pct With Made Up Vals", "pct_with_made_up_vals", "pct"),
    ("N Comparisons", "n_comparisons", "int"),
    ("N Correct", "n_correct", "int"),
    ("N Wrong", "n_wrong", "int"),
    ("Empty Set Equal Count", "empty_set_equal_count", "int"),
    ("Empty Set Mismatch Count", "empty_set_mismatch_count", "int"),
    ("Made Up Vals Sum", "made_up_vals_sum", "int"),
    ("Did Not Follow Instruction", "did_not_follow_instruction", "int"),
)


def error_table(table: Mapping[str, Any]) -> str:
    """The paper's transposed layout: one column per group, one row per measure."""
    rows, keys = table["rows"], table["keys"]
    labels, headers = table.get("labels", {}), table.get("headers", {})
    lines = [
        "| | " + " | ".join(str(i) for i in range(len(rows))) + " |",
        "|---|" + "---:|" * len(rows),
    ]
    for key in keys:
        named = labels.get(key, {})
        levels = " | ".join(named.get(r[key]) or level(r[key], key) for r in rows)
        lines.append(f"| {headers.get(key, HEADERS.get(key, key))} | {levels} |")
    if table.get("max_value_row"):
        lines.append("| Max Value | " + " | ".join(str(r["max_value"]) for r in rows) + " |")
    for label, key, kind in ERROR_ROWS:
        cells = [num(r[key]) if kind == "pct" else str(r[key]) for r in rows]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for name, key in (("Mistake", "top_mistakes"), ("Correct", "top_correct")):
        for rank in range(3):
            cells = [
                f"('{r[key][rank][0]}', {r[key][rank][1]})" if len(r[key]) > rank else "–"
                for r in rows
            ]
            lines.append(f"| Top{rank + 1} {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _members(members: Sequence[Any], limit: int = 40) -> str:
    shown = ", ".join(str(m) for m in members[:limit]) + (", …" if len(members) > limit else "")
    return "{" + shown.replace("|", "\\|") + "}"


def _section(table: Mapping[str, Any]) -> list[str]:
    if table["keys"] == ["decile"]:
        body = difference_table(table["rows"])
    else:
        body = spread_table(table["rows"], table["keys"])
    note = f"\n\n{table['note'][0].upper()}{table['note'][1:]}." if table.get("note") else ""
    return [f"### {table['title']}", "", body + note, ""]


def report_markdown(results: Mapping[str, Any], title: str = "SetLexSem") -> str:
    o = results["overall"]
    w = o["wilson"]
    parts = [
        f"# {title} — {results.get('model', '')}",
        "",
        f"Exact-set accuracy {percent_interval(o['accuracy'], w['low'], w['high'])} "
        f"over {o['prompts']} prompts in {o.get('configurations', '?')} configurations; "
        f"SD of per-configuration accuracy {pct(o.get('sd'))} (the paper's robustness "
        f"measure); mean precision {percent(o['precision'])}, recall {percent(o['recall'])}, "
        f"Jaccard {percent(o['jaccard'])}.",
        "",
    ]
    if results.get("failed_requests"):
        parts += [f"Failed requests (not scored): {results['failed_requests']}", ""]
    readings = results.get("readings")
    if readings and readings.get("items"):
        chosen = readings["parser"]
        parts += [
            f"Answers read two ways: the authors' reading (`--parser paper`) and lexbench's "
            f"lenient one (`--parser lexbench`) judge {readings['disagree']} of "
            f"{readings['items']} answers differently (right only for the paper reading: "
            f"{readings['paper_only_correct']}; right only for lexbench's: "
            f"{readings['lexbench_only_correct']}); accuracy {percent(readings['paper_accuracy'])} "
            f"and {percent(readings['lexbench_accuracy'])}. The tables use the {chosen} reading.",
            "",
        ]
    lenient = results.get("lenient")
    if lenient:
        lw = lenient["wilson"]
        parts += [
            f"Lenient reading (lexbench, secondary: the first {{...}} in the output when "
            f"the answer tag is missing): "
            f"{percent_interval(lenient['accuracy'], lw['low'], lw['high'])}; never used in a "
            f"table.",
            "",
        ]
    paper = results.get("paper_tables") or {}
    errors = results.get("paper_error_tables") or {}
    if paper or errors:
        parts += [
            "## The paper's tables",
            "",
            "Mean and Std are over per-configuration accuracies (%), N counts the prompts "
            "behind them, as in the paper; configurations, min, max and the pooled "
            "accuracy with its Wilson interval are lexbench's additions. Each table uses "
            "the configurations the paper computes it on (see its note).",
            "",
        ]
        for name in PAPER_ORDER:
            if name in paper:
                parts += _section(paper[name])
        for table in errors.values():
            parts += [
                f"### {table['title']}",
                "",
                error_table(table),
                "",
                f"{table['note'][0].upper()}{table['note'][1:]}. G: true answer size, L: "
                f"answered size (L–: unreadable). Pct With Made Up Vals is made-up members "
                f"per 100 prompts, as the authors compute it.",
                "",
            ]
    examples = results.get("table19_examples") or []
    if examples:
        parts += [
            "### Table 19: examples of sets of deceptive words",
            "",
            "| operation | condition | set A | set B | ground truth | LLM | correct? |",
            "|---|---|---|---|---|---|---|",
        ]
        parts += [
            f"| {level(e['operation'], 'operation')} | "
            f"{level(e['condition'], 'deceptive_condition')} | {_members(e['set_a'])} | "
            f"{_members(e['set_b'])} | {_members(e['ground_truth'])} | "
            f"{'(unreadable)' if e['answer'] is None else _members(e['answer'])} | "
            f"{e['correct']} |"
            for e in examples
        ]
        parts.append("")
    extra = results.get("lexbench_tables") or {}
    extra_errors = results.get("lexbench_error_tables") or {}
    if extra or extra_errors:
        parts += ["## lexbench's tables (outside the paper)", ""]
        for table in extra.values():
            parts += _section(table)
        for table in extra_errors.values():
            parts += [f"### {table['title']}", "", error_table(table), ""]
    classes = ", ".join(f"{k} {v}" for k, v in results["error_classes"].items())
    parts += [f"Error classes: {classes}", ""]
    run = results.get("run")
    if run:
        parts += [
            f"Requests: {run['requests']} ({run['cached']} from cache, {run['sent']} sent, "
            f"{run['failed']} failed) in {run['seconds']:.1f}s",
            "",
        ]
    return "\n".join(parts)
