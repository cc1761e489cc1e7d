"""Every published row lexbench ships is found verbatim in its paper's text copy
(`../shared/papers`, as the tests read `../shared/data`): the value, and the whole printed
row (its label and every cell) inside the region of the table it claims, under the headers
its columns claim; the caption after "Table N:"; the N where the paper prints it.

A transcription slip (a digit, a swapped column, a row moved to another table) fails here,
naming the row.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from lexbench import plugins
from lexbench.published import PublishedRow

PAPERS = Path(__file__).resolve().parents[2].parent / "shared" / "papers"

#: The text copy of each shipping benchmark's paper, and how its tables are laid out there:
#: the cell separator ("html" for <table> markup) and where the caption sits.
LAYOUT = {
    "lambda_": ("000_a613a5b60e2cd59d.txt", "\t", "above"),
    "scan": ("001_239f5576e4aa6b04.txt", " ", "below"),
    "setlexsem": ("003_830ff1265c15bd19.txt", " ", "above"),
    "ekar": ("004_265da98a3f2b9b0c.txt", "html", "below"),
}


def normalise(text: str) -> str:
    """LaTeX bits of the text copies as printed symbols, whitespace collapsed."""
    text = text.replace("\\pm ", "±").replace("\\pm", "±").replace("\\Delta", "Δ")
    text = text.replace("$", "").replace("**", "")
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))


def paper_text(folder: str) -> str:
    path = PAPERS / LAYOUT[folder][0]
    if not path.is_file():
        pytest.skip(f"{path} not present")
    return path.read_text(encoding="utf-8")


def shipped_rows() -> dict[str, list[PublishedRow]]:
    """The rows of every built-in benchmark, by its folder name."""
    plugins.reset()
    rows: dict[str, list[PublishedRow]] = defaultdict(list)
    for spec in plugins.benchmarks():
        if spec.published is not None and spec.source == "built-in":
            for row in spec.published():
                rows[Path(row.paper.source).parent.name].append(row)
    return rows


ROWS = shipped_rows()


def test_every_paper_ships_rows():
    assert set(ROWS) == set(LAYOUT)
    counts = {folder: len(rows) for folder, rows in ROWS.items()}
    # LAMBDA Table 1: 9 rows x 4 columns; SCAN Tables 2-4; SetLexSem Tables 3-14 (Table 7's
    # 1st decile has no number); E-KAR Table 2 (with the human row) and Table 3 (no N/A).
    assert counts == {"lambda_": 36, "scan": 40, "setlexsem": 108, "ekar": 129}


def caption_line(lines: list[str], table: str) -> int:
    found = [i for i, line in enumerate(lines) if line.startswith(f"{table}:")]
    assert len(found) == 1, f"{table}: {len(found)} caption lines"
    return found[0]


def text_region(lines: list[str], table: str, where: str) -> list[str]:
    """The lines of a plain-text table: after its caption up to the next heading, caption
    or figure; or the block of non-blank lines just above it."""
    at = caption_line(lines, table)
    if where == "above":
        region = []
        for line in lines[at + 1 :]:
            if line.startswith(("Table ", "Refer to caption", "#")):
                break
            region.append(line)
        return region
    start = at - 1
    while not lines[start].strip():
        start -= 1
    end = start + 1
    while lines[start - 1].strip():
        start -= 1
    return lines[start:end]


def strip_tags(cell: str) -> str:
    return re.sub(r"<[^>]+>", "", cell).strip()


def html_region(text: str, table: str) -> str:
    """The <table> markup just above the caption "Table N:"."""
    at = text.index(f"{table}:")
    return text[text.rindex("<table", 0, at) : at]


def html_rows(block: str) -> list[tuple[list[str], list[int]]]:
    """Each <tr>'s cells (tags stripped) and their column spans."""
    out = []
    for tr in re.findall(r"<tr>(.*?)</tr>", block, re.S):
        cells = re.findall(r"<t[dh]([^>]*)>(.*?)</t[dh]>", tr, re.S)
        spans = [
            int(m.group(1)) if (m := re.search(r'colspan="(\d+)"', a)) else 1 for a, _ in cells
        ]
        out.append(([strip_tags(c) for _, c in cells], spans))
    return out


def html_leaf_headers(block: str) -> list[str]:
    """The header cells under which values sit: a two-row <thead> merged (a spanning header
    gives way to the cells of the second row)."""
    head = re.search(r"<thead>(.*?)</thead>", block, re.S)
    assert head is not None
    rows = html_rows(head.group(1))
    first, spans = rows[0]
    second = iter(rows[1][0]) if len(rows) > 1 else iter(())
    leaves = []
    for cell, span in zip(first, spans):
        leaves += [next(second) for _ in range(span)] if span > 1 else [cell]
    return leaves[1:]  # the label column's header is apart


def check_row(row: PublishedRow, text: str, separator: str, where: str) -> None:
    name = f"{row.table} row {row.label!r} column {row.column!r}"
    assert row.value in text, f"{name}: {row.value!r} is not in the paper's text"
    cell = row.cells[row.cell]
    assert row.value in (cell.split("/") if "/" in cell and "(" not in cell else [cell]), (
        f"{name}: {row.value!r} is not the printed cell {cell!r}"
    )
    if separator == "html":
        block = html_region(text, row.table)
        printed = {tuple(cells): spans for cells, spans in html_rows(block)}
        key = (row.label, *row.cells)
        assert key in printed, f"{name}: the printed <tr> {list(key)} is not in {row.table}"
        leaves = html_leaf_headers(block)
        spanned, index = [], 0
        for span in printed[key][1:]:
            spanned.append("/".join(leaves[index : index + span]))
            index += span
        assert list(row.header) == spanned, f"{name}: headers {row.header} vs {spanned}"
    else:
        region = text_region(text.splitlines(), row.table, where)
        line = separator.join([row.label, *row.cells])
        assert line in region, f"{name}: the printed line {line!r} is not in {row.table}"
        header = separator.join([row.header_label, *row.header]).strip()
        assert header in [r.strip() for r in region], f"{name}: no header line {header!r}"


@pytest.mark.parametrize("folder", sorted(LAYOUT))
def test_every_row_is_printed_in_its_table(folder):
    text = paper_text(folder)
    _, separator, where = LAYOUT[folder]
    failures = []
    for row in ROWS[folder]:
        try:
            check_row(row, text, separator, where)
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("folder", sorted(LAYOUT))
def test_captions_titles_and_ns_are_the_papers(folder):
    text = paper_text(folder)
    flat = normalise(text)
    readme = normalise((PAPERS / "README.md").read_text(encoding="utf-8"))
    for row in ROWS[folder]:
        at = flat.index(f"{row.table}:")
        caption = normalise(row.caption)
        assert flat[at:].startswith(f"{row.table}: {caption}"), f"{row.table}: {caption!r}"
        if row.interval:
            assert row.interval.split(" (")[0] in caption, row.interval
        title = normalise(row.paper.title)
        assert title.lower() in (flat + readme).lower(), f"title {title!r} is not the paper's"
        if row.n is not None:
            assert f"{row.n:,}" in text or str(row.n) in text, f"{row.table}: N {row.n}"


def test_a_changed_digit_is_caught():
    """The check fails on a slip: one digit of LAMBDA's Maverick row changed."""
    from dataclasses import replace

    text = paper_text("lambda_")
    row = next(r for r in ROWS["lambda_"] if r.label.startswith("Llama-4 Maverick"))
    slipped = replace(row, value="46.9%", cells=(row.cells[0], "46.9%", *row.cells[2:]))
    with pytest.raises(AssertionError, match="printed line"):
        check_row(slipped, text, "\t", "above")
    moved = replace(row, table="Table 2")  # the right line claimed for another table
    with pytest.raises(AssertionError):
        check_row(moved, text, "\t", "above")
