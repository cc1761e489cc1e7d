"""The numbers a benchmark's paper printed, as data: `PublishedRow`s read from a TOML file.

Each benchmark ships its paper's tables beside its code (`benchmarks/lambda_/published.toml`)
and hands them over through `BenchmarkSpec.published`; a plugin ships its own the same way.
One row is one printed cell: the model or method, the condition (the column), the metric,
the value exactly as printed, N where the paper gives it, the table and column it sits in,
the paper, and the protocol it was measured under twice over: in words, and as the
run-config settings lexbench records (`Setting`), so `lexbench.report.published` can tell
whether a run is comparable and name the differences when it is not.

The file mirrors the paper's tables, so a transcription can be checked against the page:

    [paper]                          title, venue, arxiv (as the text gives them), transcribed
    [settings.NAME]                  a run-config setting a protocol names: key, name,
                                     expect | unset, default, words, near
    [[tables]]                       table, caption, benchmark, metric, scale, protocol,
                                     settings, slice, size_check, model, header_label, columns
    [[tables.rows]]                  label, model, cells, condition, n, n_source, settings,
                                     protocol, run_value, run_n, note

`columns` are aligned with each row's `cells` (every printed cell after the row's label):
a column with a `condition` holds values (a cell "28.2/-" with `parts` holds two), `role =
"n"` or `"sd"` the row's N or SD, any other only its header. A cell "-", "—" or "N/A" is no
number: no row. Nothing here imports more than the standard library: the row type sits
below the benchmark contract (`lexbench.contract`).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Printed cells that hold no number (the paper left the cell empty).
NO_NUMBER = ("-", "—", "N/A", "")
SCALES = ("percent", "fraction", "points")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)")
_TABLE_KEYS = {"table", "caption", "benchmark", "metric", "scale", "protocol", "settings"}
_TABLE_KEYS |= {"slice", "size_check", "model", "header_label", "columns", "rows", "interval"}
_CELL_KEYS = {"condition", "n", "n_source", "run_value", "run_n", "headline", "unmatched"}
_CELL_KEYS |= {"note", "protocol", "settings", "benchmark", "metric", "size_check"}
_COLUMN_KEYS = _CELL_KEYS | {"header", "role", "parts"}
_PART_KEYS = _CELL_KEYS | {"name"}
_ROW_KEYS = {"label", "model", "cells", "condition", "n", "n_source", "settings", "protocol"}
_ROW_KEYS |= {"run_value", "run_n", "note"}


class PublishedFileError(ValueError):
    """A published-results file that cannot be read: the message names the file and row."""


@dataclass(frozen=True)
class Paper:
    """The paper a file transcribes, as its text copy names it."""

    title: str
    venue: str  # as the text gives it ("under double-blind review", "ACL 2022")
    arxiv: str = ""  # the arXiv id the text prints ("" where it prints none)
    transcribed: str = ""  # by whom and how it was checked
    source: str = ""  # the file the rows were read from (set by the loader)


@dataclass(frozen=True)
class Setting:
    """One run-config setting a protocol fixes: `key` is its dotted path in config.json.

    The run's value (null or absent: `default`; no default: the setting does not apply to
    that run, as `benchmark.method` on a language model's run, unless `required`) must be
    one of `expect`, or, with `unset`, absent. A value in `near` ("*": any other) is accepted with that note.
    `words` says each value in the reader's words ("completion" -> "the completion prompt
    (...)"); a value without words is shown as "NAME VALUE"."""

    key: str
    name: str
    expect: tuple[Any, ...] = ()
    unset: bool = False
    default: Any = None
    required: bool = False  # absent is a value of its own ("unset"), not "does not apply"
    words: Mapping[str, str] = field(default_factory=dict)
    near: Mapping[str, str] = field(default_factory=dict)

    def describe(self, value: Any) -> str:
        """A value in words: "the completion prompt (...)", "temperature 0.7", "no wording"."""
        text = self.words.get(value_key(value))
        if text is None:
            text = self.words.get("*", "")
        if text:
            return text.replace("{value}", value_key(value))
        return f"no {self.name}" if value is None else f"{self.name} {value_key(value)}"


def value_key(value: Any) -> str:
    """How a setting's value is named in `words` and `near`: a string as it is, anything else
    as JSON ("true", "0.0", "unset" for null)."""
    if value is None:
        return "unset"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class PublishedRow:
    """One number a paper printed, with everything needed to compare a run with it."""

    benchmark: str  # the run name it compares with ("lambda", "bats", "ekar-explain")
    paper: Paper
    table: str  # "Table 1"
    caption: str
    column: str  # the column's header as printed ("Overall"; a part: "Zh (HARD)")
    label: str  # the row's label as printed
    model: str  # the model or method, in words
    condition: str  # what the column measures ("overall", "synonym", "HARD mode, Chinese")
    metric: str  # "accuracy", "MRR@10", "mean accuracy over configurations", ...
    scale: str  # how `value` is printed: "percent", "fraction", or "points" (a difference)
    value: str  # exactly as printed ("46.4%", ".099", "29.1 (68.6)")
    n: int | None = None  # items (prompts, problems) the value is over, where given
    items: int | None = None  # the protocol's item set size for the column (3,000; 300 is N)
    n_source: str = ""  # where the paper gives N
    sd: str = ""  # the SD the paper prints beside it, as printed
    interval: str = ""  # an interval the paper prints, as printed
    protocol: str = ""  # in words: prompt, shots, item set and size, decoding, scoring
    settings: tuple[Setting, ...] = ()
    slice_keys: tuple[str, ...] = ()  # settings that make a run a slice of the item set
    size_check: bool = True  # a whole run must have N items to be comparable
    run_value: str = ""  # where a run's comparable number is in its results.json
    run_n: str = ""  # where the run's N for it is
    headline: bool = False  # the column a leaderboard shows
    unmatched: str = ""  # why no lexbench run is measured this way ("" when one can be)
    note: str = ""
    cells: tuple[str, ...] = ()  # the printed row after its label, for the verbatim check
    cell: int = 0  # which of `cells` holds the value (split at "/" where the cell has parts)
    header: tuple[str, ...] = ()  # the printed headers of those cells
    header_label: str = ""  # the printed header of the label column(s)

    @property
    def estimate(self) -> float:
        """The printed value as a number, in the fraction lexbench stores (46.4% -> 0.464)."""
        match = _NUMBER.search(self.value)
        if match is None:
            return float("nan")
        number = float(match.group())
        return number / 100 if self.scale == "percent" else number

    @property
    def count(self) -> int | None:
        """The items right, from the printed proportion and N (rounded; None without N)."""
        return None if self.n is None else round(self.estimate * self.n)


def load_published(path: str | Path) -> tuple[PublishedRow, ...]:
    """Every row of a published-results file, validated: a bad file raises
    `PublishedFileError` naming the file and the row."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PublishedFileError(f"{path}: no such published-results file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PublishedFileError(f"{path}: not valid TOML: {error}") from None
    return _Reader(path, data).rows()


class _Reader:
    """Reads one parsed file into rows; every complaint goes through `fail`."""

    def __init__(self, path: Path, data: Mapping[str, Any]) -> None:
        self.path = path
        self.data = data

    def fail(self, where: str, problem: str) -> PublishedFileError:
        return PublishedFileError(f"{self.path}: {where}: {problem}")

    def known(self, table: Mapping[str, Any], keys: set[str], where: str) -> None:
        unknown = set(table) - keys
        if unknown:
            raise self.fail(where, f"unknown key(s) {sorted(unknown)}")

    def text(self, table: Mapping[str, Any], key: str, where: str, required: bool = True) -> str:
        value = table.get(key, "")
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.fail(where, f"{key!r} must be a non-empty string")
        return value

    def rows(self) -> tuple[PublishedRow, ...]:
        unknown = set(self.data) - {"paper", "settings", "tables"}
        if unknown:
            raise self.fail("top level", f"unknown section(s) {sorted(unknown)}")
        paper_data = self.data.get("paper")
        if not isinstance(paper_data, Mapping):
            raise self.fail("[paper]", "missing (title, venue, arxiv, transcribed)")
        paper = Paper(
            title=self.text(paper_data, "title", "[paper]"),
            venue=self.text(paper_data, "venue", "[paper]"),
            arxiv=self.text(paper_data, "arxiv", "[paper]", required=False),
            transcribed=self.text(paper_data, "transcribed", "[paper]"),
            source=str(self.path),
        )
        settings = {
            name: self.setting(name, spec)
            for name, spec in dict(self.data.get("settings", {})).items()
        }
        tables = self.data.get("tables")
        if not isinstance(tables, list) or not tables:
            raise self.fail("[[tables]]", "no table")
        out: list[PublishedRow] = []
        for index, table in enumerate(tables):
            out += self.table(paper, settings, table, f"tables[{index}]")
        return tuple(out)

    def setting(self, name: str, spec: Any) -> Setting:
        where = f"[settings.{name}]"
        if not isinstance(spec, Mapping):
            raise self.fail(where, "must be a table")
        unknown = set(spec) - {"key", "name", "expect", "unset", "default", "required"}
        unknown -= {"words", "near"}
        if unknown:
            raise self.fail(where, f"unknown key(s) {sorted(unknown)}")
        expect = spec.get("expect", [])
        unset = spec.get("unset", False)
        if not isinstance(expect, list) or not isinstance(unset, bool) or bool(expect) == unset:
            raise self.fail(where, "give either expect = [values] or unset = true")
        for key in ("words", "near"):
            value = spec.get(key, {})
            if not isinstance(value, Mapping) or not all(
                isinstance(v, str) for v in value.values()
            ):
                raise self.fail(where, f"{key!r} must map values to strings")
        return Setting(
            key=self.text(spec, "key", where),
            name=self.text(spec, "name", where),
            expect=tuple(expect),
            unset=unset,
            default=spec.get("default"),
            required=bool(spec.get("required", False)),
            words=dict(spec.get("words", {})),
            near=dict(spec.get("near", {})),
        )

    def named(self, settings: Mapping[str, Setting], names: Any, where: str) -> list[Setting]:
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise self.fail(where, "'settings' must be a list of setting names")
        missing = [n for n in names if n not in settings]
        if missing:
            raise self.fail(where, f"no [settings.{missing[0]}] in the file")
        return [settings[n] for n in names]

    def table(
        self, paper: Paper, settings: Mapping[str, Setting], table: Any, where: str
    ) -> list[PublishedRow]:
        if not isinstance(table, Mapping):
            raise self.fail(where, "must be a table")
        name = self.text(table, "table", where)
        where = f"{where} ({name})"
        self.known(table, _TABLE_KEYS, where)
        scale = table.get("scale", "")
        if scale not in SCALES:
            raise self.fail(where, f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
        columns = table.get("columns")
        if not isinstance(columns, list) or not all(isinstance(c, Mapping) for c in columns):
            raise self.fail(where, "'columns' must be a list of tables (one per printed cell)")
        for number, column in enumerate(columns, 1):
            self.column(column, f"{where} column {number} ({column.get('header', '?')})")
        slice_keys = table.get("slice", [])
        if not isinstance(slice_keys, list) or not all(isinstance(k, str) for k in slice_keys):
            raise self.fail(where, "'slice' must be a list of config keys")
        base = {
            "benchmark": self.text(table, "benchmark", where),
            "paper": paper,
            "table": name,
            "caption": self.text(table, "caption", where),
            "scale": scale,
            "slice_keys": tuple(slice_keys),
            "header": tuple(str(c.get("header", "")) for c in columns),
            "header_label": str(table.get("header_label", "")),
        }
        self.text(table, "protocol", where)
        self.text(table, "metric", where)
        common = self.named(settings, table.get("settings", []), where)
        rows = table.get("rows")
        if not isinstance(rows, list) or not rows:
            raise self.fail(where, "no [[tables.rows]]")
        out: list[PublishedRow] = []
        for index, row in enumerate(rows):
            label = row.get("label", "?") if isinstance(row, Mapping) else "?"
            row_where = f"{where} row {index + 1} ({label})"
            out += self.cells(base, table, settings, common, columns, row, row_where)
        return out

    def column(self, column: Mapping[str, Any], where: str) -> None:
        self.known(column, _COLUMN_KEYS, where)
        if column.get("role") not in (None, "n", "sd"):
            raise self.fail(where, f"role must be 'n' or 'sd', got {column['role']!r}")
        parts = column.get("parts", [])
        if not isinstance(parts, list) or not all(isinstance(p, Mapping) for p in parts):
            raise self.fail(where, "'parts' must be a list of tables")
        for part in parts:
            self.known(part, _PART_KEYS, where)
            if not part.get("name") or not part.get("condition"):
                raise self.fail(where, "every part needs a 'name' and a 'condition'")
        if "n" in column and not isinstance(column["n"], int):
            raise self.fail(where, "'n' must be a whole number")

    def cells(
        self,
        base: Mapping[str, Any],
        table: Mapping[str, Any],
        settings: Mapping[str, Setting],
        common: Sequence[Setting],
        columns: Sequence[Mapping[str, Any]],
        row: Any,
        where: str,
    ) -> list[PublishedRow]:
        if not isinstance(row, Mapping):
            raise self.fail(where, "must be a table")
        self.known(row, _ROW_KEYS, where)
        cells = row.get("cells")
        if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
            raise self.fail(where, "'cells' must be a list of strings, as printed")
        if len(cells) != len(columns):
            raise self.fail(where, f"{len(cells)} cells for {len(columns)} columns")
        model = row.get("model") or table.get("model")
        if not isinstance(model, str) or not model:
            raise self.fail(where, "no model (give the row's or the table's 'model')")
        by_role = {c.get("role"): cell for c, cell in zip(columns, cells) if c.get("role")}
        n_cell = by_role.get("n", "")
        if n_cell and not n_cell.replace(",", "").isdigit():
            raise self.fail(where, f"the N cell {n_cell!r} is not a whole number")
        n_map = row.get("n", {})
        if not isinstance(n_map, Mapping) or not all(isinstance(v, int) for v in n_map.values()):
            raise self.fail(where, "'n' must map column headers to whole numbers")
        extra = self.named(settings, row.get("settings", []), where)
        out: list[PublishedRow] = []
        for position, (column, cell) in enumerate(zip(columns, cells)):
            if "condition" not in column and "parts" not in column:
                continue  # a header-only column (Params), the N or the SD
            parts = column.get("parts") or [column]
            pieces = cell.split("/") if len(parts) > 1 else [cell]
            if len(pieces) != len(parts):
                raise self.fail(where, f"cell {cell!r} has not {len(parts)} parts split by '/'")
            for part, piece in zip(parts, pieces):
                if piece.strip() in NO_NUMBER:
                    continue
                if _NUMBER.search(piece) is None:
                    raise self.fail(where, f"cell {piece!r} under {column.get('header')!r}")
                merged = {**column, **part}
                header = str(column.get("header", ""))
                shown = f"{header} ({part['name']})" if "name" in part else header
                n = n_map.get(shown, n_map.get(header, merged.get("n")))
                if n is None and n_cell:
                    n = int(n_cell.replace(",", ""))
                conditions = [str(row.get("condition", "")), str(merged.get("condition", ""))]
                own = self.named(settings, column.get("settings", []), where)
                if part is not column:  # a part's settings add to its column's
                    own += self.named(settings, part.get("settings", []), where)
                texts = (
                    str(table["protocol"]),
                    str(merged.get("protocol", "")),
                    str(row.get("protocol", "")),
                )
                notes = (str(merged.get("note", "")), str(row.get("note", "")))
                out.append(
                    PublishedRow(
                        **{**base, "benchmark": str(merged.get("benchmark") or base["benchmark"])},
                        column=shown,
                        label=self.text(row, "label", where),
                        model=model,
                        metric=str(merged.get("metric") or table["metric"]),
                        condition=", ".join(c for c in conditions if c),
                        value=piece.strip(),
                        n=n,
                        items=merged.get("n"),
                        size_check=bool(merged.get("size_check", table.get("size_check", True))),
                        n_source=str(row.get("n_source") or merged.get("n_source", "")),
                        sd=by_role.get("sd", ""),
                        interval=str(table.get("interval", "")),
                        settings=_unique([*common, *own, *extra]),
                        run_value=str(row.get("run_value") or merged.get("run_value", "")),
                        run_n=str(row.get("run_n") or merged.get("run_n", "")),
                        headline=bool(merged.get("headline", False)),
                        unmatched=str(merged.get("unmatched", "")),
                        note=" ".join(t for t in notes if t),
                        protocol=" ".join(t for t in texts if t),
                        cells=tuple(cells),
                        cell=position,
                    )
                )
        return out


def _unique(settings: Sequence[Setting]) -> tuple[Setting, ...]:
    """Settings by key, a later one (a column's, a row's) replacing an earlier."""
    return tuple({s.key: s for s in settings}.values())
