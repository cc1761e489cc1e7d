"""SetLexSem's streaming item reader: the items and the errors of `run.files.read_item_file`
(which it replaced for SetLexSem), one item at a time, ids checked in 8 bytes each."""

from __future__ import annotations

import json
import re

import pytest

from lexbench.benchmarks.setlexsem.benchmark import generate_items
from lexbench.benchmarks.setlexsem.files import item_line, iter_items, read_items
from lexbench.benchmarks.setlexsem.item_ids import IdRepeats
from lexbench.benchmarks.setlexsem.items import SetLexSemItem
from lexbench.run.files import read_item_file


@pytest.fixture(scope="module")
def lines():
    return [item_line(item) for item in generate_items("small", limit=1)[:6]]


def _old_error(path):
    with pytest.raises(ValueError) as caught:
        read_item_file(path, SetLexSemItem.from_dict)
    return str(caught.value)


def _new_error(path):
    with pytest.raises(ValueError) as caught:
        read_items(path)
    return str(caught.value)


def test_the_items_read_are_the_items_written(tmp_path, lines):
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n  \n", encoding="utf-8")  # blank lines skipped
    items = read_items(path)
    assert items == read_item_file(path, SetLexSemItem.from_dict)
    assert [item_line(i) for i in items] == lines


def test_items_come_one_by_one_before_a_later_line_is_read(tmp_path, lines):
    path = tmp_path / "items.jsonl"
    path.write_text(lines[0] + "{not json\n", encoding="utf-8")
    stream = iter_items(path)
    assert next(stream).id == json.loads(lines[0])["id"]
    with pytest.raises(ValueError, match=r"items.jsonl:2: not valid JSON"):
        next(stream)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("LINE0\n{oops\n", r"items.jsonl:3: not valid JSON \(Expecting property name"),
        ("LINE0\ufeffLINE1", r"items.jsonl:2: not valid JSON \(Unexpected UTF-8 BOM"),
        ("LINE0[1, 2]\n", r"item 2 is a JSON list, not an object with the item's fields: \[1, 2\]"),
        ('LINE0{"id": "x"}\n', r"item 2 is not a valid item \(not a SetLexSem item row \(KeyError"),
        ("", r"items.jsonl: no items"),
        ("\n \n", r"items.jsonl: no items"),
        ("LINE0LINE1LINE0LINE1LINE2", r"item ids repeat: \['[^']+/00', '[^']+/00'\]"),
    ],
)
def test_errors_are_those_of_the_file_reader_it_replaced(tmp_path, lines, text, expected):
    path = tmp_path / "items.jsonl"
    text = text.replace("LINE0", lines[0]).replace("LINE1", lines[1]).replace("LINE2", lines[2])
    path.write_text(text, encoding="utf-8")
    assert _new_error(path) == _old_error(path)
    assert re.search(expected, _new_error(path))


def test_a_bad_field_type_and_bytes_that_are_not_utf8(tmp_path, lines):
    row = json.loads(lines[0])
    row["m"] = "two"
    path = tmp_path / "items.jsonl"
    path.write_text(lines[1] + json.dumps(row) + "\n", encoding="utf-8")
    assert _new_error(path) == _old_error(path)
    assert "item 2 is not a valid item (not a SetLexSem item row (ValueError(" in _new_error(path)
    path.write_bytes(lines[1].encode() + b'{"id": "\xff"}\n')
    assert _new_error(path) == _old_error(path) == f"{path}: not UTF-8 text (invalid start byte)"


def test_a_row_the_item_fields_convert_is_read_as_before(tmp_path, lines):
    """Numbers written as text or floats are converted as the keyword constructor did."""
    row = json.loads(lines[0])
    row.update(m=2.0, k="1", studies=["main"], swapped=True)
    del row["hypernym_a"], row["swapped"]
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (item,) = read_items(path)
    assert item == read_item_file(path, SetLexSemItem.from_dict)[0]
    assert (item.m, item.k, item.swapped, item.hypernym_a) == (2, 1, 0, None)
    assert type(item.m) is int and item.studies == ("main",)


def test_hash_collisions_are_checked_against_the_ids_themselves():
    same_length = IdRepeats(hash_id=len)  # every id of one length collides
    ids = ["ab", "cd", "ef", "abc", "abc", "x"]
    for item_id in ids:
        same_length.add(item_id)
    assert len(same_length) == 6
    assert same_length.repeated(lambda: ids) == ["abc"]
    distinct = IdRepeats(hash_id=len)
    for item_id in ["ab", "cd"]:
        distinct.add(item_id)
    assert distinct.repeated(lambda: ["ab", "cd"]) == []
    never_read_again = IdRepeats()
    for item_id in ["a", "b", "c"]:
        never_read_again.add(item_id)
    assert never_read_again.repeated(lambda: pytest.fail("read again without a shared hash")) == []
