"""Robustness edge cases: empty cells, failed requests, folding of spread members."""

import json
import math
from pathlib import Path

from lexbench.robustness.contamination import contamination_from_spread
from lexbench.robustness.files import member_folders
from lexbench.robustness.spread import Member, cells_of, spread_table, summarise
from lexbench.robustness.stats import published_position


def _spread(model, published, others):
    (model / published).mkdir(parents=True, exist_ok=True)
    for name in others:
        (model / name).mkdir(parents=True, exist_ok=True)
    members = [{"folder": str(model / published), "published": True}] + [
        {"folder": str(model / name), "published": False} for name in others
    ]
    record = {"kind": "sets", "published_folder": str(model / published), "members": members}
    (model / "robustness").mkdir(exist_ok=True)
    (model / "robustness" / f"sets-{published}.json").write_text(json.dumps(record))


def test_members_fold_only_when_their_published_run_is_given(tmp_path):
    model = tmp_path / "runs" / "lambda" / "m"
    _spread(model, "pub", ["fresh1", "fresh2"])
    (model / "seed1").mkdir()
    assert member_folders([model / "pub", model / "fresh1"]) == {
        (model / "fresh1").resolve(),
        (model / "fresh2").resolve(),
    }
    # A fresh set (or a standalone seed) given without its published run keeps its row.
    assert member_folders([model / "fresh1"]) == set()
    assert member_folders([model / "seed1"]) == set()


def test_a_nan_published_value_has_no_rank():
    position = published_position(math.nan, [0.5, 0.6])
    assert position["rank"] is None
    assert all(position[k] != position[k] for k in ("p_value", "z", "gap"))


def _member(label, published, correct, relations, values=()):
    return Member(
        label,
        Path(f"/runs/{label}"),
        published,
        tuple(correct),
        tuple(cells_of({"relation": r}, ["relation"]) for r in relations),
        tuple(values),
    )


def test_a_cell_missing_from_the_published_set_says_n_a():
    members = [
        _member("seed 42", True, [1, 1], ["a", "a"]),
        _member("seed 1", False, [1, 0], ["a", "b"]),
        _member("seed 2", False, [1, 1], ["a", "b"]),
    ]
    record = summarise("sets", members)
    cell = record["summary"]["relation=b"]
    assert cell["rank"] is None and cell["p_value"] != cell["p_value"]
    row = next(line for line in spread_table(record).splitlines() if "relation=b" in line)
    assert row.endswith("| n/a | n/a | n/a |") and "of" not in row


def test_a_published_set_with_nothing_scored_is_read_not_raised():
    members = [
        _member("seed 42", True, [], []),
        _member("seed 1", False, [1, 0], ["a", "a"]),
    ]
    record = contamination_from_spread(
        {"benchmark": "x", "model": "m", **summarise("sets", members)}
    )
    assert record["item_test"]["published"] == {"right": 0, "scored": 0}
    assert record["flagged"] is False
    assert "nothing was measured" in record["reading"]


def test_a_member_without_a_score_says_n_a():
    members = [
        _member("seed 42", True, [1, 0], ["a", "a"], [1.0, 0.5]),
        _member("seed 1", False, [1, 0], ["a", "a"], [1.0, 0.25]),
    ]
    record = summarise("sets", members)
    record["members"][1]["score"] = None  # NaN read back from JSON
    row = next(line for line in spread_table(record).splitlines() if line.startswith("| seed 1"))
    assert row.endswith("| n/a |")
