"""The papers' rows on the Results page, from the record (see results_published.py).

The comparable headline rows stand in one table with the page's runs ("this page") above
them and each published row marked "published, not re-run", with its N, its Wilson 95%
interval where the paper gives N, and the unpaired p-value of each run against it; then
what the runs' comparability is read with ("n=449 of 449"), the other comparable tables,
and the tables not comparable, each difference named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from results_render import NONE, _interval, _number, _p, table

MARK = "*published, not re-run*"


def _in_unit(value: float | None, scale: str) -> str:
    """A run's number as the paper's column prints it: percent or a fraction."""
    return _number(value, "accuracy" if scale == "percent" else "fraction")


def _printed(value: str, scale: str) -> str:
    return value.rstrip("%").strip() if scale == "percent" else value


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _tags_as_code(text: str) -> str:
    """A tag in the papers' or the runs' words (`</answer>`) as code: bare, the browser
    takes it for HTML and the reader sees `[""]`."""
    return re.sub(r"(?<!`)(<[^<>\s`]+>)(?!`)", r"`\1`", text)


def published_lines(published: dict[str, Any], cells: Sequence[dict[str, Any]]) -> list[str]:
    if not published:
        return []
    papers = " and ".join(f"*{title}*" for title in published["papers"])
    lines = [
        f"**Beside the papers** ({papers}; the rows marked {MARK} are the paper's numbers, "
        "transcribed; lexbench did not run those models: [Published results]"
        "(published-results.md)):",
        "",
    ]
    beside = published["beside"]
    if beside:
        lines += _beside(beside, cells)
    if published["also"]:
        lines += [
            "Also comparable with these runs (shown by `lexbench report`): "
            + "; ".join(published["also"]).rstrip(".")
            + ".",
            "",
        ]
    apart = published["apart"]
    if apart:
        lines += ["Not comparable, so not set beside these runs:", ""]
        for entry in apart:
            models = ", ".join(f"`{m}`" for m in entry["models"])
            reasons = _tags_as_code(" ".join(_sentence(d) for d in entry["differences"]))
            lines.append(
                f"* {entry['table']} ({', '.join(entry['columns'])}; {entry['caption']}), "
                f"for {models}: {reasons}"
            )
        lines.append("")
    return lines


def _beside(beside: dict[str, Any], cells: Sequence[dict[str, Any]]) -> list[str]:
    scale = beside["scale"]
    runs = beside["runs"]
    by_model = {c["model"]: c for c in cells}
    tested = [m for m in runs if any(row["p"].get(m) is not None for row in beside["rows"])]
    header = ["model", "source", "N", beside["column"], "95% interval"]
    header += [f"p vs `{m}`" for m in tested]
    rows = []
    for model, run in runs.items():
        cell = by_model[model]
        same = run["value"] is not None and cell["estimate"] is not None
        same = same and abs(run["value"] - cell["estimate"]) < 1e-9
        interval = _interval(cell["low"], cell["high"], cell["metric"]) if same else NONE
        n = f"{run['n']:,}" if run["n"] else NONE
        rows.append([f"`{model}`", "this page", n, _in_unit(run["value"], scale), interval])
        rows[-1] += [""] * len(tested)
    for row in beside["rows"]:
        n = f"{row['n']:,}" if row["n"] else NONE
        interval = _interval(row["low"], row["high"], "accuracy")
        line = [row["model"], MARK, n, _printed(row["value"], scale), interval]
        line += [_p(row["p"].get(m)) for m in tested]
        rows.append(line)
    unit = "in percent" if scale == "percent" else "as a fraction"
    notes = [
        f"`{m}`: {_tags_as_code('; '.join(run['notes']))}"
        for m, run in runs.items()
        if run["notes"]
    ]
    lines = [
        f"{beside['table']} ({beside['caption']}), column {beside['column']}: "
        f"{beside['metric']} {unit}.",
        "",
        *table(header, rows, range(2, len(header))),
        "",
        f"Comparable: each run's configuration matches the protocol of these rows: "
        f"{_tags_as_code(beside['protocol'])}",
    ]
    if notes:
        lines[-1] += " Read with: " + "; ".join(notes) + "."
    if tested:
        lines[-1] += (
            " The p-values: each run's accuracy against the row's, unpaired (two-proportion "
            "z-test, two-sided; a published row has no per-item outputs, so no paired test)."
        )
    return [*lines, ""]
