"""SCAN's concept mappings as the packaged CSV has them (issue 24 item 12): 11 science and
54 metaphor (target, source) mappings, where the paper's text implies 12 and 53 ("the 20
mappings from Turney (2008) (10 scientific and 10 metaphorical) ... another 43
metaphorical mappings and 2 scientific ones"). Counted and listed here, so the fidelity
table's statement (docs/benchmarks/scan.md) is checked against the file."""

from __future__ import annotations

import csv
import itertools
from importlib import resources

from lexbench.benchmarks.scan.benchmark import dataset_statistics, load_scan

# Turney (2008)'s 20 mapping problems (A1-A10 science, M1-M10 metaphor), as (target, source):
# the first 20 blocks of the CSV, in his order.
TURNEY_SCIENCE = {
    ("atom", "solar system"),
    ("heat transfer", "water flow"),
    ("sounds", "waves"),
    ("respiration", "combustion"),
    ("light", "sound"),
    ("planet", "projectile"),
    ("natural selection", "artificial selection"),
    ("gas molecules", "billiard balls"),
    ("mind", "computer"),
    ("bacterial mutation", "slot machine"),
}
TURNEY_METAPHOR = {
    ("argument", "war"),
    ("accepting a belief", "buying an item"),
    ("reasons for a theory", "grounds for a building"),
    ("difficulties", "impediments to travel"),
    ("time", "money"),
    ("ideas", "seeds"),
    ("mind", "machine"),
    ("idea", "object"),
    ("understanding", "following"),
    ("understanding", "seeing"),
}


def packaged_rows() -> list[dict[str, str]]:
    text = resources.files("lexbench.benchmarks.scan").joinpath("data", "SCAN_dataset.csv")
    return list(csv.DictReader(text.read_text(encoding="utf-8").splitlines()))


def test_the_csv_has_11_science_and_54_metaphor_mappings():
    rows = packaged_rows()
    mappings = {
        kind: sorted({(r["target"], r["source"]) for r in rows if r["analogy_type"] == kind})
        for kind in ("science", "metaphor")
    }
    assert len(mappings["science"]) == 11 and len(mappings["metaphor"]) == 54
    # Turney's 20 are all there, with his labels; the only new science mapping is code-virus.
    assert set(mappings["science"]) - TURNEY_SCIENCE == {("code", "virus")}
    assert set(mappings["metaphor"]) >= TURNEY_METAPHOR
    assert len(set(mappings["metaphor"]) - TURNEY_METAPHOR) == 44  # the paper says 43
    stats = dataset_statistics(load_scan())
    assert stats["science"]["mappings"] == 11 and stats["metaphor"]["mappings"] == 54


def test_mind_computer_is_two_blocks_of_the_file_one_mapping_by_its_names():
    """The likely 12th science mapping: mind-computer comes twice, as Turney's block (rows
    56-63) and again at rows 352-357 (labelled science), and a mapping is keyed by its
    names, so the two count as one. Repeated blocks of metaphors (argument-war,
    theory-building, idea-food) mean that counting blocks gives 69, not the paper's 65."""
    rows = packaged_rows()
    blocks = [
        (key, kind, 2 + first)  # file line of the block's first row (after the header)
        for (key, kind), group in itertools.groupby(
            enumerate(rows), key=lambda p: ((p[1]["target"], p[1]["source"]), p[1]["analogy_type"])
        )
        for first in [next(group)[0]]
    ]
    science = [b for b in blocks if b[1] == "science"]
    assert len(science) == 12 and len(blocks) == 69
    assert [line for key, _, line in science if key == ("mind", "computer")] == [56, 352]
    repeated = sorted({k for k, _, _ in blocks if sum(b[0] == k for b in blocks) > 1})
    assert repeated == [
        ("argument", "war"),
        ("idea", "food"),
        ("mind", "computer"),
        ("theory", "building"),
    ]
