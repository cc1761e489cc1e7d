"""E-KAR Table 2's fine-tuned row: a classifier made by `lexbench finetune ekar-qa`,
answering one split, its accuracy overall and per meta-relation with Wilson intervals,
written as a run folder (`runs/finetune-ekar-qa/...`) with the classifier's lineage."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.qa_classifier import EXPERIMENT, predictions
from lexbench.parts import NOT_AVAILABLE, with_interval
from lexbench.stats import wilson_interval


def accuracy_row(flags: Sequence[bool]) -> dict[str, Any]:
    n, k = len(flags), sum(1 for f in flags if f)
    return {
        "n": n,
        "correct": k,
        "accuracy": k / n if n else None,
        "wilson": wilson_interval(k, n).to_dict() if n else None,
    }


def accuracy_by_meta_relation(items: Sequence[Any], correct: Sequence[bool]) -> dict[str, Any]:
    """Overall and per meta-relation (R1-R5, by the query's first relation) accuracy."""
    from lexbench.benchmarks.ekar.data import META_RELATIONS

    groups: dict[str, list[bool]] = defaultdict(list)
    for item, flag in zip(items, correct):
        groups[item.meta_relation].append(flag)
    rows = {
        meta: {"name": name, **accuracy_row(groups.get(meta, []))}
        for meta, name in META_RELATIONS.items()
    }
    for meta in sorted(set(groups) - set(META_RELATIONS)):
        rows[meta] = {"name": meta, **accuracy_row(groups[meta])}
    return {"overall": accuracy_row(list(correct)), "by_meta_relation": rows}


def table_markdown(title: str, table: Mapping[str, Any]) -> str:
    def cell(row: Mapping[str, Any]) -> str:
        if not row["n"]:
            return NOT_AVAILABLE  # no item of this meta-relation in the test split
        w = row["wilson"]
        return with_interval(row["accuracy"], w["low"], w["high"])

    lines = [
        f"# {title}",
        "",
        "| meta-relation | n | accuracy (Wilson 95%) |",
        "|---|---:|---|",
        f"| overall | {table['overall']['n']} | {cell(table['overall'])} |",
    ]
    for meta, row in table["by_meta_relation"].items():
        lines.append(f"| {meta} {row['name']} | {row['n']} | {cell(row)} |")
    return "\n".join(lines) + "\n"


def lineage_data_folder(lineage: Mapping[str, Any], data: str | Path | None) -> str | Path | None:
    """The E-KAR folder a table reads: `data` when given, else the local folder the model
    was trained on (its lineage records a sha256 only for local folders), else None: the
    Hub."""
    if data is not None:
        return data
    recorded = lineage["data"]
    return recorded["source"] if recorded.get("sha256") else None


def ekar_qa_table(
    tuned: str | Path,
    *,
    split: str = "test",
    data: str | Path | None = None,
    revision: str = "v1.1",
    device: str = "cpu",
    out: str | Path = "runs",
) -> dict[str, Any]:
    """E-KAR Table 2's fine-tuned row for this classifier: accuracy overall and per
    meta-relation on `split` (HARD or EASY as it was trained), written as a run folder."""
    from lexbench.benchmarks.ekar.splits import load_split
    from lexbench.finetune.lineage import lineage_markdown, read_lineage
    from lexbench.run.staging import write_run
    from lexbench.run.store import run_folder

    tuned = Path(tuned)
    lineage = read_lineage(tuned)
    if lineage is None or lineage.get("experiment") != EXPERIMENT:
        raise ValueError(
            f"{tuned} is not an ekar-qa fine-tune (no lexbench-lineage.json with "
            "experiment ekar-qa)"
        )
    hyper = lineage["hyperparameters"]
    language = lineage["data"]["language"]
    loaded = load_split(language, split, data=lineage_data_folder(lineage, data), revision=revision)
    items = [i for i in loaded.items if i.answer_index is not None]
    if not items:
        raise ValueError(
            f"{loaded.path}: no labelled items (a blind test split?); use --split validation"
        )
    chosen = predictions(tuned, items, device=device)
    correct = [c == i.answer_index for c, i in zip(chosen, items)]
    table = accuracy_by_meta_relation(items, correct)
    title = (
        f"E-KAR QA, fine-tuned classifier ({language}, {split}, {hyper['mode']} mode, "
        f"{hyper['input_format']} input)"
    )
    report = table_markdown(title, table) + "\n" + lineage_markdown(lineage)
    config = {
        "benchmark": "finetune-ekar-qa",
        "tuned": str(tuned.resolve()),
        "split": split,
        "language": language,
        "file": str(loaded.path),
        "file_sha256": loaded.sha256,
        "model": {"name": tuned.name, "lineage": lineage},
    }
    samples = [
        {
            "id": i.id,
            "meta_relation": i.meta_relation,
            "relation": i.relation_code,
            "gold": i.answer,
            "answer": i.labels[c],
            "correct": ok,
        }
        for i, c, ok in zip(items, chosen, correct)
    ]
    folder = run_folder(
        out,
        "finetune-ekar-qa",
        tuned.name,
        {k: v for k, v in config.items() if k != "model"} | {"created": lineage["created"]},
    )
    write_run(folder, config, samples, {"benchmark": "finetune-ekar-qa", **table}, report)
    return {"folder": folder.path, "report": report, "results": table}
