"""The papers' rows written out beside a group of runs of one benchmark (Markdown).

`published_markdown(runs)` is the section the report and `lexbench compare` show: per
paper table, the rows comparable with at least one run in the paper's own layout with the
runs among them (each marked "this run", a slice "n=30 of 3,000"), every published row
marked "published, not re-run"; then the unpaired comparisons of each run's accuracy with
each published accuracy that has an N (Wilson intervals, Newcombe's interval of the
difference, two-proportion z-test); then, listed apart, what is not comparable, with each
difference named. Numbers use `lexbench.parts.fmt`/`pct` like every other report table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from lexbench.parts import NOT_AVAILABLE, LoadedRun, fmt, is_number, pct
from lexbench.parts import shown as number_text
from lexbench.published import PublishedRow
from lexbench.report.published import Beside, published_for_run

MARK = "published, not re-run"
#: A cell with no comparable number.
NONE = "—"


def _p(value: float) -> str:
    if not is_number(value):  # no test could be run: never "nan"
        return NOT_AVAILABLE
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def shown(row: PublishedRow) -> str:
    """The printed value in the table's unit, without a printed "%" (the unit is said once)."""
    return row.value.rstrip("%").strip() if row.scale == "percent" else row.value


def number(row: PublishedRow, value: float | None) -> str:
    """A run's number in the unit the paper printed the row's column in."""
    if value is None:
        return NONE
    if row.scale == "points":  # a difference of percentages, stored in points
        return f"{value:.1f}"
    return pct(value) if row.scale == "percent" else fmt(value)


def unit(row: PublishedRow) -> str:
    if row.scale == "points":
        return f"{row.metric}, in percentage points"
    return f"{row.metric} in percent" if row.scale == "percent" else f"{row.metric} as a fraction"


def sentence(text: str) -> str:
    """`text` with its first letter capitalised and a full stop ("MRR@10 ..." kept as is)."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> str:
    out = [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "|" + "|".join("---:" if i >= numeric_from else "---" for i in range(len(header))) + "|",
    ]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def paper_line(row: PublishedRow) -> str:
    paper = row.paper
    where = paper.venue + (f", arXiv {paper.arxiv}" if paper.arxiv else "")
    return f"From *{paper.title}* ({where}); {paper.transcribed}."


Grid = dict[str, list[Beside]]  # run label -> one Beside per row of the table, same order


def _tables(runs: Sequence[LoadedRun]) -> list[tuple[list[int], list[PublishedRow], Grid]]:
    """Per paper table: the indices of its rows, the rows and each run's Besides."""
    per_run = {run.label: published_for_run(run) for run in runs}
    rows = [b.row for b in next(iter(per_run.values()), [])]
    order: dict[tuple[str, str], list[int]] = {}
    for index, row in enumerate(rows):
        order.setdefault((row.paper.source, row.table), []).append(index)
    return [
        (
            indices,
            [rows[i] for i in indices],
            {k: [v[i] for i in indices] for k, v in per_run.items()},
        )
        for indices in order.values()
    ]


def _protocols(rows: Sequence[PublishedRow]) -> list[str]:
    """The protocol most rows share once; another row's only by what it adds (the human
    evaluation's), or whole, naming its rows; then the rows' notes."""
    by_text: dict[str, list[str]] = {}
    for row in rows:
        by_text.setdefault(row.protocol, []).append(row.model)
    main = max(by_text, key=lambda text: len(by_text[text]))
    lines = [f"- Protocol: {main}"]
    for text, models in by_text.items():
        named = ", ".join(dict.fromkeys(models))
        if text == main:
            continue
        if text.startswith(main):
            lines.append(f"- {named}: {text[len(main) :].strip()}")
        else:
            lines.append(f"- Protocol of {named}: {text}")
    notes = dict.fromkeys(f"- {r.model}: {r.note}" for r in rows if r.note)
    return lines + list(notes)


def _run_notes(
    rows: Sequence[PublishedRow], grid: Grid, runs: Sequence[LoadedRun], comparable: list[int]
) -> str:
    """Each run's notes once ("m: n=30 of 3,000; items drawn with seed 7"), from the headline
    cells where the table has them."""
    heads = [i for i in comparable if rows[i].headline] or comparable
    said = []
    for run in runs:
        notes: dict[str, None] = {}
        for i in heads:
            found = grid[run.label][i].comparability
            if found.comparable:
                notes.update(dict.fromkeys(found.notes))
        # "n=30 of 3,000" once; "n=8; the paper's N is 51,200" is the N column's to say.
        about_n = [n for n in notes if n.startswith("n=") and "the paper's N" not in n]
        kept = [n for n in notes if not n.startswith("n=")] + about_n[:1]
        if kept:
            said.append(f"{run.label}: {'; '.join(kept)}")
    return "; ".join(said)


def _by_label(rows: Sequence[PublishedRow]) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        grouped.setdefault(row.label, []).append(index)
    return grouped


def _per_column_values(rows: Sequence[PublishedRow], columns: Sequence[str]) -> bool:
    """True when the rows are models and a run has one number per column (LAMBDA's
    Overall/Syn/...): the run is a row of the table. False when the rows are conditions,
    each with its own number (SetLexSem's rows by operation): the run is a column."""
    models = {r.label: r.model for r in rows}
    one_path = all(len({r.run_value for r in rows if r.column == c}) <= 1 for c in columns)
    return one_path and len(set(models.values())) == len(models)


def _layout_runs_as_rows(
    rows: Sequence[PublishedRow], grid: Grid, runs: Sequence[LoadedRun], columns: Sequence[str]
) -> str:
    header = ["model", "source", "N", *columns]
    body = []
    first = {
        column: next(i for i, r in enumerate(rows) if r.column == column) for column in columns
    }
    for run in runs:
        cells = grid[run.label]
        if not any(cells[first[c]].comparability.comparable for c in columns):
            continue
        n = next((cells[first[c]].run_n for c in columns if cells[first[c]].run_n), None)
        shown_cells = [
            number(rows[first[c]], cells[first[c]].run_value)
            if cells[first[c]].comparability.comparable
            else NONE
            for c in columns
        ]
        body.append([run.label, "**this run**", f"{n:,}" if n else NONE, *shown_cells])
    for indices in _by_label(rows).values():
        by_column = {rows[i].column: rows[i] for i in indices}
        lead = next(
            (by_column[c] for c in columns if c in by_column and by_column[c].headline), None
        )
        lead = lead or next((by_column[c] for c in columns if c in by_column), rows[indices[0]])
        cells_shown = [shown(by_column[c]) if c in by_column else NONE for c in columns]
        count = f"{lead.n:,}" if lead.n else NONE
        body.append([lead.model, f"*{MARK}*", count, *cells_shown])
    return table(header, body, 2)


def _layout_runs_as_columns(
    rows: Sequence[PublishedRow], grid: Grid, runs: Sequence[LoadedRun], chosen: Sequence[int]
) -> str:
    shown_runs = [r for r in runs if any(grid[r.label][i].comparability.comparable for i in chosen)]
    sd = any(rows[i].sd for i in chosen)
    header = ["row", "model", "condition", "published (not re-run)", *(["SD"] if sd else []), "N"]
    header += [f"{r.label} (this run)" for r in shown_runs]
    body = []
    for i in chosen:
        row = rows[i]
        line = [row.label, row.model, row.condition, shown(row), *([row.sd] if sd else [])]
        line.append(f"{row.n:,}" if row.n else NONE)
        for run in shown_runs:
            b = grid[run.label][i]
            value = number(row, b.run_value) if b.comparability.comparable else NONE
            line.append(value + (f" (n={b.run_n:,})" if b.run_n and value != NONE else ""))
        body.append(line)
    return table(header, body, 3)


def _tests(rows: Sequence[PublishedRow], grid: Grid, runs: Sequence[LoadedRun]) -> str:
    heads = [i for i, r in enumerate(rows) if r.headline] or list(range(len(rows)))
    body = []
    for run in runs:
        for i in heads:
            b = grid[run.label][i]
            if b.test is None:
                continue
            t = b.test
            body.append(
                [
                    run.label,
                    f"{b.row.model} ({b.row.column})",
                    f"{pct(t.run.estimate)} [{pct(t.run.low)}, {pct(t.run.high)}]",
                    f"{b.run_n:,}" if b.run_n else NONE,
                    f"{shown(b.row)} [{pct(t.published.low)}, {pct(t.published.high)}]",
                    f"{b.row.n:,}" if b.row.n else NONE,
                    f"{pct(t.difference.estimate)} [{pct(t.difference.low)}, {pct(t.difference.high)}]",
                    number_text(t.z, ".2f"),
                    _p(t.p_value),
                ]
            )
    if not body:
        return ""
    header = ["run", "published row", "run % [Wilson 95%]", "run N", "published % [Wilson 95%]"]
    header += ["published N", "run − published, pp [Newcombe 95%]", "z", "p"]
    return "\n".join(
        [
            "Each run's accuracy against each published accuracy with its N, unpaired "
            "(two-proportion z-test, two-sided; the published count is the printed "
            "percentage times N, rounded). There are no per-item outputs of the paper's, "
            "so no paired test includes a published row.",
            "",
            table(header, body, 2),
        ]
    )


def _apart(rows: Sequence[PublishedRow], grid: Grid, runs: Sequence[LoadedRun]) -> list[str]:
    """For each run comparable with none of the table's cells, its nearest columns (those
    with the fewest differences) and the differences, named. A run comparable with some
    cells is beside the table; its other columns are other conditions, not listed."""
    lines = []
    for run in runs:
        cells = grid[run.label]
        if any(b.comparability.comparable for b in cells):
            continue
        fewest = min(len(b.comparability.differences) for b in cells)
        groups: dict[tuple[str, ...], list[str]] = {}
        for b in cells:
            if len(b.comparability.differences) == fewest:
                columns = groups.setdefault(b.comparability.differences, [])
                if b.row.column not in columns:
                    columns.append(b.row.column)
        for differences, columns in groups.items():
            reason = " ".join(sentence(d) for d in differences)
            lines.append(
                f"- {rows[0].table} ({', '.join(columns)}), not comparable with "
                f"{run.label}: {reason}"
            )
    return lines


def published_markdown(runs: Sequence[LoadedRun], level: int = 3) -> str:
    """The published rows beside `runs` (one benchmark's), or "" where its paper ships none."""
    if not runs:
        return ""
    h = "#" * level
    parts: list[str] = []
    apart: list[str] = []
    papers: dict[str, str] = {}
    for _, rows, grid in _tables(runs):
        papers.setdefault(rows[0].paper.source, paper_line(rows[0]))
        caption = f"{rows[0].table}: {rows[0].caption}"
        comparable = [
            i for i in range(len(rows)) if any(g[i].comparability.comparable for g in grid.values())
        ]
        lines = _apart(rows, grid, runs)
        if comparable:
            columns = list(dict.fromkeys(rows[i].column for i in comparable))
            chosen_rows = [r for r in rows if r.column in columns]
            if _per_column_values(chosen_rows, columns):
                layout = _layout_runs_as_rows(rows, grid, runs, columns)
            else:
                layout = _layout_runs_as_columns(rows, grid, runs, list(range(len(rows))))
            notes = _run_notes(rows, grid, runs, comparable)
            parts += [f"{h}# {caption}", "", layout, "", sentence(unit(rows[0]))]
            parts += [f"Read with: {notes}."] if notes else []
            parts += ["", *_protocols(rows), ""]
            tests = _tests(rows, grid, runs)
            parts += [tests, ""] if tests else []
            apart += lines
        else:
            apart += [*lines, ""]
            columns = list(dict.fromkeys(r.column for r in rows))
            apart += [f"{h}# {caption}", "", _layout_runs_as_rows(rows, grid, [], columns)]
            apart += ["", sentence(unit(rows[0])), "", *_protocols(rows), ""]
    if not parts and not apart:
        return ""
    head = [f"{h} Published results (not re-run)", "", *papers.values(), ""]
    head += [
        'Rows marked "published, not re-run" are the paper\'s numbers, transcribed; '
        "lexbench did not run those models. They stand beside a run only where its "
        "configuration matches the paper's protocol (docs/published-results.md).",
        "",
    ]
    if apart:
        parts += [f"{h}# Listed apart: the protocol differs", "", *apart]
    return "\n".join(head + parts).rstrip() + "\n"


def group_markdown(
    groups: Mapping[str, Sequence[LoadedRun]], render: Callable[..., str] = published_markdown
) -> dict[str, str]:
    """`published_markdown` per benchmark group (empty sections left out)."""
    return {name: text for name, runs in groups.items() if (text := render(runs))}
