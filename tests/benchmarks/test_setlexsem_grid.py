"""SetLexSem grid files: every mistake is one clear error naming the file and the cell, found
before anything is written; no partial output is ever left behind."""

from __future__ import annotations

import pytest

from lexbench.benchmarks.setlexsem.benchmark import write_items
from lexbench.benchmarks.setlexsem.grid_read import grid_from_mapping, read_grid_file, resolve_grid
from lexbench.cli import main

STUDY = {"name": "s", "token_types": ["numbers"], "token_lengths": [2], "operand_sizes": [2]}


@pytest.mark.parametrize(
    "data,message",
    [
        ({"study": [{**STUDY, "colour": 1}]}, "unknown key"),
        ({"study": [{**STUDY, "operations": []}]}, "empty"),
        ({"study": [{**STUDY, "operand_sizes": [2, 2]}]}, "repeats 2"),
        ({"study": [{**STUDY, "methods": ["allow_empty_set"]}]}, "unknown value"),
        ({"study": [{**STUDY, "phrasings": ["poetic"]}]}, "unknown value"),
        ({"study": [{**STUDY, "skip_infeasible": "yes"}]}, "true or false"),
        ({"study": [{**STUDY, "token_types": ["deciles"]}]}, "needs 'deciles'"),
        (
            {
                "study": [
                    {
                        "name": "d",
                        "token_types": ["deceptive"],
                        "token_lengths": [3],
                        "deceptive_conditions": ["swapped"],
                    }
                ]
            },
            "does not apply",
        ),
        ({"study": [STUDY, STUDY]}, "study names repeat"),
        ({}, "no \\[\\[study\\]\\] tables"),
        ({"study": [STUDY], "decoding": {"top_p": 0}}, "top_p must be in"),
    ],
)
def test_grid_validation_errors(data, message):
    with pytest.raises(ValueError, match=message):
        grid_from_mapping(data)


def test_an_impossible_cell_names_file_study_and_cell_and_writes_nothing(tmp_path):
    grid_file = tmp_path / "one-digit.toml"
    grid_file.write_text(
        '[[study]]\nname = "tiny"\ntoken_types = ["numbers"]\n'
        "token_lengths = [1]\noperand_sizes = [2, 16]\n"
    )
    out = tmp_path / "out" / "items.jsonl"
    with pytest.raises(ValueError) as caught:
        write_items(out, read_grid_file(grid_file))
    message = str(caught.value)
    assert str(grid_file) in message and "study 'tiny'" in message
    assert "numbers/L1/m16/union/k0/baseline/formal" in message and "9 members" in message
    assert "skip_infeasible" in message
    assert not out.parent.exists() or list(out.parent.iterdir()) == []


def test_skip_infeasible_leaves_cells_out_and_lists_them(tmp_path):
    grid = grid_from_mapping(
        {
            "prompts_per_config": 2,
            "study": [
                {
                    "name": "tiny",
                    "token_types": ["numbers"],
                    "token_lengths": [1],
                    "operand_sizes": [2, 16],
                    "skip_infeasible": True,
                }
            ],
        }
    )
    meta = write_items(tmp_path / "items.jsonl", grid)
    assert meta["configurations"] == 4 and meta["per_study"]["tiny"]["configurations"] == 4
    assert [c["config_id"] for c in meta["skipped_cells"]] == [
        f"numbers/L1/m16/{op}/k0/baseline/formal"
        for op in ("union", "intersection", "difference", "symmetric_difference")
    ]


def test_a_cell_failing_late_leaves_no_partial_file(tmp_path, monkeypatch):
    import lexbench.benchmarks.setlexsem.generate as items_module

    calls = {"n": 0}
    real = items_module.prompt_text

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        return real(*args, **kwargs)

    monkeypatch.setattr(items_module, "prompt_text", flaky)
    out = tmp_path / "items.jsonl"
    out.write_text("previous contents\n")
    with pytest.raises(OSError, match="disk full"):
        write_items(out, grid_from_mapping({"study": [STUDY]}))
    assert out.read_text() == "previous contents\n"  # the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.jsonl"]


@pytest.mark.parametrize(
    "source,expected",
    [
        ("import not_a_module_anywhere\nGRID = {}\n", "ModuleNotFoundError"),
        ("GRID = 1 / 0\n", "ZeroDivisionError: division by zero"),
        ("GRID = {\n", "SyntaxError (line 1)"),
        ("raise SystemExit(3)\n", "exit(3)"),
    ],
)
def test_a_python_grid_that_raises_is_one_clear_error(tmp_path, capsys, source, expected):
    grid = tmp_path / "broken.py"
    grid.write_text(source)
    with pytest.raises(ValueError, match=f"grid file {grid}: "):
        resolve_grid(grid)
    assert (
        main(["generate", "setlexsem", "--grid", str(grid), "-o", str(tmp_path / "x.jsonl")]) == 2
    )
    err = capsys.readouterr().err
    assert f"grid file {grid}" in err and expected in err
    assert "Traceback" not in err and "dependency is missing" not in err
    assert not (tmp_path / "x.jsonl").exists()


def test_toml_and_python_grid_files(tmp_path):
    toml = tmp_path / "grid.toml"
    toml.write_text(
        "prompts_per_config = 3\n[decoding]\ntemperature = 0.25\ntop_k = 20\n"
        'top_p = 0.25\n[[study]]\nname = "w"\ntoken_types = ["words"]\n'
        'token_lengths = [3, "any"]\noperand_sizes = [2]\n'
        'methods = ["baseline", "cot_self_reflection_allow_empty", "chain_of_thought"]\n'
        'phrasings = ["formal", "pythonic"]\n'
    )
    grid = resolve_grid(toml)
    assert grid.prompts_per_config == 3 and grid.decoding.temperature == 0.25
    assert grid.studies[0].token_lengths == (3, None) and grid.configurations() == 2 * 4 * 3 * 2
    python = tmp_path / "grid.py"
    python.write_text(f"GRID = {{'study': [{STUDY!r}]}}\n")
    assert resolve_grid(python).studies[0].name == "s"
    (tmp_path / "nogrid.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match="must define a dict named GRID"):
        resolve_grid(tmp_path / "nogrid.py")
    with pytest.raises(FileNotFoundError):
        resolve_grid(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="unknown grid 'huge'"):
        resolve_grid("huge")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[study]\n")
    with pytest.raises(ValueError, match=f"grid file {bad}: not valid TOML"):
        resolve_grid(bad)


def test_select_errors_are_clear():
    from lexbench.benchmarks.setlexsem.files import parse_selection

    assert parse_selection(["m=2,4", "study=main"]) == {"m": ("2", "4"), "study": ("main",)}
    for bad in ("m", "colour=red", "m="):
        with pytest.raises(ValueError, match="expected FIELD=V1,V2"):
            parse_selection([bad])
    with pytest.raises(ValueError, match="twice"):
        parse_selection(["m=2", "m=4"])


def test_decile_scope_names_the_binning_and_an_unknown_one_is_an_error():
    deciles = {"name": "d", "token_types": ["deciles"], "deciles": [4], "token_lengths": [3]}
    with pytest.raises(
        ValueError,
        match="decile_scope must be one of global_books_scale, global, global_equal_count",
    ):
        grid_from_mapping({"study": [{**deciles, "decile_scope": "equal"}]})
    from lexbench.benchmarks.setlexsem.deciles import decile_words
    from lexbench.benchmarks.setlexsem.generate import ItemGenerator

    ids = {}
    for scope in ("global_books_scale", "global", "global_equal_count", "length"):
        grid = grid_from_mapping(
            {"study": [{**deciles, "decile_scope": scope}], "prompts_per_config": 2}
        )
        items = list(ItemGenerator(grid).items(None, None))
        pool = set(decile_words(4, 3, scope))
        assert items and all(set(i.set_a) | set(i.set_b) <= pool for i in items)
        ids[scope] = items[0].config_id.split("/")[2]
    # The authors' log bins on Google Books' scale (default) and scale-free, equal-count
    # tenths of the whole ranking, within length.
    assert ids == {
        "global_books_scale": "d4gb",
        "global": "d4g",
        "global_equal_count": "d4ge",
        "length": "d4",
    }
    assert grid_from_mapping({"study": [deciles]}).studies[0].decile_scope == "global_books_scale"
