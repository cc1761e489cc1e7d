"""The report.md of an E-KAR explanation-generation run, from its results.json alone: the
benchmark writes it when the run ends, and E-KAR's reporter (`report`) writes it again for a
run read back. Each explanation group's metrics with their 95% bootstrap intervals, the
metrics not computed and why, ROUGE-2 F1 by meta-relation, and the error classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lexbench.parts import with_interval


def explanation_report_markdown(results: Mapping[str, Any]) -> str:
    """report.md of an explanation-generation run, from its results.json."""
    config = results["config"]
    lines = [
        f"# E-KAR explanation generation ({config['language']}, {config['split']}, "
        f"{config['mode']} mode)",
        "",
        f"{results['items']} items; input format: {config.get('prompt_format', 'paper')}; "
        f"explanations of at most {config['decoding']['max_new_tokens']} new tokens (greedy); "
        f"similarity model: {config['similarity_model']}; "
        f"BERTScore model: {config['bertscore_model'] or 'none'}.",
        "",
        "| explanation | metric | mean [95% bootstrap] | n |",
        "|---|---|---|---|",
    ]
    for group, metrics in results["explanations"].items():
        for metric, interval in metrics.items():
            lines.append(
                f"| {group} | {metric} | "
                f"{with_interval(interval['estimate'], interval['low'], interval['high'])} | "
                f"{interval['n']} |"
            )
    for metric, reason in results.get("skipped_metrics", {}).items():
        lines += ["", f"{metric}: not computed -- {reason}."]
    lines += [
        "",
        "## ROUGE-2 F1 by meta-relation (item means)",
        "",
        "| meta-relation | mean [95% bootstrap] | n |",
        "|---|---|---|",
    ]
    for row in results["rouge2_f1_by_meta_relation"]:
        lines.append(
            f"| {row['meta_relation']} {row['name']} | "
            f"{with_interval(row['estimate'], row['low'], row['high'])} | {row['n']} |"
        )
    lines += ["", f"Error classes: {results['error_classes']}"]
    return "\n".join(lines) + "\n"
