"""The papers' published rows beside the Results page's runs of one condition (issue 44).

Built on `lexbench.report.published.published_for_run`, which says for every published row
of a run's benchmark whether the run was measured the paper's way (comparable, with notes
such as "n=30 of 3,000") or not (each difference named), the run's own number for the same
cell and, for an accuracy with N, the unpaired two-proportion test. The page shows:

* `beside`: the headline column's comparable rows (each paper's first comparable table
  where no column is the headline, as SetLexSem's Table 3), every row with its printed
  value, N and Wilson 95% interval where the paper gives N, each run's own number, notes
  and the unpaired p-value against the row;
* `also`: the other tables and columns that are comparable (`lexbench report` shows them);
* `apart`: each table no run of the condition is comparable with, with the differences
  named, for the runs they apply to.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from results_summary import finite, model_key


def _wilson(row: Any) -> tuple[float | None, float | None]:
    from lexbench.stats import wilson_interval

    if row.metric != "accuracy" or row.count is None or not row.n:
        return None, None
    interval = wilson_interval(min(max(row.count, 0), row.n), row.n)
    return finite(interval.low), finite(interval.high)


def _p_value(beside: Any) -> float | None:
    """The unpaired test's p-value of a run against a row (None where there is no test)."""
    test = beside.test
    return None if test is None else finite(test.p_value)


def _chosen(grid: dict[str, list[Any]]) -> list[int]:
    """The rows shown beside the runs: comparable with one run at least, in the headline
    column, else in the first comparable table's first comparable column."""
    first = next(iter(grid.values()))
    comparable = [
        i for i in range(len(first)) if any(g[i].comparability.comparable for g in grid.values())
    ]
    heads = [i for i in comparable if first[i].row.headline]
    if heads or not comparable:
        return heads
    lead = first[comparable[0]].row
    return [
        i
        for i in comparable
        if (first[i].row.table, first[i].row.column) == (lead.table, lead.column)
    ]


def published(runs: Sequence[Any]) -> dict[str, Any]:
    """The published rows beside `runs` (one benchmark's condition); {} without any."""
    from lexbench.report.published import published_for_run

    grid = {model_key(run): published_for_run(run) for run in runs}
    first = next(iter(grid.values()), [])
    if not first:
        return {}
    chosen = _chosen(grid)
    rows = []
    for i in chosen:
        row = first[i].row
        low, high = _wilson(row)
        rows.append(
            {
                "model": row.model,
                "value": row.value,
                "estimate": finite(row.estimate),
                "n": row.n,
                "low": low,
                "high": high,
                "p": {
                    model: _p_value(besides[i])
                    for model, besides in grid.items()
                    if besides[i].comparability.comparable
                },
            }
        )
    runs_beside = {}
    if chosen:
        for model, besides in grid.items():
            b = besides[chosen[0]]
            if b.comparability.comparable:
                runs_beside[model] = {
                    "value": finite(b.run_value),
                    "n": b.run_n,
                    # N per row is the table's to say ("the paper's N is 18,800" is one row's).
                    "notes": [n for n in b.comparability.notes if "the paper's N" not in n],
                }
    lead = first[chosen[0]].row if chosen else None
    return {
        "papers": sorted({b.row.paper.title for b in first}),
        "beside": {
            "table": lead.table,
            "caption": lead.caption,
            "column": lead.column,
            "metric": lead.metric,
            "scale": lead.scale,
            "protocol": Counter(first[i].row.protocol for i in chosen).most_common(1)[0][0],
            "runs": runs_beside,
            "rows": rows,
        }
        if lead
        else None,
        "also": _also(grid, set(chosen)),
        "apart": _apart(grid),
    }


def _also(grid: dict[str, list[Any]], shown: set[int]) -> list[str]:
    """The other comparable tables and columns, in the paper's order ("Table 1: Syn, Ant")."""
    first = next(iter(grid.values()))
    columns: dict[str, list[str]] = {}
    for i, b in enumerate(first):
        if i in shown or not any(g[i].comparability.comparable for g in grid.values()):
            continue
        named = columns.setdefault(b.row.table, [])
        if b.row.column not in named:
            named.append(b.row.column)
    return [f"{table}: {', '.join(named)}" for table, named in columns.items()]


def _apart(grid: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Per table no run is comparable with in any cell: its nearest columns (those with the
    fewest differences) and the differences, with the runs they apply to."""
    first = next(iter(grid.values()))
    tables: dict[str, list[int]] = {}
    for i, b in enumerate(first):
        tables.setdefault(b.row.table, []).append(i)
    out: list[dict[str, Any]] = []
    for table, indices in tables.items():
        for model, besides in grid.items():
            cells = [besides[i] for i in indices]
            if any(b.comparability.comparable for b in cells):
                continue
            fewest = min(len(b.comparability.differences) for b in cells)
            near = [b for b in cells if len(b.comparability.differences) == fewest]
            differences = list(dict.fromkeys(d for b in near for d in b.comparability.differences))
            columns = list(dict.fromkeys(b.row.column for b in near))
            same = next(
                (e for e in out if (e["table"], e["differences"]) == (table, differences)), None
            )
            if same is not None:
                same["models"].append(model)
                same["columns"] = list(dict.fromkeys([*same["columns"], *columns]))
                continue
            out.append(
                {
                    "table": table,
                    "caption": first[indices[0]].row.caption,
                    "columns": columns,
                    "models": [model],
                    "differences": differences,
                }
            )
    return out
