"""Comparing models honestly: paired tests on shared items, and a leaderboard.

Two runs of one benchmark are compared on the items both answered (both `correct` not
null), matched by item content: the sample id plus a hash of the item's question fields
(`lexbench.report.runs.item_key`). Runs whose ids agree but whose questions differ (items
generated with another seed) share no items and are refused; runs whose dataset hashes
differ are compared on the items they share, with a loud warning (`Comparison.warnings`,
printed on stderr by `lexbench compare` and shown above the tables).

* accuracy: exact McNemar (only the discordant items carry information);
* a graded score (`value` not just 0/1, e.g. SCAN's reciprocal rank): the paired
  permutation test (random sign flips of the per-item differences);
* each difference comes with a paired bootstrap 95% interval (items resampled as pairs);
* with several comparisons, Holm's step-down adjustment per metric controls the
  family-wise error rate (`p_holm`);
* a benchmark may declare the tests its paper used (`BenchmarkSpec.comparison_tests`, e.g.
  SCAN's unpaired permutation test with 10^6 resamples): they run on the same shared
  items, beside the paired tests, labelled as the paper's, each its own Holm family.

The leaderboard beside the tests is `lexbench.report.standings`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from lexbench.report.paired_stats import holm, paired_bootstrap_mean
from lexbench.report.paper_tests import PaperTest, paper_tests
from lexbench.report.runs import LoadedRun, dataset_hashes, failure_flag, item_key
from lexbench.report.standings import Standing, is_graded, leaderboard, scorable
from lexbench.robustness.report import spread_notes
from lexbench.stats import Interval, mcnemar_exact, paired_permutation_test


def check_same_benchmark(runs: Sequence[LoadedRun]) -> str:
    """The one benchmark all runs share, or a ValueError that names the mix."""
    names = sorted({run.benchmark for run in runs})
    if len(names) > 1:
        listing = "; ".join(f"{run.path} is {run.benchmark!r}" for run in runs)
        raise ValueError(
            f"cannot compare runs of different benchmarks ({', '.join(names)}): "
            f"{listing}. Compare runs of one benchmark at a time."
        )
    return names[0]


@dataclass(frozen=True)
class PairedComparison:
    """Run `a` against run `b` on one metric, over their shared scorable items."""

    a: str
    b: str
    metric: str
    test: str
    shared: int  # ids in both runs
    used: int  # shared ids scorable in both
    mean_a: float
    mean_b: float
    difference: Interval  # mean(a - b) with its paired bootstrap interval
    statistic: float
    p_value: float
    p_holm: float
    only_a: int | None = None  # McNemar's discordant counts
    only_b: int | None = None
    id_only: int = 0  # ids in both runs whose questions differ (not paired)
    family: str = "lexbench"  # whose test: lexbench's paired ones, or a paper's (by name)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["difference"] = self.difference.to_dict()
        return out


@dataclass(frozen=True)
class Comparison:
    benchmark: str
    metrics: tuple[str, ...]
    leaderboard: tuple[Standing, ...]
    pairs: tuple[PairedComparison, ...]
    resamples: int
    seed: int
    warnings: tuple[str, ...] = ()
    paper_tests: tuple[str, ...] = ()  # "label: N resamples, two-sided ..." per paper test
    #: What the graded metric ("score") is called on the page: the benchmark's headline
    #: name where it is not accuracy (SCAN: "MRR@10"), else "score".
    value_name: str = "score"

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "metrics": list(self.metrics),
            "value_name": self.value_name,
            "resamples": self.resamples,
            "seed": self.seed,
            "paper_tests": list(self.paper_tests),
            "warnings": list(self.warnings),
            "leaderboard": [s.to_dict() for s in self.leaderboard],
            "comparisons": [p.to_dict() for p in self.pairs],
        }


def dataset_warnings(runs: Sequence[LoadedRun]) -> list[str]:
    """A warning per run whose dataset hashes differ from the first run's: that one run
    holds a subset of the other's items (another --limit), or that the datasets differ."""
    first = dataset_hashes(runs[0].config)
    first_keys = {item_key(runs[0].benchmark, row) for row in runs[0].samples}
    out = []
    for run in runs[1:]:
        other = dataset_hashes(run.config)
        differing = sorted(k for k in first.keys() | other.keys() if first.get(k) != other.get(k))
        keys = {item_key(run.benchmark, row) for row in run.samples}
        if differing and keys != first_keys and (keys <= first_keys or first_keys <= keys):
            small, large = (run, runs[0]) if keys <= first_keys else (runs[0], run)
            shared = len(keys & first_keys)
            out.append(
                f"one run holds a subset of the other's items: {small.label!r} has "
                f"{len(small.samples)} items, all of them in {large.label!r} "
                f"({len(large.samples)}; a smaller --limit gives this): compared on "
                f"the {shared} shared items"
            )
        elif differing:
            shown = ", ".join(
                f"{k} {str(first.get(k, '-'))[:12]} vs {str(other.get(k, '-'))[:12]}"
                for k in differing[:2]
            )
            out.append(
                f"runs {runs[0].label!r} and {run.label!r} were made from different "
                f"datasets ({shown}): only items with the same id and the same question "
                f"are paired"
            )
    return out


def compare_pair(
    a: LoadedRun,
    b: LoadedRun,
    metric: str,
    resamples: int = 10_000,
    seed: int = 0,
    paper: PaperTest | None = None,
) -> PairedComparison:
    """One paired comparison; `metric` is "accuracy" (McNemar) or "score" (permutation).
    With `paper`, the p-value is that test's on the same items' values instead."""
    scored_a, scored_b = scorable(a, metric), scorable(b, metric)
    shared = {item_key(a.benchmark, r) for r in a.samples} & {
        item_key(b.benchmark, r) for r in b.samples
    }
    same_ids = {str(r["id"]) for r in a.samples} & {str(r["id"]) for r in b.samples}
    id_only = len(same_ids) - len({key.rpartition("#")[0] for key in shared})
    if not shared:
        if same_ids:
            raise ValueError(
                f"runs {a.label!r} ({a.path}) and {b.label!r} ({b.path}) share "
                f"{len(same_ids)} item ids but not one question: their items "
                f"were generated differently (another --seed, profile or data "
                f"file); paired tests need the same items"
            )
        raise ValueError(
            f"runs {a.label!r} ({a.path}) and {b.label!r} ({b.path}) share no "
            f"sample ids; paired tests need the same items"
        )
    ids = sorted(i for i in shared if i in scored_a and i in scored_b)
    if not ids:
        raise ValueError(
            f"runs {a.label!r} and {b.label!r} share {len(shared)} items but none "
            f"is scorable in both (correct or value is null)"
        )
    if metric == "accuracy":
        xa = [bool(scored_a[i]["correct"]) for i in ids]
        xb = [bool(scored_b[i]["correct"]) for i in ids]
        test = mcnemar_exact(xa, xb)
        only_a: int | None = sum(1 for x, y in zip(xa, xb) if x and not y)
        only_b: int | None = sum(1 for x, y in zip(xa, xb) if y and not x)
        va, vb = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
    elif metric == "score":
        va = np.asarray([float(scored_a[i]["value"]) for i in ids])
        vb = np.asarray([float(scored_b[i]["value"]) for i in ids])
        test = paired_permutation_test(va.tolist(), vb.tolist(), resamples=resamples, seed=seed)
        only_a = only_b = None
    else:
        raise ValueError(f"unknown metric {metric!r}; choose accuracy or score")
    family = "lexbench"
    if paper is not None:
        test = paper.test.run(
            va.tolist(),
            vb.tolist(),
            resamples=paper.resamples,
            seed=seed,
            two_sided=paper.two_sided,
        )
        family = paper.test.name
    difference = paired_bootstrap_mean(va - vb, resamples, seed)
    return PairedComparison(
        a=a.label,
        b=b.label,
        metric=metric,
        test=paper.test.label if paper is not None else test.method,
        shared=len(shared),
        used=len(ids),
        mean_a=float(va.mean()),
        mean_b=float(vb.mean()),
        difference=difference,
        statistic=test.statistic,
        p_value=test.p_value,
        p_holm=test.p_value,
        only_a=only_a,
        only_b=only_b,
        id_only=id_only,
        family=family,
    )


def compare_runs(
    runs: Sequence[LoadedRun],
    *,
    resamples: int = 10_000,
    seed: int = 0,
    baseline: str | None = None,
    paper: Sequence[PaperTest] | None = None,
) -> Comparison:
    """Leaderboard and paired comparisons: every pair, or each run against `baseline`.

    `baseline` is a run label or path (as given on the command line). `paper`: the paper
    tests to run beside the paired ones (default: those the benchmark declares, at their
    own resample counts; [] for none).
    """
    if len(runs) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(runs)}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    benchmark = check_same_benchmark(runs)
    for run in runs:  # its scores are failures, not the model's: nothing to test
        if (flag := failure_flag(run)).startswith("every"):
            raise ValueError(
                f"run {run.label!r} ({run.path}): {flag}; nothing of the model's to compare "
                "(fix the problem and run the same command again)"
            )
    graded = is_graded(runs)
    metrics = ("accuracy", "score") if graded else ("accuracy",)
    if baseline is None:
        pairs = list(combinations(runs, 2))
    else:
        as_path = Path(baseline).resolve()
        chosen = [
            r for r in runs if baseline in (r.label, r.path.name) or r.path.resolve() == as_path
        ]
        if not chosen:
            raise ValueError(
                f"baseline {baseline!r} is none of the runs: {', '.join(r.label for r in runs)}"
            )
        pairs = [(chosen[0], r) for r in runs if r is not chosen[0]]
    results: list[PairedComparison] = []
    for metric in metrics:
        family = [compare_pair(a, b, metric, resamples, seed) for a, b in pairs]
        adjusted = holm([c.p_value for c in family])
        results.extend(replace(c, p_holm=p) for c, p in zip(family, adjusted))
    chosen_paper = paper_tests(benchmark) if paper is None else list(paper)
    for extra in chosen_paper:  # on its metric's values; right/wrong when nothing is graded
        metric = extra.test.metric if extra.test.metric in metrics else "accuracy"
        family = [compare_pair(a, b, metric, resamples, seed, extra) for a, b in pairs]
        adjusted = holm([c.p_value for c in family])
        results.extend(replace(c, p_holm=p) for c, p in zip(family, adjusted))
    warnings = dataset_warnings(runs)
    warnings += [
        f"{c.id_only} item ids of {c.a!r} and {c.b!r} ask different questions and "
        f"are left out of their comparison"
        for c in results
        if c.id_only and c.metric == metrics[0] and c.family == "lexbench"
    ]
    warnings += spread_notes(results, runs)
    return Comparison(
        benchmark,
        metrics,
        tuple(leaderboard(runs, graded, resamples, seed)),
        tuple(results),
        resamples,
        seed,
        tuple(warnings),
        tuple(extra.describe() for extra in chosen_paper),
        value_name(runs[0]) if graded else "score",
    )


def value_name(run: LoadedRun) -> str:
    """The name of a run's graded values: its benchmark's headline metric where that is not
    accuracy (SCAN's reciprocal ranks average to "MRR@10"), else "score"."""
    from lexbench import plugins

    spec = plugins.spec_for_run(run.benchmark)
    row = spec.headline(run) if spec is not None and spec.headline is not None else None
    return row.metric if row is not None and row.metric != "accuracy" else "score"
