"""Tables, figures and significance tests of the ranking analogy benchmarks (SCAN, Google,
BATS, pair files, SAT): MRR@10, acc@1 and recall@5/@10 overall, per type and per mapping,
with standard errors clustered by mapping, and permutation tests between runs.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.parts import NOT_AVAILABLE, fmt, is_number, p_text, shown
from lexbench.stats import clustered_mean_interval, paired_permutation_test, permutation_test
from lexbench.types import Score

METRICS = ("mrr", "acc_at_1", "recall_at_5", "recall_at_10")
METRIC_LABELS = {
    "mrr": "MRR@10",
    "acc_at_1": "acc@1",
    "recall_at_5": "recall@5",
    "recall_at_10": "recall@10",
}


def item_metrics(score: Score) -> dict[str, float]:
    """The four per-item metrics (0 for an unscorable item counted as wrong)."""
    rank = score.details.get("rank")
    return {
        "mrr": score.value,
        "acc_at_1": 1.0 if rank == 1 else 0.0,
        "recall_at_5": float(score.details.get("recall_at_5") or 0.0),
        "recall_at_10": float(score.details.get("recall_at_10") or 0.0),
    }


def group_table(
    items: Sequence[Any], scores: Sequence[Score], label: str, metrics: Sequence[str] = METRICS
) -> dict[str, Any]:
    scored = [(item, score) for item, score in zip(items, scores) if score.correct is not None]
    clusters = [item.mapping for item, _ in scored]
    table: dict[str, Any] = {
        "n": len(items),
        "scored": len(scored),
        "coverage": len(scored) / len(items) if items else math.nan,
    }
    per_item = [item_metrics(score) for _, score in scored]
    for metric in metrics:
        table[metric] = clustered_mean_interval([m[metric] for m in per_item], clusters, label)
    return table


def summarize(
    name: str,
    items: Sequence[Any],
    scores: Sequence[Score],
    *,
    cluster_label: str = "mapping",
    per_mapping: bool = True,
    metrics: Sequence[str] = METRICS,
) -> dict[str, Any]:
    """results.json body: metrics overall and per type (and per mapping), error classes."""
    by_type: dict[str, list[int]] = defaultdict(list)
    by_mapping: dict[str, list[int]] = defaultdict(list)
    for position, item in enumerate(items):
        by_type[item.type].append(position)
        by_mapping[item.mapping].append(position)

    def subset(positions: list[int]) -> dict[str, Any]:
        return group_table(
            [items[p] for p in positions], [scores[p] for p in positions], cluster_label, metrics
        )

    results: dict[str, Any] = {
        "benchmark": name,
        "metrics": list(metrics),
        "overall": group_table(items, scores, cluster_label, metrics),
        "by_type": {t: subset(p) for t, p in sorted(by_type.items())},
        "error_classes": dict(sorted(Counter(s.error_class for s in scores).items())),
        "cluster": cluster_label,
    }
    if per_mapping:
        results["by_mapping"] = {
            m: {
                "type": items[p[0]].type,
                "n": len(p),
                "mrr": sum(
                    item_metrics(scores[i])["mrr"] for i in p if scores[i].correct is not None
                )
                / max(1, sum(1 for i in p if scores[i].correct is not None)),
                "scored": sum(1 for i in p if scores[i].correct is not None),
            }
            for m, p in sorted(by_mapping.items())
        }
    return results


def _cell(block: Mapping[str, Any]) -> str:
    """ "0.083 ± 0.012"; "n/a" where nothing was scored, "± n/a" where the SE is undefined."""
    if block.get("n", 0) == 0 or not is_number(block["estimate"]):
        return NOT_AVAILABLE
    return f"{fmt(block['estimate'])} ± {fmt(block['se'])}"


def metrics_table(results: Mapping[str, Any]) -> str:
    metrics = results.get("metrics", METRICS)
    rows = [("overall", results["overall"]), *list(results["by_type"].items())]
    lines = [
        "| group | n | scored | " + " | ".join(METRIC_LABELS[m] for m in metrics) + " |",
        "|---|---:|---:|" + "---:|" * len(metrics),
    ]
    for label, block in rows:
        lines.append(
            f"| {label} | {block['n']} | {block['scored']} | "
            + " | ".join(_cell(block[m]) for m in metrics)
            + " |"
        )
    return "\n".join(lines)


def report_markdown(results: Mapping[str, Any], title: str | None = None) -> str:
    name = title or str(results.get("benchmark", "analogies")).upper()
    cluster = results.get("cluster", "mapping")
    parts = [
        f"# {name}",
        "",
        f"Estimate ± standard error clustered by {cluster} "
        f"({results['overall']['mrr'].get('clusters', 0)} clusters); metrics over scored "
        "items; recall@k is the share of the accepted answers in the top k.",
        "",
        metrics_table(results),
        "",
        "Outcome classes: " + ", ".join(f"{k} {v}" for k, v in results["error_classes"].items()),
    ]
    mappings = results.get("by_mapping")
    if mappings:
        parts += [
            "",
            f"## MRR@10 by {cluster}",
            "",
            f"| {cluster} | type | n | MRR@10 |",
            "|---|---|---:|---:|",
        ]
        for mapping, row in sorted(mappings.items(), key=lambda kv: (-kv[1]["mrr"], kv[0])):
            parts.append(f"| {mapping} | {row['type']} | {row['n']} | {fmt(row['mrr'])} |")
    return "\n".join(parts) + "\n"


def mrr_figure(
    path: Path, results_by_label: Mapping[str, Mapping[str, Any]], *, title: str
) -> Path:
    """MRR@10 overall and per type with 95% whiskers, one series per condition."""
    from lexbench.report.figures import bar_with_intervals

    first = next(iter(results_by_label.values()))
    groups = ["overall", *first["by_type"]]

    def block(results: Mapping[str, Any], group: str) -> Mapping[str, Any]:
        return results["overall"]["mrr"] if group == "overall" else results["by_type"][group]["mrr"]

    estimates: dict[str, list[float]] = {}
    lows: list[float] = []
    highs: list[float] = []
    for label, results in results_by_label.items():
        estimates[label] = [block(results, g)["estimate"] for g in groups]
        for g in groups:
            b = block(results, g)
            lows.append(b["low"] if not math.isnan(b["low"]) else b["estimate"])
            highs.append(b["high"] if not math.isnan(b["high"]) else b["estimate"])
    single = list(results_by_label) == [""]
    # MRRs of small models sit near 0: scale the axis to the whiskers, not to 1.
    top = max([h for h in highs if not math.isnan(h)] or [1.0])
    return bar_with_intervals(
        path,
        groups,
        estimates[next(iter(estimates))],
        lows,
        highs,
        title=title,
        ylabel="MRR@10 (95% CI, clustered)",
        series=None if single else estimates,
        ylim=(0.0, min(1.0, max(0.05, 1.25 * top))),
    )


# ------------------------------------------------------------------------------ comparisons


def paired_values(
    samples_a: Sequence[Mapping[str, Any]], samples_b: Sequence[Mapping[str, Any]]
) -> tuple[list[str], list[float], list[float], list[str], list[str]]:
    """(ids, values a, values b, types, mappings) of items scored in both runs."""
    b_by_id = {row["id"]: row for row in samples_b}
    ids, va, vb, types, mappings = [], [], [], [], []
    for row in samples_a:
        other = b_by_id.get(row["id"])
        if other is None or row.get("correct") is None or other.get("correct") is None:
            continue
        ids.append(row["id"])
        va.append(float(row["value"]))
        vb.append(float(other["value"]))
        types.append(str(row.get("type", "")))
        mappings.append(str(row.get("mapping", "")))
    return ids, va, vb, types, mappings


def paired_mrr_test(
    samples_a: Sequence[Mapping[str, Any]],
    samples_b: Sequence[Mapping[str, Any]],
    *,
    resamples: int = 100_000,
    seed: int = 0,
    unpaired_resamples: int = 1_000_000,
) -> dict[str, Any]:
    """Permutation tests of the MRR difference between two runs, overall and per type.

    `p_unpaired` is the SCAN paper's test: two-sided, unpaired (the two runs' reciprocal
    ranks pooled and re-split at random), 10^6 resamples, scipy's two-sided p. Beside it,
    labelled as lexbench's:
    `p_items` flips the sign of each item's paired difference; `p_mappings`
    flips whole mappings at once (the analogies of one mapping are not independent), via the
    per-mapping sums of differences, whose mean is proportional to the MRR difference."""
    ids, va, vb, types, mappings = paired_values(samples_a, samples_b)
    if not ids:
        raise ValueError("the two runs share no scored items to compare")
    out: dict[str, Any] = {}
    groups = {"overall": list(range(len(ids)))}
    for position, kind in enumerate(types):
        groups.setdefault(kind, []).append(position)
    for group, positions in groups.items():
        a = [va[p] for p in positions]
        b = [vb[p] for p in positions]
        item_test = paired_permutation_test(a, b, resamples=resamples, seed=seed)
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for p in positions:
            sums[mappings[p]][0] += va[p]
            sums[mappings[p]][1] += vb[p]
        keys = sorted(sums)
        cluster_test = (
            paired_permutation_test(
                [sums[k][0] for k in keys],
                [sums[k][1] for k in keys],
                resamples=resamples,
                seed=seed,
            )
            if len(keys) >= 2
            else None
        )
        unpaired = permutation_test(a, b, resamples=unpaired_resamples, seed=seed)
        out[group] = {
            "n": len(positions),
            "mrr_a": sum(a) / len(a),
            "mrr_b": sum(b) / len(b),
            "difference": item_test.statistic,
            "p_unpaired": unpaired.p_value,
            "unpaired_resamples": unpaired_resamples,
            "p_items": item_test.p_value,
            "p_mappings": cluster_test.p_value if cluster_test else math.nan,
            "mappings": len(keys),
            "resamples": resamples,
        }
    return out


def comparison_markdown(
    title: str,
    conditions: Mapping[str, Mapping[str, Any]],
    tests: Mapping[str, Mapping[str, Any]],
    folders: Mapping[str, str],
) -> str:
    """The combined report: each condition's metrics side by side, then the paired tests."""
    first = next(iter(conditions.values()))
    groups = ["overall", *first["by_type"]]
    lines = [
        f"# {title}",
        "",
        "Estimate ± standard error clustered by concept mapping. p (paper): the SCAN "
        "paper's two-sided unpaired permutation test on per-item reciprocal ranks "
        "(scipy's p, as the authors': twice the smaller one-sided p); "
        "p (paired items) and p (paired mappings): lexbench's paired sign-flip tests "
        "over items and over whole concept mappings.",
        "",
    ]
    for metric in METRICS:
        lines += [
            f"## {METRIC_LABELS[metric]}",
            "",
            "| condition | " + " | ".join(groups) + " |",
            "|---|" + "---:|" * len(groups),
        ]
        for label, results in conditions.items():
            cells = [
                _cell(
                    results["overall"][metric] if g == "overall" else results["by_type"][g][metric]
                )
                for g in groups
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "## Permutation tests (MRR@10)",
        "",
        "| comparison | group | n | MRR a | MRR b | a − b | p (paper, unpaired) | "
        "p (paired items) | p (paired mappings) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, by_group in tests.items():
        for group, t in by_group.items():
            lines.append(
                f"| {name} | {group} | {t['n']} | {fmt(t['mrr_a'])} | {fmt(t['mrr_b'])} | "
                f"{shown(t['difference'], '+.3f')} | {p_text(t.get('p_unpaired'), '.2g')} | "
                f"{p_text(t['p_items'], '.2g')} | {p_text(t['p_mappings'], '.2g')} |"
            )
    first = next(iter(next(iter(tests.values())).values())) if tests else {}
    lines += [
        "",
        f"{first.get('unpaired_resamples', 0):,} resamples per unpaired test, "
        f"{first.get('resamples', 0):,} per paired test.",
        "",
        "## Run folders",
        "",
    ]
    lines += [f"- {label}: `{path}`" for label, path in folders.items()]
    return "\n".join(lines) + "\n"
