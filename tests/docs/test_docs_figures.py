"""Every figure the README and docs/ quote is the one its measurement recorded.

measurements/figures.toml lists each quoted figure: the page, where on it (`after`: the text
just before the figure; or `row` and `column`: a table cell), the record
(measurements/records/<record>.json, written by measurements/<folder>/<record>.py) and the field
of its results, and how the page writes it (`format`). The figure stays plain text on the page.
A page that says other than its record fails here: re-measure (`python
measurements/measure_all.py --only NAME`) and bring the page in line, or put the page back.

A record measured on other code than the work tree's is stale (its `source_digest`); so is
one "carried from docs, to re-measure". Stale records are listed (skipped) here and fail
with LEXBENCH_REQUIRE_FRESH_FIGURES=1, which a release check sets after measure_all.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import string
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
FIGURES = REPO / "measurements" / "figures.toml"
sys.path.insert(0, str(FIGURES.parent))  # measure_all.py and recording.py
from measure_all import MEASUREMENTS  # noqa: E402
from recording import CARRIED, MEASURED, RECORDS, script_path, source_digest  # noqa: E402

#: How a page writes a figure its record does not hold yet (a record carried from the docs
#: where they gave none): a table cell's dash, explained beside the table.
NOT_MEASURED = "—"
#: Pages where every time or memory figure must be one of figures.toml's (elsewhere only the
#: listed figures are checked).
FULLY_RECORDED = ("README.md", "docs/getting-started.md")
#: A time or memory figure as prose writes it: "78 s", "2 min 14 s", "6 CPU-min", "187 MB".
TIME_OR_MEMORY = re.compile(
    r"\b\d[\d,]*(?:\.\d+)?(?:[-–]\d[\d,]*(?:\.\d+)?)? ?"
    r"(?:CPU-(?:s|min)|min(?: \d+ s)?|ms|µs|s|MB|GB|MiB|GiB)(?![\w-])"
)


class _Formatter(string.Formatter):
    """str.format, plus "P": a fraction as a percentage without the sign ("{:.1P}" of
    0.0333 is "3.3"), for intervals written "[3.3, 8.5]"; "dur": seconds as a duration."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "dur":
            return duration(value)
        if format_spec.endswith("P"):
            return format(100 * value, format_spec[:-1] + "f")
        return super().format_field(value, format_spec)


FORMATTER = _Formatter()


@dataclass(frozen=True)
class Figure:
    page: str
    record: str
    field: str | list[str]  # several fields for one format: "{0} s and {1} MB"
    format: str
    after: str = ""
    row: str = ""
    column: int = 0
    divide: float = 1.0

    @property
    def name(self) -> str:
        where = self.after or f"{self.row} col {self.column}"
        return f"{self.page}: {where.strip()[:50]}"


@dataclass(frozen=True)
class RenderedPage:
    """A page made whole from its record by a script's renderer (`module:function`, a
    script's name under measurements/<folder>/): every figure on it is the record's."""

    page: str
    record: str
    render: str


def figures() -> list[Figure]:
    listed = tomllib.loads(FIGURES.read_text(encoding="utf-8"))
    return [Figure(**entry) for entry in listed["figure"]]


def rendered_pages() -> list[RenderedPage]:
    listed = tomllib.loads(FIGURES.read_text(encoding="utf-8"))
    return [RenderedPage(**entry) for entry in listed.get("page", [])]


def rendered(page: RenderedPage) -> str:
    """The page as its renderer makes it from its record."""
    module, _, function = page.render.partition(":")
    folder = str(script_path(module).parent)  # the renderer imports its siblings by name
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return str(getattr(importlib.import_module(module), function)(record(page.record)))


def first_difference(found: str, expected: str) -> str:
    """Where two pages part, as one line each."""
    for number, (a, b) in enumerate(zip(found.splitlines(), expected.splitlines()), start=1):
        if a != b:
            return f"line {number}: the page says {a[:160]!r}, its record {b[:160]!r}"
    return f"the page has {len(found.splitlines())} lines, its record {len(expected.splitlines())}"


def record(name: str) -> dict[str, Any]:
    return json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))


def duration(seconds: float) -> str:
    """As the docs write a duration: "1 min 34 s", "28 s" (quick_checks.duration)."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def recorded(figure: Figure) -> str:
    """The figure as the page should write it, from its record."""
    values: list[Any] = []
    for field in [figure.field] if isinstance(figure.field, str) else figure.field:
        value: Any = record(figure.record)["results"]
        for key in field.split("."):
            if not isinstance(value, dict) or key not in value:
                raise KeyError(f"{figure.record}.json has no results.{field}")
            value = value[key]
        values += value if isinstance(value, list) else [value]
    if any(v is None for v in values):
        return NOT_MEASURED
    if figure.divide != 1:
        values = [v / figure.divide for v in values]
    if figure.format == "duration":
        return "–".join(duration(v) for v in values)
    return FORMATTER.format(figure.format, *values)


def quoted(figure: Figure, text: str) -> str:
    """What the page says where the figure stands ('' where the place is not found)."""
    if figure.row:
        rows = [line for line in text.splitlines() if line.startswith(figure.row)]
        assert len(rows) == 1, f"{figure.page}: {len(rows)} table rows start with {figure.row!r}"
        cells = [cell.strip() for cell in rows[0].strip().strip("|").split("|")]
        return cells[figure.column - 1] if figure.column <= len(cells) else ""
    flat = " ".join(text.split())  # a sentence may wrap anywhere
    after = " ".join(figure.after.split())
    assert flat.count(after) == 1, f"{figure.page}: {flat.count(after)} places read {after!r}"
    return flat[flat.index(after) + len(after) :].lstrip()


@pytest.mark.parametrize("figure", figures(), ids=lambda figure: figure.name)
def test_a_quoted_figure_is_the_recorded_one(figure: Figure) -> None:
    text = (REPO / figure.page).read_text(encoding="utf-8")
    expected = recorded(figure)
    found = quoted(figure, text)
    said = found if figure.row else found[: len(expected) + 12]
    agrees = found == expected if figure.row else found.startswith(expected)
    assert agrees, (
        f"{figure.page} says {said!r} where {figure.record}.json's {figure.field} is "
        f"{expected!r} ({record(figure.record)['status']}): re-measure with `python "
        f"measurements/measure_all.py --only {figure.record}` or mend the page"
    )


def disagreement(page: RenderedPage, text: str) -> str:
    """Where `text` (the page as it stands) is not its record rendered; "" where it is."""
    expected = rendered(page)
    if text == expected:
        return ""
    return (
        f"{page.page} is not {page.record}.json rendered by {page.render}: "
        f"{first_difference(text, expected)} "
        "(python measurements/studies/results_page.py --page-only)"
    )


@pytest.mark.parametrize("page", rendered_pages(), ids=lambda page: page.page)
def test_a_page_made_from_its_record_is_that_record_rendered(page: RenderedPage) -> None:
    """docs/results.md: every number, interval, example answer and published row on it is
    its record's, laid out by its script."""
    found = disagreement(page, (REPO / page.page).read_text(encoding="utf-8"))
    assert not found, found


def test_a_changed_figure_on_a_rendered_page_is_caught() -> None:
    """The check above on the page with one number of a table edited."""
    page = rendered_pages()[0]
    text = rendered(page)
    assert not disagreement(page, text)
    match = re.search(r"\| \d+\.\d \|", text)
    assert match is not None, "no table cell with a decimal number on the page"
    drifted = text.replace(match.group(), match.group().replace(".", "1.", 1), 1)
    assert "line" in disagreement(page, drifted)


def test_a_changed_figure_is_caught() -> None:
    """The check above on a page whose figure was edited, as a reader's copy would drift."""
    figure = next(f for f in figures() if f.after)
    text = (REPO / figure.page).read_text(encoding="utf-8")
    expected = recorded(figure)
    assert quoted(figure, text).startswith(expected)
    anchor = " ".join(figure.after.split())
    drifted = " ".join(text.split()).replace(anchor, anchor + " 1", 1)
    assert not quoted(figure, drifted).startswith(expected)


def settings() -> dict[str, list[str]]:
    """Per page, the times and sizes quoted that are inputs, not measurements (a fake
    server's latency): figures.toml's `[[setting]]` entries."""
    listed = tomllib.loads(FIGURES.read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for entry in listed.get("setting", []):
        found.setdefault(entry["page"], []).append(" ".join(entry["text"].split()))
    return found


def unrecorded(page: str, listed: list[Figure], inputs: list[str]) -> list[str]:
    """The time and memory figures on `page` that no listed figure or setting covers."""
    lines = (REPO / page).read_text(encoding="utf-8").splitlines()
    loose = []
    for line in (line for line in lines if line.startswith("|")):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        for column, cell in enumerate(cells, start=1):
            covered = any(
                f.page == page and f.row and line.startswith(f.row) and f.column == column
                for f in listed
            )
            if TIME_OR_MEMORY.search(cell) and not covered:
                loose.append(f"{page}: table row {cells[0]!r}, cell {column}: {cell!r}")
    prose = " ".join(" ".join(line for line in lines if not line.startswith("|")).split())
    places = [(prose.index(text), prose.index(text) + len(text)) for text in inputs]
    for figure in (f for f in listed if f.page == page and f.after):
        start = prose.index(" ".join(figure.after.split())) + len(" ".join(figure.after.split()))
        places.append((start, start + len(recorded(figure)) + 1))
    for match in TIME_OR_MEMORY.finditer(prose):
        if not any(low <= match.start() <= high for low, high in places):
            loose.append(f"{page}: {prose[max(0, match.start() - 40) : match.end()]!r}")
    return loose


def test_every_time_and_memory_figure_on_the_front_pages_is_recorded() -> None:
    listed, inputs = figures(), settings()
    loose = [
        text for page in FULLY_RECORDED for text in unrecorded(page, listed, inputs.get(page, []))
    ]
    assert not loose, (
        "figures quoted without a record (add them to measurements/figures.toml):\n"
        + ("\n".join(loose))
    )


def test_records_say_how_they_were_made() -> None:
    scripts = {measurement.name for measurement in MEASUREMENTS}
    for path in sorted(RECORDS.glob("*.json")):
        made = json.loads(path.read_text(encoding="utf-8"))
        where = path.relative_to(REPO)
        assert path.stem in scripts, f"{where}: not re-measured by measurements/measure_all.py"
        assert made["script"] == script_path(path.stem).relative_to(REPO).as_posix(), where
        assert (REPO / made["script"]).is_file(), f"{where}: {made['script']} is missing"
        assert made["command"].split()[:2] == ["python", made["script"]], (
            f"{where}: its command does not run {made['script']}"
        )
        assert f'"{path.stem}"' in (REPO / made["script"]).read_text(), (
            f"{where}: {made['script']} does not write this record"
        )
        assert made["status"] in (MEASURED, CARRIED), f"{where}: status {made['status']!r}"
        for key in ("command", "cpu", "load", "caches", "sources", "results"):
            assert made.get(key) not in (None, "", {}), f"{where}: no {key}"
        if made["status"] == MEASURED:
            for key in ("date", "commit", "source_digest"):
                assert made.get(key), f"{where}: measured, but no {key}"


def test_every_listed_figure_names_a_record_that_exists() -> None:
    for page in rendered_pages():
        assert (RECORDS / f"{page.record}.json").is_file(), f"{page.page}: no record"
        assert script_path(page.render.partition(":")[0]).is_file(), page.render
    for figure in figures():
        assert (RECORDS / f"{figure.record}.json").is_file(), f"{figure.name}: no record"
        assert (REPO / figure.page).is_file(), f"{figure.name}: no such page"
        assert bool(figure.after) != bool(figure.row), f"{figure.name}: `after` or `row`"


def test_records_are_fresh() -> None:
    stale = []
    for path in sorted(RECORDS.glob("*.json")):
        made = json.loads(path.read_text(encoding="utf-8"))
        if made["status"] == CARRIED:
            stale.append(f"{path.stem}: {CARRIED}")
        elif made["source_digest"] != source_digest(made["sources"]):
            stale.append(f"{path.stem}: measured at {made['commit']}; {made['sources']} changed")
    if stale and os.environ.get("LEXBENCH_REQUIRE_FRESH_FIGURES") != "1":
        pytest.skip("stale records (python measurements/measure_all.py):\n" + "\n".join(stale))
    assert not stale, "stale records:\n" + "\n".join(stale)
