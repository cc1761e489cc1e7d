"""E-KAR Table 3: explanation-generation metrics and Acc(Δ).

Given a fine-tuned generator (`ekar-explain`) and a QA classifier trained with gold
explanations in its input (`ekar-qa --input-format explanations`), on one split:

1. the generator writes E_Q and E_A (HARD) or E_A with the gold E_Q given (EASY);
2. EG metrics against the gold explanations: ROUGE-2 F1 (character-level for Chinese, as
   lexbench's ROUGE does), the cosine of sentence embeddings (packaged all-MiniLM-L6-v2,
   in place of MoverScore/BLEURT, which need models that cannot be had offline) and
   BERTScore F1 when a model is named;
3. Acc(Δ): the QA model's accuracy with the generated explanations in its input (EASY
   keeps the gold E_Q, as the paper), and Δ, its drop from the accuracy with gold
   explanations; the "None" row (explanations removed) is reported beside, as the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
from lexbench.benchmarks.ekar.finetune_explain import (
    examples,
    generate_explanations,
    load_generator,
    targets_of,
)
from lexbench.parts import is_number, pct, with_interval


def eg_metrics(
    outputs: Sequence[str],
    references: Sequence[str],
    targets: Sequence[str],
    *,
    similarity: Any = None,
    bertscore_model: str | None = None,
    language: str = "en",
) -> dict[str, dict[str, Any]]:
    """Mean metrics (with 95% bootstrap intervals) over E_Q and over E_A."""
    from lexbench.metrics.rouge import rouge_n
    from lexbench.stats import bootstrap_interval

    values: dict[str, dict[str, list[float]]] = {"E_Q": {}, "E_A": {}}
    sims = similarity.similarities(outputs, references) if similarity is not None else None
    scores = None
    if bertscore_model:
        from lexbench.metrics.similarity import bertscore

        scores = bertscore(outputs, references, bertscore_model, language=language)
    for i, (output, reference, target) in enumerate(zip(outputs, references, targets)):
        group = values["E_Q" if target == "Q" else "E_A"]
        group.setdefault("rouge2_f1", []).append(rouge_n(output, reference, 2).f1)
        if sims is not None:
            group.setdefault("similarity", []).append(sims[i])
        if scores is not None:
            group.setdefault("bertscore_f1", []).append(scores[i])
    return {
        group: {metric: bootstrap_interval(v).to_dict() for metric, v in metrics.items()}
        for group, metrics in values.items()
        if metrics
    }


def explanation_sets(
    items: Sequence[Any], generated: Mapping[tuple[str, str], str], mode: str
) -> dict[str, list[list[str]]]:
    """Per condition, each item's five explanations [E_Q, E_A..E_D] for the QA model."""
    gold = [list(item.explanations) for item in items]
    made = []
    for item in items:
        query = item.explanations[0] if mode == "easy" else generated[(item.id, "Q")]
        made.append([query] + [generated[(item.id, label)] for label in item.labels])
    none = [
        [item.explanations[0] if mode == "easy" else ""] + [""] * len(item.labels) for item in items
    ]
    return {"gold": gold, "generated": made, "none": none}


def table_markdown(metrics: Mapping[str, Any], accuracy: Mapping[str, Any], *, title: str) -> str:
    lines = [
        f"# {title}",
        "",
        "## Explanation generation",
        "",
        "| explanations | metric | mean [95% bootstrap] | n |",
        "|---|---|---|---:|",
    ]
    for group, by_metric in metrics.items():
        for metric, row in by_metric.items():
            lines.append(
                f"| {group} | {metric} | {with_interval(row['estimate'], row['low'], row['high'])} "
                f"| {row['n']} |"
            )
    lines += [
        "",
        (
            "## Acc(Δ): the QA model with gold explanations in training, "
            "explanations switched at test time"
        ),
        "",
        "| explanations at test time | accuracy | Δ (gold − this) | n |",
        "|---|---:|---:|---:|",
    ]
    gold = accuracy["gold"]["accuracy"]
    for condition in ("none", "generated", "gold"):
        row = accuracy[condition]
        both = is_number(gold) and is_number(row["accuracy"])  # "n/a" over no test item
        delta = gold - row["accuracy"] if both else None
        lines.append(f"| {condition} | {pct(row['accuracy'])} | {pct(delta)} | {row['n']} |")
    return "\n".join(lines) + "\n"


def accdelta_table(
    generator_folder: str | Path,
    qa_folder: str | Path,
    *,
    split: str = "test",
    data: str | Path | None = None,
    revision: str = "v1.1",
    max_new_tokens: int = EXPLANATION_MAX_NEW_TOKENS,
    batch_size: int = 8,
    use_similarity: bool = True,
    bertscore_model: str | None = None,
    device: str = "cpu",
    out: str | Path = "runs",
) -> dict[str, Any]:
    """Generate explanations on `split`, score them, and compute Acc(Δ) with the QA model;
    write the table as a run folder (both models' lineage in config.json and report.md)."""
    from lexbench.benchmarks.ekar.finetune_qa_table import accuracy_row, lineage_data_folder
    from lexbench.benchmarks.ekar.qa_classifier import predictions
    from lexbench.benchmarks.ekar.splits import load_split
    from lexbench.finetune.lineage import lineage_markdown, read_lineage
    from lexbench.run.staging import write_run
    from lexbench.run.store import run_folder

    generator_folder, qa_folder = Path(generator_folder), Path(qa_folder)
    gen_lineage = read_lineage(generator_folder)
    qa_lineage = read_lineage(qa_folder)
    if gen_lineage is None or gen_lineage.get("experiment") != "ekar-explain":
        raise ValueError(f"{generator_folder} is not an ekar-explain fine-tune (no lineage)")
    if (
        qa_lineage is None
        or qa_lineage.get("experiment") != "ekar-qa"
        or qa_lineage["hyperparameters"].get("input_format") != "explanations"
    ):
        raise ValueError(
            f"{qa_folder} is not an Acc(Δ) QA model: train one with lexbench "
            "finetune ekar-qa --input-format explanations"
        )
    mode = gen_lineage["hyperparameters"]["mode"]
    language = gen_lineage["data"]["language"]
    loaded = load_split(
        language, split, data=lineage_data_folder(gen_lineage, data), revision=revision
    )
    items = [i for i in loaded.items if i.answer_index is not None and len(i.explanations) == 5]
    if not items:
        raise ValueError(
            f"{loaded.path}: no items with an answer and gold explanations (a "
            "blind test split?); use --split validation"
        )
    rows = examples(items, mode)
    generator = load_generator(f"hf:{generator_folder}", for_training=False)
    outputs = generate_explanations(
        generator,
        [prompt for _, _, prompt, _ in rows],
        max_new_tokens=max_new_tokens,
        batch_size=batch_size,
    )
    generated = {(item_id, target): text for (item_id, target, _, _), text in zip(rows, outputs)}
    similarity = None
    if use_similarity:
        from lexbench.metrics.similarity import SentenceSimilarity

        similarity = SentenceSimilarity()
    metrics = eg_metrics(
        outputs,
        [gold for _, _, _, gold in rows],
        [t for _, t, _, _ in rows],
        similarity=similarity,
        bertscore_model=bertscore_model,
        language=language,
    )
    accuracy: dict[str, Any] = {}
    chosen: dict[str, list[int]] = {}
    for condition, sets in explanation_sets(items, generated, mode).items():
        chosen[condition] = predictions(qa_folder, items, explanations=sets, device=device)
        accuracy[condition] = accuracy_row(
            [c == i.answer_index for c, i in zip(chosen[condition], items)]
        )
    for row in accuracy.values():
        row["delta"] = accuracy["gold"]["accuracy"] - row["accuracy"]
    title = f"E-KAR Table 3 ({language}, {split}, {mode.upper()} mode)"
    report = (
        table_markdown(metrics, accuracy, title=title)
        + f"\nExplanations generated greedily, at most {max_new_tokens} new tokens each.\n"
        + "\n### Generator\n\n"
        + lineage_markdown(gen_lineage)
        + "\n### QA model\n\n"
        + lineage_markdown(qa_lineage)
    )
    config = {
        "benchmark": "finetune-ekar-accdelta",
        "generator": str(generator_folder.resolve()),
        "qa_model": str(qa_folder.resolve()),
        "split": split,
        "mode": mode,
        "language": language,
        "file": str(loaded.path),
        "file_sha256": loaded.sha256,
        "max_new_tokens": max_new_tokens,
        "targets": list(targets_of(mode)),
        "similarity_model": similarity.name if similarity is not None else None,
        "bertscore_model": bertscore_model,
        "models": {"generator": {"lineage": gen_lineage}, "qa": {"lineage": qa_lineage}},
    }
    samples = [
        {
            "id": item.id,
            "gold": item.answer,
            "meta_relation": item.meta_relation,
            "generated": {t: generated[(item.id, t)] for t in targets_of(mode)},
            "references": list(item.explanations),
            "answers": {c: item.labels[chosen[c][n]] for c in chosen},
        }
        for n, item in enumerate(items)
    ]
    results = {"benchmark": "finetune-ekar-accdelta", "eg_metrics": metrics, "accuracy": accuracy}
    hashed = {k: v for k, v in config.items() if k != "models"} | {
        "generator_created": gen_lineage["created"],
        "qa_created": qa_lineage["created"],
    }
    folder = run_folder(out, "finetune-ekar-accdelta", generator_folder.name, hashed)
    write_run(folder, config, samples, results, report)
    return {"folder": folder.path, "report": report, "results": results}
