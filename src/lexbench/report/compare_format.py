"""A comparison written out: number formats, Markdown, LaTeX, CSV and plain-text tables of the
leaderboard and of the pairwise tests."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.parts import NOT_AVAILABLE, fmt, interval_text, is_number, pct
from lexbench.report.compare import Comparison
from lexbench.stats import Interval


def format_pct(x: float) -> str:
    """A proportion in percent, one decimal (docs/comparing-and-reporting.md: units)."""
    return pct(x)


def format_num(x: float) -> str:
    """A mean score (MRR, graded credit) as a fraction, three decimals."""
    return fmt(x)


def _p(x: float) -> str:
    return NOT_AVAILABLE if not is_number(x) else ("<0.0001" if x < 1e-4 else f"{x:.4f}")


def format_ci(interval: Interval, fmt: Any, proportion: bool = False) -> str:
    """`[low, high]`; a proportion's bounds (an accuracy, a mean of values in [0, 1]) are
    clipped to [0, 1], where the estimand lives. A difference's are not. "n/a" where the
    interval has no bounds (no item to resample)."""
    low, high = interval.low, interval.high
    if proportion and is_number(low) and is_number(high):
        low, high = max(0.0, low), min(1.0, high)
    return interval_text(low, high, fmt)


def data_value(value: Any) -> Any:
    """A value for a machine-read file: numbers as they are, "n/a" for a float that is not
    one (NaN, ±inf), so no file a person opens shows "nan" (CSV readers such as pandas
    read "n/a" back as missing)."""
    return NOT_AVAILABLE if isinstance(value, float) and not is_number(value) else value


def json_value(value: Any) -> Any:
    """`value` with every NaN and ±inf as null: strict JSON (`json.loads` elsewhere, `jq`)."""
    if isinstance(value, float) and not is_number(value):
        return None
    if isinstance(value, Mapping):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return value


def json_text(record: Mapping[str, Any]) -> str:
    """`record` as strict JSON, keys sorted: null where there is no number."""
    return json.dumps(json_value(record), indent=2, sort_keys=True) + "\n"


def to_json(comparison: Comparison) -> str:
    """The comparison as strict JSON: null where there is no number."""
    return json_text(comparison.to_dict())


def leaderboard_rows(comparison: Comparison) -> list[dict[str, str]]:
    """Formatted leaderboard cells (accuracy in %, the graded score, e.g. MRR, a fraction)."""
    rows = []
    for s in comparison.leaderboard:
        row = {
            "rank": str(s.rank),
            "run": s.label,
            "items": str(s.items),
            "scored": str(s.scored),
            "accuracy %": format_pct(s.accuracy.estimate),
            "Wilson 95%": format_ci(s.accuracy, format_pct, proportion=True),
        }
        if s.score is not None:
            row.update(
                {
                    comparison.value_name: format_num(s.score.estimate),
                    "bootstrap 95%": format_ci(s.score, format_num, proportion=True),
                }
            )
        rows.append(row)
    return rows


def comparison_rows(comparison: Comparison) -> list[dict[str, str]]:
    """Formatted pairwise cells; accuracy differences in percentage points."""
    rows = []
    for c in comparison.pairs:
        fmt = format_pct if c.metric == "accuracy" else format_num
        rows.append(
            {
                "A": c.a,
                "B": c.b,
                "metric": comparison.value_name if c.metric == "score" else c.metric,
                "items": str(c.used),
                "A mean": fmt(c.mean_a),
                "B mean": fmt(c.mean_b),
                "A − B": fmt(c.difference.estimate),
                "95% CI (paired bootstrap)": format_ci(c.difference, fmt),
                "only A right": "" if c.only_a is None else str(c.only_a),
                "only B right": "" if c.only_b is None else str(c.only_b),
                "test": c.test,
                "p": _p(c.p_value),
                "p (Holm)": _p(c.p_holm),
            }
        )
    return rows


def markdown_table(rows: Sequence[Mapping[str, str]]) -> str:
    if not rows:
        return "(none)"
    header = list(rows[0])
    numeric = {k for k in header if all(_looks_numeric(r.get(k, "")) for r in rows)}
    out = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" if k in numeric else "---" for k in header) + "|",
    ]
    for row in rows:
        out.append("| " + " | ".join(row.get(k, "").replace("|", "\\|") for k in header) + " |")
    return "\n".join(out)


def _looks_numeric(text: str) -> bool:
    try:
        float(text.lstrip("<"))
        return True
    except ValueError:
        return text == ""


def to_markdown(comparison: Comparison, heading_level: int = 2, leaderboard: bool = True) -> str:
    """The comparison as Markdown: its runs' table (unless `leaderboard` is false: a plan
    prints one leaderboard over all its runs already), then the paired comparisons."""
    h = "#" * heading_level
    metric_note = (
        f"accuracy: exact McNemar; {comparison.value_name}: paired permutation test, "
        f"{comparison.resamples} resamples"
        if "score" in comparison.metrics
        else "accuracy: exact McNemar"
    )
    if comparison.paper_tests:
        metric_note += "; beside them, the paper's: " + "; ".join(comparison.paper_tests)
    warned = [f"**Warning:** {w}." for w in comparison.warnings]
    return "\n".join(
        [
            *warned,
            *([""] if warned else []),
            *(
                [
                    f"{h} Leaderboard ({comparison.benchmark})",
                    "",
                    markdown_table(leaderboard_rows(comparison)),
                    "",
                ]
                if leaderboard
                else []
            ),
            f"{h} Paired comparisons" + ("" if leaderboard else f" ({comparison.benchmark})"),
            "",
            f"On the items both runs scored (matched by id and question). Tests: {metric_note}; differences "
            f"with paired bootstrap 95% intervals ({comparison.resamples} resamples, seed "
            f"{comparison.seed}); accuracy in percentage points; Holm-adjusted p per metric "
            "and per test family (lexbench's paired tests; each paper's own).",
            "",
            markdown_table(comparison_rows(comparison)),
            "",
        ]
    )


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "−": "--",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex_table(rows: Sequence[Mapping[str, str]], caption: str) -> str:
    if not rows:
        return f"% {latex_escape(caption)}: no rows"
    header = list(rows[0])
    numeric = [all(_looks_numeric(r.get(k, "")) for r in rows) for k in header]
    spec = "".join("r" if n else "l" for n in numeric)
    lines = [
        r"\begin{table}[ht]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(latex_escape(k) for k in header) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_escape(r.get(k, "")) for k in header) + r" \\" for r in rows]
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        r"\end{table}",
    ]
    return "\n".join(lines)


def to_latex(comparison: Comparison) -> str:
    """Two booktabs tables (needs \\usepackage{booktabs})."""
    return (
        "\n\n".join(
            [
                "% lexbench compare: requires \\usepackage{booktabs}",
                *(f"% WARNING: {w}." for w in comparison.warnings),
                _latex_table(
                    leaderboard_rows(comparison),
                    f"Leaderboard ({comparison.benchmark}); 95% intervals.",
                ),
                _latex_table(
                    comparison_rows(comparison),
                    "Paired comparisons on shared items: exact McNemar for accuracy, paired "
                    "permutation test for graded scores; paired bootstrap 95% intervals of "
                    "the difference; Holm-adjusted p per metric and test family"
                    + "".join(f"; the paper's {t}" for t in comparison.paper_tests)
                    + ".",
                ),
            ]
        )
        + "\n"
    )


def _csv(rows: Sequence[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: data_value(v) for k, v in row.items()} for row in rows)
    return buffer.getvalue()


def comparisons_csv(comparison: Comparison) -> str:
    """Full-precision numbers, one row per paired comparison."""
    rows = [
        {
            "benchmark": comparison.benchmark,
            "a": c.a,
            "b": c.b,
            "metric": c.metric,
            "shared": c.shared,
            "used": c.used,
            "mean_a": c.mean_a,
            "mean_b": c.mean_b,
            "difference": c.difference.estimate,
            "difference_low": c.difference.low,
            "difference_high": c.difference.high,
            "only_a": "" if c.only_a is None else c.only_a,
            "only_b": "" if c.only_b is None else c.only_b,
            "test": c.test,
            "family": c.family,
            "statistic": c.statistic,
            "p_value": c.p_value,
            "p_holm": c.p_holm,
        }
        for c in comparison.pairs
    ]
    return _csv(rows)


def leaderboard_csv(comparison: Comparison) -> str:
    rows = []
    for s in comparison.leaderboard:
        row: dict[str, Any] = {
            "benchmark": comparison.benchmark,
            "rank": s.rank,
            "run": s.label,
            "path": s.path,
            "items": s.items,
            "scored": s.scored,
            "accuracy": s.accuracy.estimate,
            "accuracy_low": s.accuracy.low,
            "accuracy_high": s.accuracy.high,
        }
        if s.score is not None:
            row.update(
                {"score": s.score.estimate, "score_low": s.score.low, "score_high": s.score.high}
            )
        rows.append(row)
    return _csv(rows)


def to_text(comparison: Comparison) -> str:
    """A plain aligned table for the terminal."""

    def table(rows: Sequence[Mapping[str, str]]) -> str:
        if not rows:
            return "(none)"
        header = list(rows[0])
        widths = {k: max(len(k), *(len(r.get(k, "")) for r in rows)) for k in header}
        lines = ["  ".join(k.ljust(widths[k]) for k in header)]
        lines += ["  ".join(r.get(k, "").ljust(widths[k]) for k in header) for r in rows]
        return "\n".join(lines)

    warned = "".join(f"WARNING: {w}.\n" for w in comparison.warnings)
    papers = "".join(
        f"Paper's test: {t}; Holm within its own family.\n" for t in comparison.paper_tests
    )
    return (
        f"{warned}{chr(10) if warned else ''}"
        f"Leaderboard ({comparison.benchmark})\n{table(leaderboard_rows(comparison))}\n\n"
        f"Paired comparisons (shared items; accuracy in percentage points)\n"
        f"{papers}{table(comparison_rows(comparison))}\n"
    )
