"""LAMBDA's tables: accuracy with intervals, the error taxonomy and the paper's analyses.

`dataset_statistics` needs only items (query length, part of speech, candidate-set size);
`summarize` adds accuracy overall and per relation (Wald and Wilson 95%), the taxonomy
counts per relation and accuracy by query length with Spearman's rho (all lengths, and
lengths with at least `MIN_ITEMS_PER_LENGTH` items); for sampled runs, every sample's
accuracy with the mean and SD across samples (`sampling_summary`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.parts import NOT_AVAILABLE, interval_text, is_number, p_text, pct
from lexbench.stats import describe, spearman, wald_interval, wilson_interval
from lexbench.types import Score

MIN_ITEMS_PER_LENGTH = 5


def _accuracy(correct: Sequence[bool]) -> dict[str, Any]:
    n = len(correct)
    k = sum(1 for c in correct if c)
    return {
        "n": n,
        "correct": k,
        "accuracy": k / n if n else float("nan"),
        "wald": wald_interval(k, n).to_dict(),
        "wilson": wilson_interval(k, n).to_dict(),
    }


def dataset_statistics(items: Sequence[Any]) -> dict[str, Any]:
    """The paper's dataset analyses: query length, query POS and candidate-set size."""
    by_relation: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        by_relation[item.relation].append(item)
    lengths = [item.query_length for item in items]
    return {
        "items": len(items),
        "query_length": {
            **describe(lengths),
            "longer_than_15": sum(1 for n in lengths if n > 15),
            "count_per_length": {str(k): v for k, v in sorted(Counter(lengths).items())},
        },
        "query_length_by_relation": {
            r: describe([i.query_length for i in rows]) for r, rows in by_relation.items()
        },
        "query_pos_by_relation": {
            r: dict(sorted(Counter(i.query_pos or "?" for i in rows).items()))
            for r, rows in by_relation.items()
        },
        "candidate_set_size_by_relation": {
            r: describe([len(i.candidates) for i in rows]) for r, rows in by_relation.items()
        },
    }


def accuracy_by_length(items: Sequence[Any], scores: Sequence[Score]) -> dict[str, Any]:
    """Accuracy per query length, and Spearman's rho between length and that accuracy."""
    per_length: dict[int, list[bool]] = defaultdict(list)
    for item, score in zip(items, scores):
        if score.correct is not None:
            per_length[item.query_length].append(bool(score.correct))
    table = {
        str(n): {"n": len(v), "accuracy": sum(v) / len(v)} for n, v in sorted(per_length.items())
    }
    all_lengths = sorted(per_length)
    kept = [n for n in all_lengths if len(per_length[n]) >= MIN_ITEMS_PER_LENGTH]
    rho_all = spearman(all_lengths, [sum(per_length[n]) / len(per_length[n]) for n in all_lengths])
    rho_kept = spearman(kept, [sum(per_length[n]) / len(per_length[n]) for n in kept])
    return {
        "table": table,
        "spearman_all_lengths": rho_all.to_dict(),
        "spearman_min_items": MIN_ITEMS_PER_LENGTH,
        "spearman_lengths_with_min_items": rho_kept.to_dict(),
    }


def sampling_summary(items: Sequence[Any], scores: Sequence[Score]) -> dict[str, Any] | None:
    """Per-sample accuracy (overall and per relation) and the mean, SD (n - 1) and range
    across samples, from each score's `details["samples"]`; None for a greedy run."""
    if not scores or "samples" not in scores[0].details:
        return None
    seeds = [s["seed"] for s in scores[0].details["samples"]]
    relations = list(dict.fromkeys(i.relation for i in items))
    per_sample = []
    for k, seed in enumerate(seeds):
        verdicts = [
            (item.relation, score.details["samples"][k]["correct"])
            for item, score in zip(items, scores)
        ]
        scored = [(r, c) for r, c in verdicts if c is not None]
        per_sample.append(
            {
                "seed": seed,
                "overall": _accuracy([bool(c) for _, c in scored]),
                "per_relation": {
                    r: _accuracy([bool(c) for rr, c in scored if rr == r]) for r in relations
                },
                "failed_requests": len(verdicts) - len(scored),
            }
        )

    def spread(values: list[float]) -> dict[str, float]:
        mean = sum(values) / len(values)
        sd = (
            (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
            if len(values) > 1
            else float("nan")
        )
        return {
            "mean": mean,
            "sd": sd,
            "min": min(values),
            "max": max(values),
            "range": max(values) - min(values),
        }

    return {
        "per_sample": per_sample,
        "overall": spread([s["overall"]["accuracy"] for s in per_sample]),
        "per_relation": {
            r: spread([s["per_relation"][r]["accuracy"] for s in per_sample]) for r in relations
        },
    }


def summarize(items: Sequence[Any], scores: Sequence[Score]) -> dict[str, Any]:
    if len(items) != len(scores):
        raise ValueError(f"{len(items)} items but {len(scores)} scores")
    scored = [(i, s) for i, s in zip(items, scores) if s.correct is not None]
    relations = list(dict.fromkeys(i.relation for i in items))
    per_relation = {
        r: _accuracy([bool(s.correct) for i, s in scored if i.relation == r]) for r in relations
    }
    taxonomy = {
        r: dict(
            sorted(
                Counter(
                    s.error_class
                    for i, s in zip(items, scores)
                    if i.relation == r and s.correct is not True
                ).items()
            )
        )
        for r in relations
    }
    out = {
        "benchmark": "lambda",
        "overall": _accuracy([bool(s.correct) for _, s in scored]),
        "per_relation": per_relation,
        "failed_requests": sum(1 for s in scores if s.correct is None),
        "error_taxonomy": taxonomy,
        "accuracy_by_query_length": accuracy_by_length(items, scores),
        "dataset": dataset_statistics(items),
    }
    sampling = sampling_summary(items, scores)
    if sampling is not None:
        out["sampling"] = sampling
    return out


def _pct(value: float) -> str:
    return pct(value)  # "n/a" where nothing was scored


def _interval(block: Mapping[str, Any], key: str) -> str:
    ci = block[key]
    return interval_text(ci["low"], ci["high"], pct)


def rho_text(rho: Mapping[str, Any]) -> str:
    """Spearman's rho with its p and the lengths it is over; "n/a" and why where it is
    undefined (fewer than 3 lengths, or the same accuracy at every length)."""
    n = rho.get("n", 0)
    if is_number(rho.get("rho")):
        return f"{rho['rho']:.3f} (p={p_text(rho.get('p_value'))}, {n} lengths)"
    if n < 3:
        return f"{NOT_AVAILABLE} (undefined: {n} lengths, it needs 3)"
    return f"{NOT_AVAILABLE} (undefined: the same accuracy at all {n} lengths)"


def accuracy_table(results: Mapping[str, Any]) -> str:
    lines = ["| relation | n | accuracy % | Wald 95% | Wilson 95% |", "|---|---:|---:|---|---|"]
    rows = [*list(results["per_relation"].items()), ("overall", results["overall"])]
    for name, block in rows:
        label = f"**{name}**" if name == "overall" else name
        lines.append(
            f"| {label} | {block['n']} | {_pct(block['accuracy'])} | "
            f"{_interval(block, 'wald')} | {_interval(block, 'wilson')} |"
        )
    return "\n".join(lines)


def taxonomy_table(results: Mapping[str, Any]) -> str:
    from lexbench.benchmarks.lambda_.taxonomy import ERROR_CLASSES

    classes = [c for c in ERROR_CLASSES] + sorted(
        {c for t in results["error_taxonomy"].values() for c in t} - set(ERROR_CLASSES)
    )
    lines = ["| relation | " + " | ".join(classes) + " |", "|---|" + "---:|" * len(classes)]
    for relation, counts in results["error_taxonomy"].items():
        lines.append(f"| {relation} | " + " | ".join(str(counts.get(c, 0)) for c in classes) + " |")
    return "\n".join(lines)


def dataset_tables(stats: Mapping[str, Any]) -> str:
    q = stats["query_length"]
    out = [
        f"Query length: mean {q['mean']:.2f}, median {q['median']:g}, 90th percentile "
        f"{q['p90']:g}, min {q['min']:g}, max {q['max']:g}, longer than 15: {q['longer_than_15']}",
        "",
        "| relation | candidate-set size mean | SD | min | max | query POS |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for relation, size in stats["candidate_set_size_by_relation"].items():
        pos = ", ".join(f"{k} {v}" for k, v in stats["query_pos_by_relation"][relation].items())
        out.append(
            f"| {relation} | {size['mean']:.2f} | {size['sd']:.2f} | {size['min']:g} | "
            f"{size['max']:g} | {pos} |"
        )
    counts = ", ".join(f"{k}: {v}" for k, v in q["count_per_length"].items())
    out += ["", f"Items per query length: {counts}"]
    return "\n".join(out)


def length_section(block: Mapping[str, Any]) -> str:
    rho_all = block["spearman_all_lengths"]
    rho_kept = block["spearman_lengths_with_min_items"]
    cells = ", ".join(
        f"{n}: {_pct(v['accuracy'])}% (n={v['n']})" for n, v in block["table"].items()
    )
    return (
        f"Accuracy by query length: {cells}\n\n"
        f"Spearman rho (length vs accuracy), all lengths: {rho_text(rho_all)}; lengths with "
        f"at least {block['spearman_min_items']} items: {rho_text(rho_kept)}"
    )


def sampling_section(block: Mapping[str, Any]) -> str:
    """Every sample's accuracy, then mean ± SD and range across samples."""
    relations = list(block["per_relation"])
    lines = [
        f"Temperature {block.get('temperature', '?')}, top-p {block.get('top_p', '?')}, "
        f"{len(block['per_sample'])} samples (seed per sample; the tables above are the "
        f"first sample's).",
        "",
        "| sample (seed) | " + " | ".join(relations) + " | **overall** |",
        "|---|" + "---:|" * (len(relations) + 1),
    ]
    for sample in block["per_sample"]:
        cells = [_pct(sample["per_relation"][r]["accuracy"]) for r in relations]
        lines.append(
            f"| {sample['seed']} | "
            + " | ".join(cells)
            + f" | **{_pct(sample['overall']['accuracy'])}** |"
        )
    for label, key in (("mean", "mean"), ("SD", "sd"), ("max − min", "range")):
        cells = [_pct(block["per_relation"][r][key]) for r in relations]
        lines.append(
            f"| {label} | " + " | ".join(cells) + f" | **{_pct(block['overall'][key])}** |"
        )
    return "\n".join(lines)


TAXONOMY_NOTE = (
    "Classes are assigned automatically, first match wins: no_answer (no word in the output); "
    "format_failure (starts as prose or scaffolding: 'The answer…', 'to make'); identity_echo "
    "(repeats the query, respelt, misspelt, or cut off by the token budget: 'desec' for "
    "desecrate); surface_misfire (a form change of the query: a shared WordNet base form or an "
    "affix added or swapped); semantic_drift (related in meaning but not in R(E): WordNet "
    "relations within two links, similar-to, also-see, Wu-Palmer, glosses, graded GloVe "
    "cosine); support_copy (repeats a support word); semantic_drift again for a near miss of "
    "R(E) itself (close to one of the right answers); other."
)


def report_markdown(results: Mapping[str, Any], title: str = "LAMBDA") -> str:
    parts = [f"# {title}", "", "## Accuracy (95% intervals)", "", accuracy_table(results), ""]
    if results.get("failed_requests"):
        parts += [f"Failed requests (not scored): {results['failed_requests']}", ""]
    if results.get("graded"):
        from lexbench.benchmarks.lambda_.graded import graded_section

        parts += ["## Graded credit (a second score)", "", graded_section(results["graded"]), ""]
    if results.get("sampling"):
        parts += [
            "## Sampling (robustness across seeds)",
            "",
            sampling_section(results["sampling"]),
            "",
        ]
    parts += [
        "## Error taxonomy (wrong answers)",
        "",
        taxonomy_table(results),
        "",
        TAXONOMY_NOTE,
        "",
        "## Query length",
        "",
        length_section(results["accuracy_by_query_length"]),
        "",
        "## Dataset",
        "",
        dataset_tables(results["dataset"]),
        "",
    ]
    run = results.get("run")
    if run:
        parts += [
            f"Requests: {run['requests']} ({run['cached']} from cache, {run['sent']} sent, "
            f"{run['failed']} failed) in {run['seconds']:.1f}s",
            "",
        ]
    return "\n".join(parts)
