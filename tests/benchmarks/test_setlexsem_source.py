"""A run's SetLexSem items as a source read afresh per pass (`setlexsem/source.py`): the
survey hashes, counts and checks once, before any request; the run's pass yields the same
items without the whole-file checks."""

from __future__ import annotations

import hashlib
import json

import pytest

from lexbench.benchmarks.setlexsem.benchmark import build_benchmark, generate_items
from lexbench.benchmarks.setlexsem.files import item_line
from lexbench.benchmarks.setlexsem.source import FileItems, GridItems


@pytest.fixture(scope="module")
def small():
    return generate_items("small")


def _file(tmp_path, items):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(item_line(i) for i in items), encoding="utf-8")
    return path


def test_a_file_source_yields_what_a_list_held_and_hashes_it_alike(tmp_path, small):
    path = _file(tmp_path, small)
    source = FileItems(path=path, limit=1, selection={"operation": ("union",)})
    expected = [i for i in small if i.prompt_index < 1 and i.operation == "union"]
    assert list(source) == list(source) == expected  # read afresh each pass
    assert len(source) == len(expected)
    digest = hashlib.sha256("".join(item_line(i) for i in expected).encode()).hexdigest()
    assert source.survey().sha256 == digest
    listed = build_benchmark("m", items=path, limit=1, select=["operation=union"])
    assert listed.config()["dataset_sha256"] == digest and listed.config()["items"] == len(expected)


def test_a_grid_source_generates_the_grid_items(small):
    source = GridItems(grid=None, limit=1)
    with pytest.raises(ValueError, match="needs a grid"):
        list(source)
    from lexbench.benchmarks.setlexsem.grid_read import resolve_grid

    source = GridItems(grid=resolve_grid("small"), limit=1)
    assert list(source) == [i for i in small if i.prompt_index < 1]


def test_a_repeated_id_the_limit_leaves_out_is_still_refused(tmp_path, small):
    second = next(i for i in small if i.prompt_index == 1)
    path = _file(tmp_path, [*small[:4], second, second])
    source = FileItems(path=path, limit=1)
    with pytest.raises(ValueError, match=r"item ids repeat: \['" + second.id):
        len(source)


def test_nothing_selected_or_nothing_there_is_said_before_any_request(tmp_path, small):
    source = FileItems(path=_file(tmp_path, small), selection={"m": ("99",)})
    with pytest.raises(ValueError, match="matches no configuration"):
        len(source)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="no items"):
        len(FileItems(path=empty))


def _answer_from_prompt(request):
    """A deterministic reply of every kind the scorer meets, chosen by the prompt's text: the
    first member of A, the empty set, no answer tag, or a made-up member."""
    import re
    import zlib

    first = re.findall(r"\(([^,()]+),", request.prompt)[-1]  # a member of the asked sets
    choice = zlib.crc32(request.prompt.encode("utf-8")) % 4
    return [
        "<answer>{" + first + "}</answer>",
        "<answer>{}</answer>",
        "I think it is " + first,
        "<answer>{" + first + ", zzz}</answer>",
    ][choice]


def test_the_grid_path_and_the_items_path_write_the_same_bytes(tmp_path):
    """`run --grid G` and `run --items FILE` of `generate --grid G`: the same samples.jsonl,
    results.json (but its timings) and report.md, byte for byte."""
    from lexbench.benchmarks.setlexsem.benchmark import run_setlexsem, write_items
    from mock_model import ScriptedModel

    write_items(tmp_path / "small.jsonl", "small")
    folders = {}
    for path, source in (
        ("grid", {"grid": "small"}),
        ("items", {"items": tmp_path / "small.jsonl"}),
    ):
        model = ScriptedModel(_answer_from_prompt, name="scripted")
        evaluation = run_setlexsem(
            model, **source, out=tmp_path / path, use_cache=False, progress=False
        )
        folders[path] = evaluation.folder.path
    assert evaluation.results["overall"]["prompts"] == 544
    assert (folders["grid"] / "samples.jsonl").read_bytes() == (
        folders["items"] / "samples.jsonl"
    ).read_bytes()
    # report.md ends with the run's request line ("... in 0.1s"): its time is this process's.
    reports = {path: (folder / "report.md").read_bytes() for path, folder in folders.items()}
    assert reports["grid"].rsplit(b" in ", 1)[0] == reports["items"].rsplit(b" in ", 1)[0]
    assert reports["grid"].rsplit(b"\n", 2)[-2].startswith(b"Requests: 544 (0 from cache")
    results = {
        path: json.loads((folder / "results.json").read_text()) for path, folder in folders.items()
    }
    for kept in results.values():
        kept.pop("run")  # wall times and request counts of this process
    assert results["grid"] == results["items"]
    configs = {
        path: json.loads((folder / "config.json").read_text()) for path, folder in folders.items()
    }
    assert (
        configs["grid"]["benchmark"]["dataset_sha256"]
        == configs["items"]["benchmark"]["dataset_sha256"]
    )
