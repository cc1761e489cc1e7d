"""Robustness edge cases: empty cells, failed requests, folding of spread members."""

import json

from lexbench.robustness.files import member_folders


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

