"""LAMBDA human-baseline sheets for offline studies (a spreadsheet instead of the web app).

    lexbench human lambda-export -o sheet.csv      # sheet.csv + sheet.csv.key.jsonl
    lexbench human lambda-score sheet.csv --annotator alice

The sheet has one row per item: `sheet_id`, the two support pairs, the query, and an empty
`answer` column. A `sheet_id` is a random token (`secrets`): it says nothing about the
item's relation or answer, and the mapping back to items lives only in the key file, which
the annotator must not see. (Sheets written before this change used item ids such as
`synonym-0380`, which named the relation; they are still read, by their `id` column.)

Scoring goes through `evaluate` with a `human:NAME` model that answers each item's prompt
from the sheet, so the result is an ordinary run folder, scored by LAMBDA's own scorer. A
blank answer counts as no answer (wrong), as a model's empty output does.
"""

from __future__ import annotations

import csv
import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.lambda_.human import sample_lambda

COLUMNS = ("sheet_id", "pair_1", "pair_2", "query", "answer")


def key_path_for(sheet: str | Path) -> Path:
    return Path(f"{sheet}.key.jsonl")


def export_lambda_sheet(
    items: Sequence[Any], output: str | Path, *, per_relation: int = 100, seed: int = 0
) -> tuple[Path, Path, int]:
    """Write the sheet and its key; returns (sheet, key, number of rows)."""
    chosen = sample_lambda(items, per_relation, seed)
    tokens: list[str] = []
    while len(tokens) < len(chosen):
        token = secrets.token_hex(5)
        if token not in tokens:
            tokens.append(token)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    with open(output, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for token, item in zip(tokens, chosen):
            (a, b), (c, d) = item.support
            writer.writerow([token, f"{a} : {b}", f"{c} : {d}", f"{item.query} :", ""])
    key = key_path_for(output)
    key.write_text(
        "".join(
            json.dumps({"sheet_id": token, **item.to_dict()}, sort_keys=True, ensure_ascii=False)
            + "\n"
            for token, item in zip(tokens, chosen)
        ),
        encoding="utf-8",
    )
    return output, key, len(chosen)


@dataclass(frozen=True)
class FilledSheet:
    items: list[Any]  # in sheet order
    answers: dict[str, str]  # item id -> what the annotator wrote
    key_sha256: str


def read_filled_sheet(sheet: str | Path, key: str | Path | None = None) -> FilledSheet:
    """The sheet's answers matched to its key, with a clear error for any mismatch."""
    from lexbench.benchmarks.lambda_.items import LambdaItem
    from lexbench.run.files import read_jsonl

    key_path = Path(key) if key is not None else key_path_for(sheet)
    if not key_path.is_file():
        raise FileNotFoundError(f"answer key {key_path} not found (pass --key)")
    key_rows = read_jsonl(key_path)
    by_sheet_id = {str(r["sheet_id"]): r for r in key_rows if "sheet_id" in r}
    by_item_id = {str(r["id"]): r for r in key_rows}
    with open(sheet, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        raise ValueError(f"{sheet}: no rows")
    columns = set(rows[0])
    id_column = "sheet_id" if "sheet_id" in columns else "id" if "id" in columns else None
    if id_column is None or "answer" not in columns:
        raise ValueError(
            f"{sheet}: expected a CSV with 'sheet_id' (or, in old sheets, 'id') and "
            f"'answer' columns; found {sorted(columns)}"
        )
    lookup = by_sheet_id if id_column == "sheet_id" else by_item_id
    items: list[Any] = []
    answers: dict[str, str] = {}
    for number, row in enumerate(rows, 2):
        found = lookup.get(str(row[id_column]))
        if found is None:
            raise ValueError(
                f"{sheet}:{number}: {id_column} {row[id_column]!r} is not in the "
                f"answer key {key_path}"
            )
        item = LambdaItem.from_dict({k: v for k, v in found.items() if k != "sheet_id"})
        if item.id in answers:
            raise ValueError(f"{sheet}:{number}: {id_column} {row[id_column]!r} appears twice")
        items.append(item)
        answers[item.id] = (row.get("answer") or "").strip()
    digest = hashlib.sha256(key_path.read_bytes()).hexdigest()
    return FilledSheet(items, answers, digest)


def score_lambda_sheet(
    sheet: str | Path,
    *,
    annotator: str,
    key: str | Path | None = None,
    out: str | Path = "runs",
    wordnet: str | None = None,
) -> Any:
    """Score a filled sheet as the run of model `human:ANNOTATOR`; returns the Evaluation."""
    from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
    from lexbench.human.backend import HumanModel, prompt_key
    from lexbench.human.store import check_annotator
    from lexbench.lexicon.wordnet.index_cache import load_index
    from lexbench.run.evaluate import evaluate

    check_annotator(annotator)
    filled = read_filled_sheet(sheet, key)
    benchmark = LambdaBenchmark(
        dataset=filled.items,
        index=load_index(wordnet, progress=False),
        protocol="paper",
        prompt_style="paper",
        dataset_config={"sheet": str(sheet), "key_sha256": filled.key_sha256},
    )
    book = {
        prompt_key(benchmark.requests(item)[0]): filled.answers[item.id] for item in filled.items
    }
    model = HumanModel(
        annotator, book, {"study_id": f"sheet-{filled.key_sha256[:16]}", "sheet": str(sheet)}
    )
    return evaluate(benchmark, model, out_root=out, cache=None, progress=False)
