"""The statistics of robustness, on data whose answer is known."""

import math

import pytest
from scipy import stats as scipy_stats

from lexbench.plan import fresh_seeds
from lexbench.robustness.completion import (
    PublicFile,
    completion_match,
    control_sequence,
    probes,
    split_raw,
)
from lexbench.robustness.contamination import contamination_from_spread
from lexbench.robustness.spread import Member, cells_of, summarise
from lexbench.robustness.stats import (
    fisher_exact_greater,
    published_position,
    sample_sd,
    t_interval,
)


def test_t_interval_of_one_two_three():
    # mean 2, SD 1, t(2; 0.975) = 4.302652729911275: half-width 4.3027 / sqrt(3).
    interval = t_interval([1.0, 2.0, 3.0])
    assert interval.estimate == 2.0 and interval.n == 3
    assert interval.high - 2.0 == pytest.approx(4.302652729911275 / math.sqrt(3))
    assert interval.low == pytest.approx(2.0 - 4.302652729911275 / math.sqrt(3))
    assert sample_sd([1.0, 2.0, 3.0]) == 1.0
    assert math.isnan(t_interval([0.5]).low) and math.isnan(sample_sd([0.5]))


def test_t_interval_matches_scipy():
    values = [0.41, 0.47, 0.39, 0.52, 0.44]
    low, high = scipy_stats.t.interval(
        0.95, len(values) - 1, loc=sum(values) / 5, scale=scipy_stats.sem(values)
    )
    interval = t_interval(values)
    assert (interval.low, interval.high) == pytest.approx((low, high))


def test_a_tie_counts_against_the_published_set_in_rank_and_p_alike():
    for published, fresh in [(0.5, [0.5, 0.5, 0.5]), (0.7, [0.7, 0.2]), (0.3, [0.1, 0.3, 0.9])]:
        position = published_position(published, fresh)
        assert position["p_value"] == position["rank"] / position["of"]
    tied_at_the_top = published_position(0.7, [0.7, 0.2])
    assert tied_at_the_top["rank"] == 2  # not "best": a fresh set scored as high


def test_published_position_rank_z_and_exact_p():
    best = published_position(0.9, [0.5, 0.6, 0.7])
    assert best["rank"] == 1 and best["of"] == 4 and best["p_value"] == 0.25
    assert best["gap"] == pytest.approx(0.3) and best["z"] == pytest.approx(0.3 / 0.1)
    middle = published_position(0.6, [0.5, 0.6, 0.7])
    # A tie counts against the published set: 0.6, 0.6 and 0.7 are at least as high, in
    # the rank as in p (rank 3 of 4, p = 3/4).
    assert middle["rank"] == 3 and middle["p_value"] == 0.75 and middle["z"] == 0.0
    assert published_position(0.1, [0.5, 0.6, 0.7])["p_value"] == 1.0


@pytest.mark.parametrize(
    "table", [(8, 10, 1, 10), (3, 12, 3, 12), (0, 5, 4, 5), (20, 30, 9, 40), (1, 1, 0, 7)]
)
def test_fisher_exact_greater_matches_scipy(table):
    a, an, b, bn = table
    expected = scipy_stats.fisher_exact([[a, an - a], [b, bn - b]], alternative="greater")[1]
    assert fisher_exact_greater(a, an, b, bn) == pytest.approx(expected)


def test_fisher_refuses_impossible_counts():
    with pytest.raises(ValueError, match="0 <= hits <= total"):
        fisher_exact_greater(5, 3, 0, 3)


def test_fresh_seeds_skip_the_published_and_extend():
    assert fresh_seeds(42, 3) == [1, 2, 3]
    assert fresh_seeds(2, 3) == [1, 3, 4]
    assert fresh_seeds(42, 5)[:3] == fresh_seeds(42, 3)  # a larger K keeps the first sets
    with pytest.raises(ValueError, match="at least one"):
        fresh_seeds(42, 0)


def _member(label, published, correct, relations):
    return Member(
        label,
        __import__("pathlib").Path(f"/runs/{label}"),
        published,
        tuple(correct),
        tuple(cells_of({"relation": r}, ["relation"]) for r in relations),
    )


def test_spread_over_sets_places_the_published_set():
    relations = ["a", "a", "b", "b"]
    members = [
        _member("seed 42", True, [1, 1, 1, 1], relations),
        _member("seed 1", False, [1, 0, 0, 0], relations),
        _member("seed 2", False, [1, 1, 0, 0], relations),
        _member("seed 3", False, [1, 1, 1, 0], relations),
    ]
    record = summarise("sets", members)
    overall = record["summary"]["overall"]
    assert overall["mean"] == 0.5 and overall["sd"] == 0.25 and overall["n"] == 3
    assert overall["rank"] == 1 and overall["of"] == 4 and overall["p_value"] == 0.25
    assert overall["z"] == pytest.approx(2.0)
    assert record["summary"]["relation=a"]["mean"] == pytest.approx(5 / 6)
    assert record["summary"]["relation=b"]["published"] == 1.0
    contamination = contamination_from_spread({"benchmark": "x", "model": "m", **record})
    # 4 of 4 against 6 of 12 pooled: one-sided Fisher p = C(12,6)... as scipy says.
    expected = scipy_stats.fisher_exact([[4, 0], [6, 6]], alternative="greater")[1]
    assert contamination["item_test"]["p_value"] == pytest.approx(expected)
    assert "cannot reach p = 0.05" in contamination["reading"]


def test_spread_over_wordings_includes_the_paper_and_bootstraps():
    members = [
        _member("paper", True, [1, 0, 1, 0], ["a"] * 4),
        _member("guard", False, [1, 1, 1, 0], ["a"] * 4),
    ]
    record = summarise("prompts", members, bootstrap=True)
    assert record["summary"]["overall"]["mean"] == 0.625 and record["summary"]["overall"]["n"] == 2
    assert record["summary"]["overall"]["rank"] == 2  # the paper's wording is the lower one
    assert all(
        0 <= m["bootstrap"]["low"] <= m["accuracy"] <= m["bootstrap"]["high"]
        for m in record["members"]
    )


def test_cells_combine_fields():
    sample = {"token_type": "words", "operation": "union"}
    assert cells_of(sample, ["operation", "token_type+operation", "missing"]) == (
        "operation=union",
        "token_type+operation=words+union",
    )


def test_csv_fields_and_matches():
    assert split_raw('idea,food,understanding,eating,"consumption, digestion",metaphor')[4] == (
        '"consumption, digestion"'
    )
    assert completion_match("sun,,science\nnext", "sun,,science") == "exact"
    assert completion_match("sun, ,science", "sun,,science") == "near"
    assert completion_match("moon,,metaphor", "sun,,science") is None
    assert completion_match("anything", "") is None


def test_controls_are_the_same_rows_in_an_order_the_file_never_had():
    rows = tuple(f"t{g},s{g},w{g}{i},v{g}{i},,science" for g in range(3) for i in range(4))
    file = PublicFile("f.csv", "target,source,a,b,c,d", rows)
    control = control_sequence(file, seed=0)
    assert sorted(control) == sorted(rows) and control != list(rows)
    # Each group keeps its place: the first two fields are the file's at every position.
    assert [r.split(",")[:2] for r in control] == [r.split(",")[:2] for r in rows]
    found = probes(file, seed=0)
    real = [p for p in found if not p.control]
    assert len(real) == 12 and real[5].prompt.endswith("\nt1,s1,")
    assert real[5].expected == "w11,v11,,science"
    assert real[5].prompt.splitlines()[1:3] == [rows[3], rows[4]]
    assert all(
        not p.control or (p.prompt, p.expected) not in {(r.prompt, r.expected) for r in real}
        for p in found
    )
    assert control_sequence(file, seed=0) == control  # seeded
