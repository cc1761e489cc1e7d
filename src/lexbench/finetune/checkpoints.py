"""The checkpoint folder (`<output>/checkpoints/`) a run resumes from: checkpoints of
another configuration refused (or deleted with `restart`), and the newest checkpoint
`Trainer` finished writing found (one cut short by a kill is passed over)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CHECKPOINTS = "checkpoints"
RUN_KEY_FILE = "lexbench-run-key.json"


def guard_checkpoints(folder: Path, run_key: Mapping[str, Any], restart: bool) -> None:
    """Refuse to resume checkpoints of another configuration (another base model, data or
    hyperparameters); `restart` deletes them instead."""
    key_path = folder / RUN_KEY_FILE
    main = int(os.environ.get("RANK", "0")) == 0  # under accelerate launch: one writer
    if restart and folder.exists() and main:
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    wanted = json.loads(json.dumps(run_key, sort_keys=True, default=str))
    if key_path.is_file():
        found = json.loads(key_path.read_text(encoding="utf-8"))
        if found != wanted:
            changed = sorted(k for k in set(found) | set(wanted) if found.get(k) != wanted.get(k))
            raise ValueError(
                f"{folder} holds checkpoints of another run (differs in: "
                f"{', '.join(changed)}); use another --output, or --restart to "
                "delete them and start again"
            )
        return
    if main:
        key_path.write_text(json.dumps(wanted, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def last_complete_checkpoint(folder: Path) -> str | None:
    """The newest checkpoint `Trainer` finished writing: it writes trainer_state.json last,
    so a checkpoint cut short by a kill (no readable state) is passed over."""
    found = []
    for path in folder.glob("checkpoint-*"):
        suffix = path.name.split("-", 1)[1]
        state = path / "trainer_state.json"
        if not (suffix.isdigit() and state.is_file()):
            continue
        try:
            json.loads(state.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue
        found.append((int(suffix), path))
    return str(max(found)[1]) if found else None
