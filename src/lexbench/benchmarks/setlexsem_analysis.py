"""SetLexSem's tables: accuracy overall, the paper's spread summaries, and the error analysis.

The paper's figure of merit is the spread of accuracy across incidental variations, so most
tables summarise *per-configuration* accuracies (one configuration = every hyperparameter
fixed, `prompts_per_config` prompts): for each level of a factor, the number of
configurations, their mean and standard deviation (SD), min and max, plus the pooled
accuracy over all prompts with a Wilson 95% interval.

Which configurations feed which table (so that factors are not confounded):

* "core" = numbers and words without the overlap sampler: operation, operand size, token
  type by operation, token length, prompting method by k;
* intersection by overlap: numbers and words, intersection only, with and without overlap;
* deciles: accuracy per decile and token length, and length 5 minus length 3 per decile;
* deceptive: condition by operation;
* phrasing: formal against plain on configurations present in both phrasings (paired);
* by model: every configuration.

The error analysis (per operation and token type, over prompts) gives accuracy when the true
answer is non-empty and when it is empty, how often the model answers the empty set and how
often that is right, the share of answers with made-up members (in neither A nor B) and how
many, format failures, and the most frequent size confusions "G8 vs L7" (true size 8,
answered size 7) among wrong answers.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.stats import wilson_interval
from lexbench.types import Score

CONFIG_FIELDS = ("config_id", "token_type", "operation", "m", "token_length", "number_range",
                 "overlap", "decile", "decile_scope", "deceptive_condition", "k", "method",
                 "phrasing")
TOP_CONFUSIONS = 5


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def _mean_detail(scores: Sequence[Score], key: str) -> float:
    return sum(float(s.details.get(key, 0.0)) for s in scores) / len(scores) if scores else float("nan")


def configuration_table(items: Sequence[Any], scores: Sequence[Score]) -> list[dict[str, Any]]:
    """One record per configuration: its hyperparameters and accuracy (scored prompts only)."""
    groups: dict[str, list[tuple[Any, Score]]] = {}
    for item, score in zip(items, scores):
        groups.setdefault(item.config_id, []).append((item, score))
    out = []
    for members in groups.values():
        first = members[0][0]
        scored = [s for _, s in members if s.correct is not None]
        n = len(scored)
        correct = sum(1 for s in scored if s.correct)
        lenient = sum(1 for s in scored if s.details.get("lenient", s.details).get("correct"))
        out.append({**{f: getattr(first, f) for f in CONFIG_FIELDS},
                    "studies": list(first.studies), "n": n, "correct": correct,
                    "failed": len(members) - n,
                    "accuracy": correct / n if n else float("nan"),
                    "lenient_correct": lenient,
                    "lenient_accuracy": lenient / n if n else float("nan"),
                    "precision": _mean_detail(scored, "precision"),
                    "recall": _mean_detail(scored, "recall"),
                    "jaccard": _mean_detail(scored, "jaccard")})
    return out


def _level(value: Any, key: str = "") -> str:
    if value is None:
        return "any" if key == "token_length" else "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def spread(configs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean/SD/min/max of per-configuration accuracy, and the pooled accuracy with Wilson."""
    values = [c["accuracy"] for c in configs if c["n"]]
    mean, sd = _mean_sd(values)
    n = sum(c["n"] for c in configs)
    k = sum(c["correct"] for c in configs)
    return {"configurations": len(values), "prompts": n, "mean": mean, "sd": sd,
            "min": min(values) if values else float("nan"),
            "max": max(values) if values else float("nan"),
            "pooled": k / n if n else float("nan"),
            "wilson": wilson_interval(k, n).to_dict()}


def factor_table(configs: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of `spread` per combination of `keys`, in first-seen order of the levels."""
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for config in configs:
        groups.setdefault(tuple(config[k] for k in keys), []).append(config)

    def order(level: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple((v is None, v if not isinstance(v, str) else 0, str(v)) for v in level)

    return [{**{k: v for k, v in zip(keys, level)}, **spread(groups[level])}
            for level in sorted(groups, key=order)]


def _core(config: Mapping[str, Any]) -> bool:
    return config["token_type"] in ("numbers", "words") and config["overlap"] is None


def decile_differences(configs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per decile: mean accuracy at length 5 minus length 3 (over matched configurations)."""
    by_key: dict[tuple[Any, ...], dict[int, float]] = defaultdict(dict)
    for c in configs:
        if c["token_type"] == "deciles" and c["n"]:
            key = (c["decile"], c["decile_scope"], c["operation"], c["m"], c["k"], c["method"],
                   c["phrasing"], c["overlap"])
            by_key[key][c["token_length"]] = c["accuracy"]
    per_decile: dict[int, list[float]] = defaultdict(list)
    for key, lengths in by_key.items():
        if 3 in lengths and 5 in lengths:
            per_decile[key[0]].append(lengths[5] - lengths[3])
    rows = []
    for decile in sorted(per_decile):
        mean, sd = _mean_sd(per_decile[decile])
        rows.append({"decile": decile, "pairs": len(per_decile[decile]),
                     "length5_minus_length3": mean, "sd": sd})
    return rows


def phrasing_comparison(configs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Formal against plain on configurations that exist in both phrasings."""
    by_key: dict[tuple[Any, ...], dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for c in configs:
        if c["token_type"] in ("numbers", "words") and c["n"]:
            key = tuple(c[f] for f in CONFIG_FIELDS if f not in ("config_id", "phrasing"))
            by_key[key][c["phrasing"]] = c
    matched = [pair for pair in by_key.values() if "formal" in pair and "plain" in pair]
    if not matched:
        return {}
    formal = [p["formal"] for p in matched]
    plain = [p["plain"] for p in matched]
    differences = [p["plain"]["accuracy"] - p["formal"]["accuracy"] for p in matched]
    mean, sd = _mean_sd(differences)
    table = [{"phrasing": "formal", **spread(formal)}, {"phrasing": "plain", **spread(plain)}]
    table_by_op = factor_table(formal + plain, ("phrasing", "operation"))
    return {"table": table, "by_operation": table_by_op,
            "plain_minus_formal": {"pairs": len(matched), "mean": mean, "sd": sd}}


def error_analysis(items: Sequence[Any], scores: Sequence[Score], reading: str = "strict"
                   ) -> list[dict[str, Any]]:
    """Per (operation, token type): the issue's error measures, over prompts.

    `reading` "strict" uses the verdicts of the answer-tag protocol; "lenient" the secondary
    reading (first {...} in the output when the tag is missing)."""
    if reading not in ("strict", "lenient"):
        raise ValueError(f"unknown reading {reading!r}; choose strict or lenient")
    groups: dict[tuple[str, str], list[tuple[Any, Mapping[str, Any]]]] = {}
    for item, score in zip(items, scores):
        if score.correct is None:
            continue
        verdict = score.details if reading == "strict" else score.details.get("lenient", score.details)
        groups.setdefault((item.operation, item.token_type), []).append((item, verdict))
    rows = []
    for (operation, token_type), members in sorted(groups.items()):
        n = len(members)
        nonempty = [v for i, v in members if i.answer]
        empty_truth = [v for i, v in members if not i.answer]
        parsed = [(i, v) for i, v in members if v.get("parsed_answer") is not None]
        empty_answers = [(i, v) for i, v in parsed if not v["parsed_answer"]]
        empty_right = sum(1 for i, _ in empty_answers if not i.answer)
        hallucinating = [v for _, v in parsed if v.get("hallucinated")]
        failures = Counter(v.get("format_error") for _, v in members
                           if v.get("error_class") == "format_failure")
        confusions = Counter(f"G{len(i.answer)} vs L{v['answer_size']}"
                             for i, v in parsed if not v["correct"])
        rows.append({
            "operation": operation, "token_type": token_type, "prompts": n,
            "accuracy": sum(1 for _, v in members if v["correct"]) / n,
            "accuracy_nonempty_truth": _share(nonempty), "nonempty_truth": len(nonempty),
            "accuracy_empty_truth": _share(empty_truth), "empty_truth": len(empty_truth),
            "empty_answers": len(empty_answers),
            "empty_answers_pct": 100 * len(empty_answers) / n,
            "empty_answers_right_pct": 100 * empty_right / len(empty_answers) if empty_answers else float("nan"),
            "empty_answers_wrong_pct": (100 * (len(empty_answers) - empty_right) / len(empty_answers)
                                        if empty_answers else float("nan")),
            "hallucinated_pct": 100 * len(hallucinating) / n,
            "hallucinated_members_mean": (sum(len(v["hallucinated"]) for v in hallucinating)
                                          / len(hallucinating) if hallucinating else 0.0),
            "format_failures": sum(failures.values()),
            "format_failures_pct": 100 * sum(failures.values()) / n,
            "format_failure_reasons": dict(sorted(failures.items())),
            "top_confusions": [[label, count] for label, count in
                               sorted(confusions.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CONFUSIONS]],
        })
    return rows


def _share(verdicts: Sequence[Mapping[str, Any]]) -> float:
    return sum(1 for v in verdicts if v["correct"]) / len(verdicts) if verdicts else float("nan")


def summarize(items: Sequence[Any], scores: Sequence[Score], model: str = "model") -> dict[str, Any]:
    if len(items) != len(scores):
        raise ValueError(f"{len(items)} items but {len(scores)} scores")
    configs = configuration_table(items, scores)
    scored = [(i, s) for i, s in zip(items, scores) if s.correct is not None]
    n = len(scored)
    k = sum(1 for _, s in scored if s.correct)

    core = [c for c in configs if _core(c)]
    subsets: dict[str, tuple[Callable[[Mapping[str, Any]], bool], tuple[str, ...]]] = {
        "by_operation": (_core, ("operation",)),
        "by_operand_size": (_core, ("m",)),
        "token_type_by_operation": (_core, ("token_type", "operation")),
        "by_token_length": (_core, ("token_type", "token_length")),
        "method_by_k": (_core, ("method", "k")),
        "intersection_by_overlap": (
            lambda c: c["token_type"] in ("numbers", "words") and c["operation"] == "intersection",
            ("token_type", "overlap")),
        "by_decile": (lambda c: c["token_type"] == "deciles", ("decile", "token_length")),
        "deceptive_by_operation": (lambda c: c["token_type"] == "deceptive",
                                   ("deceptive_condition", "operation")),
    }
    tables = {name: factor_table([c for c in configs if keep(c)], keys)
              for name, (keep, keys) in subsets.items()}
    empty_truth_share = {}
    for token_type in ("numbers", "words"):
        for overlap in sorted({i.overlap for i in items if i.operation == "intersection"
                               and i.token_type == token_type}, key=lambda v: (v is not None, v or 0)):
            chosen = [i for i in items if i.operation == "intersection" and i.token_type == token_type
                      and i.overlap == overlap]
            if chosen:
                empty_truth_share[f"{token_type}/overlap={_level(overlap)}"] = (
                    sum(1 for i in chosen if not i.answer) / len(chosen))
    lenient_configs = [{**c, "accuracy": c["lenient_accuracy"], "correct": c["lenient_correct"]}
                       for c in configs]
    lenient_k = sum(c["lenient_correct"] for c in configs)
    return {
        "benchmark": "setlexsem",
        "model": model,
        # Secondary: the first {...} in the output when the answer tag is missing.
        "lenient": {"accuracy": lenient_k / n if n else float("nan"),
                    "wilson": wilson_interval(lenient_k, n).to_dict(),
                    "by_operation": factor_table([c for c in lenient_configs if _core(c)],
                                                 ("operation",)),
                    "by_token_type": factor_table(lenient_configs, ("token_type",)),
                    "error_analysis": error_analysis(items, scores, reading="lenient")},
        "overall": {"prompts": n, "correct": k, "accuracy": k / n if n else float("nan"),
                    "wilson": wilson_interval(k, n).to_dict(),
                    "precision": _mean_detail([s for _, s in scored], "precision"),
                    "recall": _mean_detail([s for _, s in scored], "recall"),
                    "jaccard": _mean_detail([s for _, s in scored], "jaccard")},
        "failed_requests": sum(1 for s in scores if s.correct is None),
        "by_model": [{"model": model, **spread(configs)}],
        "core_configurations": len(core),
        **tables,
        "intersection_empty_truth_share": empty_truth_share,
        "decile_length_difference": decile_differences(configs),
        "phrasing": phrasing_comparison(configs),
        "error_classes": dict(sorted(Counter(s.error_class for s in scores).items())),
        "error_analysis": error_analysis(items, scores),
        "configurations": configs,
    }


# ------------------------------------------------------------------------------ report


def _pct(value: float) -> str:
    return "–" if value != value else f"{100 * value:.1f}"


def _num(value: float, digits: int = 1) -> str:
    return "–" if value != value else f"{value:.{digits}f}"


def spread_table(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> str:
    header = "| " + " | ".join(keys) + " | configs | prompts | mean % | SD | min % | max % | pooled % (Wilson 95%) |"
    lines = [header, "|" + "---|" * len(keys) + "---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        w = row["wilson"]
        lines.append("| " + " | ".join(_level(row[k], k) for k in keys)
                     + f" | {row['configurations']} | {row['prompts']} | {_pct(row['mean'])} | "
                       f"{_pct(row['sd'])} | {_pct(row['min'])} | {_pct(row['max'])} | "
                       f"{_pct(row['pooled'])} [{_pct(w['low'])}, {_pct(w['high'])}] |")
    return "\n".join(lines)


def error_table(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = ["| operation | tokens | prompts | acc % | acc % (true ≠ ∅) | acc % (true = ∅) | "
             "∅ answers % | ∅ right % | ∅ wrong % | made-up % | made-up per answer | "
             "format fail % | top confusions |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        confusions = ", ".join(f"{label} ({count})" for label, count in r["top_confusions"]) or "–"
        lines.append(
            f"| {r['operation']} | {r['token_type']} | {r['prompts']} | {_pct(r['accuracy'])} | "
            f"{_pct(r['accuracy_nonempty_truth'])} (n={r['nonempty_truth']}) | "
            f"{_pct(r['accuracy_empty_truth'])} (n={r['empty_truth']}) | "
            f"{_num(r['empty_answers_pct'])} | {_num(r['empty_answers_right_pct'])} | "
            f"{_num(r['empty_answers_wrong_pct'])} | {_num(r['hallucinated_pct'])} | "
            f"{_num(r['hallucinated_members_mean'])} | {_num(r['format_failures_pct'])} | "
            f"{confusions} |")
    return "\n".join(lines)


SECTIONS = (
    ("by_model", "Accuracy by model (all configurations)", ("model",)),
    ("by_operation", "By operation (numbers and words, no overlap)", ("operation",)),
    ("by_operand_size", "By operand size m", ("m",)),
    ("token_type_by_operation", "Token type by operation", ("token_type", "operation")),
    ("by_token_length", "By token length", ("token_type", "token_length")),
    ("method_by_k", "Prompting method by number of demonstrations k", ("method", "k")),
    ("intersection_by_overlap", "Intersection with and without the overlap sampler",
     ("token_type", "overlap")),
    ("by_decile", "Frequency deciles (wordfreq; 1 = rarest)", ("decile", "token_length")),
    ("deceptive_by_operation", "Deceptive sets by condition and operation",
     ("deceptive_condition", "operation")),
)


def report_markdown(results: Mapping[str, Any], title: str = "SetLexSem") -> str:
    o = results["overall"]
    w = o["wilson"]
    parts = [f"# {title} — {results.get('model', '')}", "",
             f"Exact-set accuracy {_pct(o['accuracy'])}% [{_pct(w['low'])}, {_pct(w['high'])}] over "
             f"{o['prompts']} prompts; mean precision {_pct(o['precision'])}%, recall "
             f"{_pct(o['recall'])}%, Jaccard {_pct(o['jaccard'])}%.", "",
             "Tables give per-configuration accuracy: mean and SD across configurations (the "
             "paper's measure of robustness), min, max, and the pooled accuracy over prompts.", ""]
    if results.get("failed_requests"):
        parts += [f"Failed requests (not scored): {results['failed_requests']}", ""]
    lenient = results.get("lenient")
    if lenient:
        lw = lenient["wilson"]
        parts += [f"Lenient reading (secondary; the first {{...}} in the output when the answer "
                  f"tag is missing): {_pct(lenient['accuracy'])}% [{_pct(lw['low'])}, "
                  f"{_pct(lw['high'])}]. The tables below use the strict protocol.", ""]
    for key, heading, keys in SECTIONS:
        rows = results.get(key) or []
        if rows:
            parts += [f"## {heading}", "", spread_table(rows, keys), ""]
    shares = results.get("intersection_empty_truth_share") or {}
    if shares:
        parts += ["Share of intersection prompts whose true answer is the empty set: "
                  + ", ".join(f"{k}: {_pct(v)}%" for k, v in shares.items()), ""]
    diffs = results.get("decile_length_difference") or []
    if diffs:
        parts += ["## Decile: accuracy at length 5 minus length 3", "",
                  "| decile | matched pairs | mean difference (points) | SD |", "|---:|---:|---:|---:|"]
        parts += [f"| {d['decile']} | {d['pairs']} | {_num(100 * d['length5_minus_length3'])} | "
                  f"{_num(100 * d['sd'])} |" for d in diffs]
        parts.append("")
    phrasing = results.get("phrasing") or {}
    if phrasing:
        diff = phrasing["plain_minus_formal"]
        parts += ["## Formal against plain phrasing (matched configurations)", "",
                  spread_table(phrasing["table"], ("phrasing",)), "",
                  f"Plain minus formal: {_num(100 * diff['mean'])} points (SD {_num(100 * diff['sd'])}) "
                  f"over {diff['pairs']} matched configuration pairs.", "",
                  spread_table(phrasing["by_operation"], ("phrasing", "operation")), ""]
    parts += ["## Error analysis (per operation and token type, over prompts)", "",
              error_table(results["error_analysis"]), "",
              "∅ answers: responses that were the empty set; ∅ right/wrong: the share of those "
              "whose true answer was / was not empty. Made-up: answers with a member in neither A "
              "nor B (and how many such members on average). Confusions: true size G vs answered "
              "size L among wrong parsed answers.", "",
              "Error classes: " + ", ".join(f"{k} {v}" for k, v in results["error_classes"].items()), ""]
    strict_failures = sum(r["format_failures"] for r in results["error_analysis"])
    if lenient and sum(r["format_failures"] for r in lenient.get("error_analysis", [])) < strict_failures:
        parts += ["## Error analysis, lenient reading (secondary)", "",
                  error_table(lenient["error_analysis"]), ""]
    run = results.get("run")
    if run:
        parts += [f"Requests: {run['requests']} ({run['cached']} from cache, {run['sent']} sent, "
                  f"{run['failed']} failed) in {run['seconds']:.1f}s", ""]
    return "\n".join(parts)


# ------------------------------------------------------------------------------ figures

VIOLINS = (
    ("operation", "by operation", lambda c: _core(c), lambda c: c["operation"]),
    ("operand_size", "by operand size m", lambda c: _core(c), lambda c: f"m={c['m']}"),
    ("token_type", "by token type", lambda c: True,
     lambda c: c["token_type"] if c["overlap"] is None else f"{c['token_type']} (overlap)"),
    ("token_length", "by token length", lambda c: _core(c),
     lambda c: f"{c['token_type']} L={_level(c['token_length'], 'token_length')}"),
    ("method", "by prompting method", lambda c: _core(c), lambda c: c["method"]),
    ("decile", "by decile and length", lambda c: c["token_type"] == "deciles",
     lambda c: f"d{c['decile']} L{c['token_length']}"),
    ("deceptive", "deceptive sets by condition", lambda c: c["token_type"] == "deceptive",
     lambda c: c["deceptive_condition"]),
    ("phrasing", "by phrasing", lambda c: c["token_type"] in ("numbers", "words"),
     lambda c: c["phrasing"]),
)


def _natural(label: str) -> list[Any]:
    """Sort key that puts d2 before d10 and m=4 before m=16."""
    import re

    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", label)]


def violin_figures(results: Mapping[str, Any], folder: Path) -> list[Path]:
    """One violin PNG per factor with at least one level: the per-configuration accuracies."""
    from lexbench.report.figures import violin

    configs = [c for c in results.get("configurations", []) if c["n"]]
    model = results.get("model", "")
    written = []
    for name, label, keep, level in VIOLINS:
        groups: dict[str, list[float]] = {}
        for config in configs:
            if keep(config):
                groups.setdefault(level(config), []).append(config["accuracy"])
        if not groups or (name == "phrasing" and len(groups) < 2):
            continue
        # Short titles: the helper sizes the figure by the number of groups, not the title.
        title = label + (f" ({model})" if model else "")
        ordered = dict(sorted(groups.items(), key=lambda kv: _natural(kv[0])))
        written.append(violin(folder / f"violin_{name}.png", ordered,
                              title=title, ylabel="accuracy per configuration"))
    lenient: dict[str, list[float]] = {}
    for config in configs:
        if _core(config) and "lenient_accuracy" in config:
            lenient.setdefault(config["operation"], []).append(config["lenient_accuracy"])
    if any(c.get("lenient_accuracy") != c["accuracy"] for c in configs) and lenient:
        written.append(violin(folder / "violin_operation_lenient.png", dict(sorted(lenient.items())),
                              title="by operation, lenient" + (f" ({model})" if model else ""),
                              ylabel="lenient accuracy per configuration"))
    return written
