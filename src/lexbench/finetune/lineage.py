"""Where a fine-tuned model came from, written beside its weights.

Every output folder of `lexbench finetune` holds `lexbench-lineage.json`: the experiment,
the base model's fingerprint, the training data and its sha256, the split seed, every
hyperparameter, the best validation score (and the step it was reached at), the training
history, and the versions of the libraries that trained it. This module writes it; the
backends read it (`lexbench.models.lineage`, below them) so a run of the fine-tuned model
carries that lineage in its config.json.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.models.lineage import LINEAGE_FILE, describe_lineage, read_lineage
from lexbench.types import content_hash

__all__ = ["LINEAGE_FILE", "build_lineage", "describe_lineage", "read_lineage", "write_lineage"]

LINEAGE_VERSION = 1
LIBRARIES = (
    "lexbench",
    "torch",
    "transformers",
    "accelerate",
    "peft",
    "datasets",
    "numpy",
    "safetensors",
    "tokenizers",
    "sentence-transformers",
)


def library_versions() -> dict[str, str]:
    """Python and the installed versions of the training stack ("absent" when missing)."""
    from lexbench.run.store import package_versions

    return package_versions(LIBRARIES, missing="absent")


def path_sha256(path: str | Path) -> str:
    """sha256 of a file, or of a folder's files (relative names and bytes, sorted), so the
    same data read from a zip or an unpacked copy of it is recognised by its content."""
    path = Path(path)
    digest = hashlib.sha256()
    if path.is_file() and not zipfile.is_zipfile(path):
        digest.update(path.read_bytes())
        return digest.hexdigest()
    if path.is_file():
        with zipfile.ZipFile(path) as archive:
            members = sorted(
                (i.filename, archive.read(i)) for i in archive.infolist() if not i.is_dir()
            )
    elif path.is_dir():
        members = sorted(
            (str(p.relative_to(path)), p.read_bytes()) for p in path.rglob("*") if p.is_file()
        )
    else:
        raise FileNotFoundError(f"no file or folder at {path} to hash")
    for name, data in members:
        digest.update(name.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def weights_sha256(folder: Path) -> str:
    """sha256 of a folder's weight files (`*.safetensors`, then `*.bin`, each by name and
    content): the fingerprint a lineage gives a base model lexbench loads without a backend
    of its own (an encoder, a seq2seq generator)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def json_sha256(value: Any) -> str:
    """sha256 of a JSON value in canonical form (sorted keys, no spaces)."""
    return content_hash(value, length=64)


def build_lineage(
    *,
    experiment: str,
    base_model: Mapping[str, Any],
    data: Mapping[str, Any],
    split_seed: int | None,
    hyperparameters: Mapping[str, Any],
    best_validation: Mapping[str, Any] | None,
    history: Sequence[Mapping[str, Any]],
    model_kind: str,
    lora: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The lineage record (plain JSON). `model_kind` is the registry kind that runs the
    folder (hf, mlm, ekar-classifier, or seq2seq for generators lexbench drives itself)."""
    return {
        "lexbench_lineage": LINEAGE_VERSION,
        "experiment": experiment,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "model_kind": model_kind,
        "base_model": dict(base_model),
        "data": dict(data),
        "split_seed": split_seed,
        "hyperparameters": dict(hyperparameters),
        "best_validation": dict(best_validation) if best_validation else None,
        "lora": dict(lora) if lora else None,
        "libraries": library_versions(),
        "history": list(history),
        **dict(extra or {}),
    }


def write_lineage(folder: str | Path, lineage: Mapping[str, Any]) -> Path:
    """Write the lineage file into `folder` (a unique temporary name, then a rename)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / LINEAGE_FILE
    temporary = folder / f".{LINEAGE_FILE}.tmp"
    temporary.write_text(
        json.dumps(lineage, indent=2, ensure_ascii=False, allow_nan=False, default=str) + "\n",
        encoding="utf-8",
    )
    temporary.replace(target)
    return target


def lineage_markdown(lineage: Mapping[str, Any]) -> str:
    """A short Markdown block for reports: where the fine-tuned model came from."""
    base = lineage.get("base_model") or {}
    data = lineage.get("data") or {}
    best = lineage.get("best_validation") or {}
    hyper = lineage.get("hyperparameters") or {}
    fingerprint = base.get("fingerprint") or {}
    lines = [
        "## Lineage of the fine-tuned model",
        "",
        f"- experiment: `{lineage.get('experiment')}` (created {lineage.get('created')})",
        (
            f"- base model: `{base.get('spec')}` — {fingerprint.get('model', '')} "
            f"(weights sha256 {str(fingerprint.get('weights_sha256'))[:16]}…)"
        ),
        (
            f"- data: `{data.get('source')}` (sha256 {str(data.get('sha256'))[:16]}…), "
            f"split seed {lineage.get('split_seed')}"
        ),
        f"- best validation {best.get('metric')}: {best.get('value')} at step {best.get('step')}",
        "- hyperparameters: " + ", ".join(f"{k}={v}" for k, v in sorted(hyper.items())),
        f"- LoRA: {lineage.get('lora') or 'no'}",
    ]
    return "\n".join(lines) + "\n"
