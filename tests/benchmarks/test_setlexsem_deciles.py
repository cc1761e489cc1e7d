"""SetLexSem's frequency deciles on the authors' scale (`setlexsem/deciles.py`): the anchors
on hand-computed counts, the real web2 deciles pinned, and the scale-free anchoring kept as
the grid value `decile_scope = "global"`."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from lexbench.benchmarks.setlexsem.analysis import paper_tables
from lexbench.benchmarks.setlexsem.deciles import (
    BOOKS_SCALE,
    DECILE_SCOPES,
    GOOGLE_BOOKS_2008_TOKENS,
    books_scale_bins,
    books_scale_deciles,
    decile_table,
    decile_words,
)
from lexbench.benchmarks.setlexsem.generate import ItemGenerator
from lexbench.benchmarks.setlexsem.grid_read import builtin_grid, grid_from_mapping
from lexbench.lexicon.words import log_width_bins, web2_deciles


def test_counts_are_shares_of_a_google_books_year_shifted_at_a_count_of_one():
    # Shares of 1e-8, 1e-5 and 0.05 in a corpus of 1e10 tokens: counts 100, 1e5 and 5e8;
    # the authors' shift is log 1 = 0, their divisor log 5e8 = 20.03.
    shares = {"rare": 1e-8, "mid": 1e-5, "the": 0.05}
    bins = books_scale_bins(shares, total_tokens=1e10)
    top = math.log(5e8)
    assert math.log(100) / top == pytest.approx(0.2299, abs=1e-4)
    assert math.log(1e5) / top == pytest.approx(0.5748, abs=1e-4)
    assert bins == {"rare": 3, "mid": 6, "the": 10}
    # The scale-free anchoring puts the rarest at 0 (decile 1): counts 1, 1e3 and 5e6,
    # mid at log 1e3 / log 5e6 = 0.448.
    assert log_width_bins({w: f / 1e-8 for w, f in shares.items()}) == {
        "rare": 1,
        "mid": 5,
        "the": 10,
    }
    # A scaled count below the authors' rarest count becomes the shift, as in their formula.
    assert books_scale_bins({"rarer": 1e-11, "the": 0.05}, total_tokens=1e10) == {
        "rarer": 1,
        "the": 10,
    }


def test_the_constant_is_the_authors_google_books_year():
    # googlebooks-eng-all-totalcounts-20120701.txt, 2008: the year and version the authors'
    # scripts/download-google-ngrams.sh keeps.
    assert GOOGLE_BOOKS_2008_TOKENS == 19_482_936_409
    assert DECILE_SCOPES[0] == BOOKS_SCALE == builtin_grid("paper").studies[1].decile_scope


def test_web2_deciles_on_google_books_scale():
    table = decile_table(BOOKS_SCALE)
    assert table.ranked == 65_097
    sizes = [len(b) for b in table.bands]
    assert sizes == [0, 0, 13_212, 21_940, 16_425, 9_149, 3_504, 749, 104, 14]
    three = [len(decile_words(d, 3, BOOKS_SCALE)) for d in range(1, 11)]
    five = [len(decile_words(d, 5, BOOKS_SCALE)) for d in range(1, 11)]
    assert three == [0, 0, 8, 162, 485, 372, 168, 67, 30, 4]
    assert five == [0, 0, 1_071, 2_054, 1_655, 1_143, 550, 159, 15, 0]
    # Every ranked word in exactly one band, each band sorted.
    assert sum(map(len, table.bands)) == table.ranked
    assert all(list(b) == sorted(b) for b in table.bands)
    assert books_scale_deciles(["the", "notaword"]).unknown == 1


def test_the_scale_free_anchoring_stays_a_grid_value():
    # decile_scope = "global": the rarest ranked word counts 1 (lexbench's former binning).
    assert decile_table("global") == web2_deciles("global")
    grid = builtin_grid("paper")
    study = next(s for s in grid.studies if s.name == "deciles")
    scale_free = replace(grid, studies=(replace(study, decile_scope="global"),))
    planned, skipped = ItemGenerator(scale_free).plan()
    assert len(planned) == 2144 and len(skipped) == 160
    assert {c.split("/")[2] for c in (s.config_id for s in skipped)} == {"d9g"}
    configs = [
        {**c.set_config, **c.prompt_config, "config_id": c.config_id, "n": 50, "accuracy": 0.5}
        for c in planned
    ]
    pairs = [r["pairs"] for r in paper_tables(configs, "m")["table7"]["rows"]]
    assert pairs == [128] * 8 + [0]


def test_a_grid_without_a_scope_takes_the_papers():
    deciles = {"token_types": ["deciles"], "deciles": [4], "token_lengths": [3]}
    grid = grid_from_mapping({"study": [{"name": "d", **deciles}]})
    assert grid.studies[0].decile_scope == BOOKS_SCALE
    with pytest.raises(ValueError, match="decile_scope must be one of global_books_scale"):
        grid_from_mapping({"study": [{"name": "d", **deciles, "decile_scope": "books"}]})


def test_table7_takes_one_anchoring_when_a_run_has_both():
    base = {
        "token_type": "deciles",
        "decile": 5,
        "operation": "union",
        "m": 2,
        "k": 0,
        "method": "baseline_allow_empty",
        "phrasing": "formal",
        "n": 50,
    }
    accuracies = {
        (BOOKS_SCALE, 3): 0.5,
        (BOOKS_SCALE, 5): 0.7,
        ("global", 3): 0.1,
        ("global", 5): 0.9,
    }
    configs = [
        {**base, "decile_scope": scope, "token_length": length, "accuracy": accuracy}
        for (scope, length), accuracy in accuracies.items()
    ]
    row = paper_tables(configs, "m")["table7"]["rows"][4]
    assert row["pairs"] == 1 and row["mean"] == pytest.approx(20.0)  # the paper grid's scope
    alone = [c for c in configs if c["decile_scope"] == "global"]
    row = paper_tables(alone, "m")["table7"]["rows"][4]
    assert row["pairs"] == 1 and row["mean"] == pytest.approx(80.0)  # the only one there
