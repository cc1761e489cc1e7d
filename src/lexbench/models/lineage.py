"""Reading where a fine-tuned model came from: the `lexbench-lineage.json` a `lexbench
finetune` output folder holds (written by `lexbench.finetune.lineage`). A backend opening
such a folder puts `describe_lineage(folder)` in its `describe()`, so a run of the model
carries its lineage in config.json. Read-only JSON; never imports torch.

    >>> describe_lineage("/no/such/folder") is None
    True
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

LINEAGE_FILE = "lexbench-lineage.json"
# What `describe_lineage` copies into a run's config (the history stays in the file).
SUMMARY_KEYS = (
    "experiment",
    "created",
    "base_model",
    "data",
    "split_seed",
    "hyperparameters",
    "best_validation",
    "lora",
    "libraries",
)


def read_lineage(folder: str | Path) -> dict[str, Any] | None:
    """The lineage in `folder`, or None when the folder has none (not a lexbench fine-tune).
    A lineage file that is not valid JSON is an error naming the file."""
    path = Path(folder) / LINEAGE_FILE
    try:
        if not path.is_file():
            return None
    except OSError:  # a Hub id or a name too long to be a path: no lineage to read
        return None
    try:
        lineage = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(lineage, dict) or "experiment" not in lineage:
        raise ValueError(f"{path}: not a lexbench lineage record (no 'experiment')")
    return lineage


def describe_lineage(folder: str | Path | None) -> dict[str, Any] | None:
    """What a run's config shows of a fine-tuned model's lineage (the training history,
    which can be long, stays in the file), with the file's path and sha256; None when the
    folder has no lineage file."""
    if folder is None:
        return None
    lineage = read_lineage(folder)
    if lineage is None:
        return None
    path = Path(folder) / LINEAGE_FILE
    summary = {key: lineage.get(key) for key in SUMMARY_KEYS}
    summary["file"] = str(path.resolve())
    summary["file_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return summary
