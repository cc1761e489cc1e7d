"""E-KAR question answering's tables: accuracy overall, by meta-relation, by sub-relation and by
number of terms, with Wald and Wilson intervals, as results.json and as Markdown."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from lexbench.benchmarks.ekar.data import META_RELATIONS, RELATION_NAMES, UNKNOWN_RELATION, EkarItem
from lexbench.benchmarks.ekar.prompts import NORMALISATIONS
from lexbench.parts import NOT_AVAILABLE, fmt, interval_text
from lexbench.stats import wald_interval, wilson_interval
from lexbench.types import Score


def _accuracy(flags: Sequence[bool]) -> dict[str, Any]:
    n = len(flags)
    k = sum(1 for f in flags if f)
    return {
        "n": n,
        "correct": k,
        "accuracy": k / n if n else None,
        "wald": wald_interval(k, n).to_dict() if n else None,
        "wilson": wilson_interval(k, n).to_dict() if n else None,
    }


def summarize_qa(
    items: Sequence[EkarItem], scores: Sequence[Score], config: Mapping[str, Any]
) -> dict[str, Any]:
    """results.json: overall accuracy, by meta-relation, by sub-relation, by number of terms,
    error classes, and (log-likelihood) the accuracy under each normalisation."""
    labelled = [(i, s) for i, s in zip(items, scores) if s.correct is not None]
    results: dict[str, Any] = {
        "benchmark": "ekar",
        "task": "qa",
        "config": dict(config),
        "items": len(items),
        "labelled": len(labelled),
        "error_classes": dict(sorted(Counter(s.error_class for s in scores).items())),
    }
    results["overall"] = _accuracy([bool(s.correct) for _, s in labelled])
    if config.get("method") == "generate":
        parsed = [(i, s) for i, s in labelled if s.error_class != "unparsed"]
        results["unparsed"] = len(labelled) - len(parsed)
        results["accuracy_when_parsed"] = _accuracy([bool(s.correct) for _, s in parsed])
        results["extraction"] = dict(
            sorted(Counter(s.details.get("extraction", "") for s in scores).items())
        )
    if config.get("method") == "loglikelihood":
        results["by_normalisation"] = {
            norm: _accuracy([bool(s.details.get("correct_by", {}).get(norm)) for _, s in labelled])
            for norm in NORMALISATIONS
        }
    if config.get("method") == "embedding":
        results["out_of_vocabulary"] = sum(
            1 for _, s in labelled if s.error_class == "out_of_vocabulary"
        )
    by_meta: dict[str, list[bool]] = defaultdict(list)
    by_sub: dict[str, list[bool]] = defaultdict(list)
    by_terms: dict[int, list[bool]] = defaultdict(list)
    for item, score in labelled:
        # Every relation annotated for the query, each once per item.
        for meta in item.query_meta_relations:
            by_meta[meta].append(bool(score.correct))
        for code in item.query_relation_codes:
            by_sub[code].append(bool(score.correct))
        by_terms[item.terms].append(bool(score.correct))
    metas = list(META_RELATIONS) + ([UNKNOWN_RELATION] if UNKNOWN_RELATION in by_meta else [])
    results["by_meta_relation"] = [
        {
            "meta_relation": m,
            "name": META_RELATIONS.get(m, UNKNOWN_RELATION),
            **_accuracy(by_meta[m]),
        }
        for m in metas
    ]
    codes = [c for c in RELATION_NAMES if c in by_sub] + (
        [UNKNOWN_RELATION] if UNKNOWN_RELATION in by_sub else []
    )
    results["by_relation"] = [
        {"relation": c, "name": RELATION_NAMES.get(c, UNKNOWN_RELATION), **_accuracy(by_sub[c])}
        for c in codes
    ]
    results["by_terms"] = [{"terms": t, **_accuracy(by_terms[t])} for t in sorted(by_terms)]
    return results


def _bounds(row: Mapping[str, Any], method: str = "wilson") -> str:
    """ "[0.331, 0.508]": a row's 95% interval by `method`; "n/a" when it has no items."""
    if not row.get("n"):
        return NOT_AVAILABLE
    return interval_text(row[method]["low"], row[method]["high"])


def _cell(row: Mapping[str, Any], method: str = "wilson") -> str:
    """ "0.417 [0.331, 0.508]"; "n/a" when the row has no items."""
    if not row.get("n"):
        return NOT_AVAILABLE
    return f"{fmt(row['accuracy'])} {_bounds(row, method)}"


def report_markdown(results: Mapping[str, Any]) -> str:
    """The tables a reader wants first."""
    config = results.get("config", {})
    lines = [
        f"# E-KAR question answering ({config.get('language')}, {config.get('split')}, "
        f"{config.get('mode')} mode, {config.get('method')})",
        "",
    ]
    overall = results["overall"]
    lines.append(f"{results['items']} items, {results['labelled']} labelled.")
    if not overall["n"]:
        lines.append("")
        lines.append("No labelled items (a blind split): predictions are in samples.jsonl.")
        return "\n".join(lines) + "\n"
    if config.get("method") == "loglikelihood":
        lines.append(f"Answer chosen by `{config.get('normalisation')}` score.")
    lines += [
        "",
        "| accuracy | Wald 95% | Wilson 95% | n |",
        "|---|---|---|---|",
        f"| {fmt(overall['accuracy'])} | {_bounds(overall, 'wald')} | "
        f"{_bounds(overall)} | {overall['n']} |",
        "",
    ]
    if "by_normalisation" in results:
        lines += [
            "## Log-likelihood normalisations",
            "",
            "| score | accuracy (Wilson 95%) | Wald 95% |",
            "|---|---|---|",
        ]
        for norm, row in results["by_normalisation"].items():
            lines.append(f"| {norm} | {_cell(row)} | {_bounds(row, 'wald')} |")
        lines.append("")
    if "unparsed" in results:
        parsed = results["accuracy_when_parsed"]
        lines += [
            f"Unparsed outputs (no letter found, counted wrong): {results['unparsed']} of "
            f"{overall['n']}; accuracy over parsed outputs: {_cell(parsed)} (n={parsed['n']}).",
            f"How letters were found: {results['extraction']}",
            "",
        ]
    if "out_of_vocabulary" in results:
        lines += [
            f"Items the vectors could not answer (a query or every candidate out of "
            f"vocabulary, counted wrong): {results['out_of_vocabulary']}",
            "",
        ]
    lines += [
        "## By meta-relation",
        "",
        "An item counts under every relation annotated for its query, so rows can sum "
        "to more than the items.",
        "",
        "| meta-relation | n | accuracy (Wilson 95%) | Wald 95% |",
        "|---|---|---|---|",
    ]
    for row in results["by_meta_relation"]:
        wald = _bounds(row, "wald")
        lines.append(
            f"| {row['meta_relation']} {row['name']} | {row['n']} | {_cell(row)} | {wald} |"
        )
    lines += [
        "",
        "## By sub-relation",
        "",
        "| relation | name | n | accuracy (Wilson 95%) | Wald 95% |",
        "|---|---|---|---|---|",
    ]
    for row in results["by_relation"]:
        wald = _bounds(row, "wald")
        lines.append(f"| {row['relation']} | {row['name']} | {row['n']} | {_cell(row)} | {wald} |")
    lines += [
        "",
        "## By number of terms",
        "",
        "| terms | n | accuracy (Wilson 95%) |",
        "|---|---|---|",
    ]
    for row in results["by_terms"]:
        lines.append(f"| {row['terms']} | {row['n']} | {_cell(row)} |")
    lines += ["", f"Error classes: {results['error_classes']}"]
    return "\n".join(lines) + "\n"
