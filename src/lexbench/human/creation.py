"""Writing a new study: the items, their steps and prompts, into one SQLite file that
appears whole or not at all (written beside, then renamed)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.database import DATABASE, SCHEMA, SCHEMA_VERSION, connect_database
from lexbench.human.store import Study


@dataclass(frozen=True)
class StageSpec:
    """One step of one item: its name and the prompt a model gets for it."""

    stage: str
    prompt: str
    prompt_key: str


@dataclass(frozen=True)
class NewItem:
    item_id: str
    item: Mapping[str, Any]
    stages: tuple[StageSpec, ...]


def create_study(directory: str | Path, spec: Mapping[str, Any], items: Sequence[NewItem]) -> Study:
    """Write a new study; refuses a directory that already holds one."""
    directory = Path(directory)
    path = directory / DATABASE
    if path.exists():
        raise FileExistsError(
            f"{directory} already holds a study; serve it again to resume, "
            f"or choose another --study directory"
        )
    if not items:
        raise ValueError("a study needs at least one item")
    repeated = _repeated([i.item_id for i in items])
    if repeated:
        raise ValueError(f"item ids repeat in the study sample: {repeated[:5]}")
    for stage in {s.stage for i in items for s in i.stages}:
        keys = [s.prompt_key for i in items for s in i.stages if s.stage == stage]
        same = _repeated(keys)
        if same:
            raise ValueError(
                f"{len(same)} items of the sample ask the same question in step "
                f"{stage!r}; a human answer could not be told apart"
            )
    directory.mkdir(parents=True, exist_ok=True)
    temporary = directory / (DATABASE + ".partial")
    temporary.unlink(missing_ok=True)
    db = connect_database(temporary)
    try:
        db.executescript(SCHEMA)
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        study_id = secrets.token_hex(8)
        db.execute("INSERT INTO meta VALUES ('study_id', ?)", (study_id,))
        db.execute(
            "INSERT INTO meta VALUES ('spec', ?)",
            (json.dumps({**dict(spec), "study_id": study_id}, sort_keys=True, ensure_ascii=False),),
        )
        tokens: set[str] = set()
        for position, item in enumerate(items):
            token = secrets.token_urlsafe(12)
            while token in tokens:  # 96 random bits: never in practice, but never twice
                token = secrets.token_urlsafe(12)
            tokens.add(token)
            db.execute(
                "INSERT INTO items VALUES (?, ?, ?, ?)",
                (
                    position,
                    token,
                    item.item_id,
                    json.dumps(dict(item.item), sort_keys=True, ensure_ascii=False),
                ),
            )
            for step, stage_spec in enumerate(item.stages):
                db.execute(
                    "INSERT INTO stages VALUES (?, ?, ?, ?, ?)",
                    (token, stage_spec.stage, step, stage_spec.prompt, stage_spec.prompt_key),
                )
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    for suffix in ("-wal", "-shm"):
        Path(str(temporary) + suffix).unlink(missing_ok=True)
    temporary.replace(path)  # a study appears whole or not at all
    return Study(directory)


def _repeated(values: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for value in values:
        if value in seen:
            out.append(value)
        seen.add(value)
    return out
