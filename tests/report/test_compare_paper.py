"""The paper's own test in `compare` (SCAN, issue 24 items 10-11): the unpaired permutation
test with scipy's two-sided p, exact against scipy.stats.permutation_test where scipy
enumerates every split, within Monte-Carlo error where both draw; declared by the
benchmark's spec, labelled, its own Holm family, its resamples changeable or dropped."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats
from test_compare_stats import run_of

from lexbench import stats
from lexbench.cli import main
from lexbench.report.compare import compare_runs
from lexbench.report.paired_stats import holm
from lexbench.report.paper_tests import paper_tests


def scipy_unpaired_p(a, b, resamples: int, seed: int = 0) -> float:
    result = scipy_stats.permutation_test(
        (np.asarray(a, float), np.asarray(b, float)),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        random_state=seed,
    )
    return float(result.pvalue)


def brute_force_absolute_p(a, b) -> float:
    """Every split, counted by hand: the share with |difference| >= the observed one."""
    pooled = list(a) + list(b)
    observed = abs(np.mean(a) - np.mean(b))
    hits = total = 0
    for chosen in itertools.combinations(range(len(pooled)), len(a)):
        first = [pooled[i] for i in chosen]
        rest = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        total += 1
        hits += abs(np.mean(first) - np.mean(rest)) >= observed - 1e-12
    return hits / total


RR = [1.0, 0.5, 1 / 3, 0.25, 0.2, 0.1, 0.0]  # reciprocal ranks, as SCAN's MRR@10 gives
FIXED = [  # (a, b): reciprocal ranks with ties, one clear difference, one none, 0/1 values
    ([1.0, 0.5, 0.0, 0.0, 1 / 3, 1.0, 0.25], [0.0, 0.0, 0.5, 0.1, 0.0, 0.0, 1 / 3, 0.0]),
    ([1.0, 1.0, 1.0, 0.5, 1.0, 0.5], [0.0, 0.1, 0.0, 0.0, 0.2, 0.0, 0.0]),
    ([0.5, 0.0, 1 / 3, 1 / 6], [1 / 3, 0.5, 0.0, 1 / 6, 0.0]),
    ([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("a,b", FIXED)
def test_exact_enumeration_equals_scipy(a, b):
    splits = math.comb(len(a) + len(b), len(a))
    resamples = splits + 10  # scipy enumerates every split: its p is exact, and so is ours
    ours = stats.permutation_test(a, b, resamples=resamples)
    assert "exact" in ours.method
    assert ours.p_value == pytest.approx(scipy_unpaired_p(a, b, resamples), rel=1e-12)
    assert ours.statistic == pytest.approx(np.mean(a) - np.mean(b))
    absolute = stats.permutation_test(a, b, resamples=resamples, two_sided="absolute")
    assert absolute.p_value == pytest.approx(brute_force_absolute_p(a, b), rel=1e-12)


def test_the_two_definitions_differ_where_the_null_is_skewed():
    """Doubling the smaller tail is not counting |perm| >= |obs|: on a skewed null the two
    p-values differ (scipy's is the authors')."""
    a, b = FIXED[0]
    resamples = math.comb(len(a) + len(b), len(a))
    doubled = stats.permutation_test(a, b, resamples=resamples).p_value
    absolute = stats.permutation_test(a, b, resamples=resamples, two_sided="absolute").p_value
    assert doubled != pytest.approx(absolute)


@pytest.mark.parametrize("seed", range(3))
def test_monte_carlo_agrees_with_scipy_within_its_error(seed):
    rng = np.random.default_rng(seed)
    a = rng.choice(RR, 40, p=[0.2, 0.1, 0.05, 0.05, 0.05, 0.05, 0.5])
    b = rng.choice(RR, 45, p=[0.12, 0.08, 0.05, 0.05, 0.05, 0.05, 0.6])
    resamples = 4000  # small, for speed: both are Monte-Carlo estimates of one p
    ours = stats.permutation_test(a, b, resamples=resamples, seed=seed)
    assert "exact" not in ours.method
    theirs = scipy_unpaired_p(a, b, resamples, seed)
    p = (ours.p_value + theirs) / 2
    sd = math.sqrt(2 * 2 * p * (1 - p / 2) / resamples)  # two doubled tail estimates
    assert abs(ours.p_value - theirs) <= 5 * sd + 2 / resamples, (ours.p_value, theirs)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="two_sided"):
        stats.permutation_test([1.0], [0.0], two_sided="both")
    with pytest.raises(ValueError, match="finite"):
        stats.permutation_test([1.0, math.nan], [0.0])


def scan_pair(n: int = 80, seed: int = 5):
    rng = np.random.default_rng(seed)
    a = rng.choice(RR, n, p=[0.25, 0.1, 0.05, 0.05, 0.05, 0.05, 0.45])
    b = rng.choice(RR, n, p=[0.1, 0.05, 0.05, 0.05, 0.05, 0.05, 0.65])
    return a, b


def test_compare_shows_the_scan_papers_test_beside_the_paired_ones():
    a, b = scan_pair()
    c = a[::-1].copy()
    runs = [
        run_of(name, [x == 1.0 for x in values], values.tolist(), benchmark="scan")
        for name, values in (("lm-a", a), ("lm-b", b), ("lm-c", c))
    ]
    resamples = 20_000
    [paper] = paper_tests("scan", resamples)
    comparison = compare_runs(runs, resamples=2000, paper=[paper])
    ours = [p for p in comparison.pairs if p.family == "SCAN paper"]
    assert len(ours) == 3 and {p.metric for p in ours} == {"score"}
    assert {p.test for p in ours} == {"unpaired permutation (SCAN paper)"}
    expected = stats.permutation_test(a, b, resamples=resamples, seed=0).p_value
    first = next(p for p in ours if (p.a, p.b) == ("lm-a", "lm-b"))
    assert first.p_value == expected and first.used == 80
    # Holm within the paper's family only, not mixed with the paired tests'.
    assert [p.p_holm for p in ours] == pytest.approx(holm([p.p_value for p in ours]))
    paired = [p for p in comparison.pairs if p.family == "lexbench" and p.metric == "score"]
    assert len(paired) == 3 and all(p.test == "paired permutation" for p in paired)
    assert comparison.paper_tests == (
        "unpaired permutation (SCAN paper): 20,000 resamples, two-sided p doubled (scipy's)",
    )
    # Declared by the spec: SCAN and the ranking classic sets, at 10^6; not LAMBDA or SAT.
    for name in ("scan", "google", "bats", "pairs"):
        assert [t.resamples for t in paper_tests(name)] == [1_000_000]
    assert paper_tests("lambda") == [] and paper_tests("sat") == [] and paper_tests("scan", 0) == []
    lambda_runs = [run_of(r.label, [x == 1.0 for x in v]) for r, v in zip(runs, (a, b, c))]
    assert all(p.family == "lexbench" for p in compare_runs(lambda_runs, resamples=500).pairs)


def test_compare_command_options_for_the_papers_test(tmp_path, capsys):
    from test_report_runs import write_graded_run

    a, b = scan_pair(30)
    ids = [f"q{k}" for k in range(30)]
    x = write_graded_run(tmp_path / "x", "lm-a", a.tolist(), ids=ids, benchmark="scan")
    y = write_graded_run(tmp_path / "y", "lm-b", b.tolist(), ids=ids, benchmark="scan")
    argv = ["compare", str(x), str(y), "--resamples", "500", "--format", "json"]
    assert main([*argv, "--paper-resamples", "3000", "--paper-two-sided", "absolute"]) == 0
    result = json.loads(capsys.readouterr().out)
    [paper] = [p for p in result["comparisons"] if p["family"] == "SCAN paper"]
    expected = stats.permutation_test(a, b, resamples=3000, two_sided="absolute")
    assert paper["p_value"] == expected.p_value
    assert result["paper_tests"] == [
        "unpaired permutation (SCAN paper): 3,000 resamples, two-sided p absolute (|perm| >= |obs|)"
    ]
    assert main([*argv, "--paper-resamples", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["paper_tests"] == [] and {p["family"] for p in result["comparisons"]} == {
        "lexbench"
    }
    assert main(["compare", str(x), str(y), "--resamples", "500", "--paper-resamples", "2000"]) == 0
    assert "Paper's test: unpaired permutation (SCAN paper)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([*argv, "--paper-resamples", "-1"])


def test_a_papers_test_on_accuracy_does_not_repeat_the_warnings_and_notes(tmp_path):
    """Right/wrong runs: the SCAN paper test falls back to accuracy, beside lexbench's
    McNemar; the id-only warning and the spread note are each given once."""
    from dataclasses import replace as with_path

    correct_a = [k % 2 == 0 for k in range(20)]
    correct_b = [k % 3 == 0 for k in range(20)]
    a = run_of("lm-a", correct_a, benchmark="scan")
    b = run_of("lm-b", correct_b, benchmark="scan")
    for k, row in enumerate(b.samples):  # the same ids, other questions for the last five
        row["a"] = "other" if k >= 15 else None
    spread = {"kind": "sets", "summary": {"overall": {"sd": 0.5, "n": 3}}}
    folder = tmp_path / "scan" / "lm-a" / "run"
    (folder.parent / "robustness").mkdir(parents=True)
    (folder.parent / "robustness" / "sets-run.json").write_text(json.dumps(spread))
    a = with_path(a, path=folder)
    [paper] = paper_tests("scan", 200)
    comparison = compare_runs([a, b], resamples=200, paper=[paper])
    assert {p.family for p in comparison.pairs} == {"lexbench", "SCAN paper"}
    assert {p.metric for p in comparison.pairs} == {"accuracy"}
    id_only = [w for w in comparison.warnings if "ask different questions" in w]
    notes = [w for w in comparison.warnings if "SD across fresh item sets" in w]
    assert len(id_only) == 1 and len(notes) == 1
