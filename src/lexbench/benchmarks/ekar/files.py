"""Reading E-KAR's split files: JSON lines or one JSON array, each row located by line for
error messages, blind (label-free) files told apart by name, and a check that a file holds
the language it is read as."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.data import EkarItem, parse_row


@dataclass(frozen=True)
class LocatedRow:
    """One row of a data file and where it is ("validation.json:7" for JSON lines, line 7;
    "test.json: row 3" for a JSON array)."""

    where: str
    row: Any


def read_located_rows(path: str | Path) -> list[LocatedRow]:
    """Rows of a JSON-lines file or a JSON array file, each with its location."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text (byte {error.start})") from None
    stripped = text.lstrip()
    if not stripped:
        raise ValueError(f"{path}: the file is empty")
    if stripped.startswith("["):
        try:
            rows = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as error:
            detail = (
                f"{error.msg}, line {error.lineno}"
                if isinstance(error, json.JSONDecodeError)
                else "nested too deeply"
            )
            raise ValueError(f"{path}: not a valid JSON array ({detail})") from None
        if not isinstance(rows, list):
            raise ValueError(f"{path}: expected a list of rows")
        return [LocatedRow(f"{path}: row {n}", row) for n, row in enumerate(rows, 1)]
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(LocatedRow(f"{path}:{number}", json.loads(line)))
        except (json.JSONDecodeError, RecursionError) as error:
            # One object spread over several lines is valid JSON too: accept it whole.
            try:
                return [LocatedRow(f"{path}: row 1", json.loads(stripped))]
            except (json.JSONDecodeError, RecursionError):
                pass
            detail = error.msg if isinstance(error, json.JSONDecodeError) else "nested too deeply"
            raise ValueError(
                f"{path}:{number}: neither a JSON array file nor valid JSON lines ({detail})"
            ) from None
    return out


def read_rows(path: str | Path) -> list[Any]:
    """Rows of a JSON-lines file or a JSON array file (whichever the file is)."""
    return [located.row for located in read_located_rows(path)]


def is_blind_file(path: str | Path) -> bool:
    """v1.0's label-free test files say so in their names."""
    return "blind" in Path(path).stem


_CJK_TEXT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def check_language(items: list[EkarItem], language: str, path: str | Path) -> None:
    """Refuse `--language en` on Chinese data and `--language zh` on English data: most
    queries must (zh) or must not (en) be written in Chinese characters."""
    chinese = [i for i in items if _CJK_TEXT.search("".join(i.query))]
    other = [i for i in items if not _CJK_TEXT.search("".join(i.query))]
    wrong, right = (chinese, "zh") if language == "en" else (other, "en")
    if len(wrong) * 2 > len(items):
        example = wrong[0]
        raise ValueError(
            f"{path}: --language {language} does not match the data: "
            f"{len(wrong)} of {len(items)} queries are "
            f"{'Chinese' if language == 'en' else 'not Chinese'} (e.g. id "
            f"{example.id}: {':'.join(example.query)!r}); pass --language {right}"
        )


def read_split(path: str | Path, language: str, *, blind: bool | None = None) -> list[EkarItem]:
    """The items of one data file; errors name the file and the row. `blind` defaults to
    what the file's name says (`is_blind_file`)."""
    blind = is_blind_file(path) if blind is None else blind
    located = read_located_rows(path)
    if not located:
        raise ValueError(f"{path}: no items")
    items = [parse_row(entry.row, language, where=entry.where, blind=blind) for entry in located]
    seen: dict[str, str] = {}
    for entry, item in zip(located, items):
        if item.id in seen:
            raise ValueError(f"{entry.where}: item id {item.id!r} repeats ({seen[item.id]})")
        seen[item.id] = entry.where
    check_language(items, language, path)
    return items
