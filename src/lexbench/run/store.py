"""Run folders: everything a reader or a re-scorer needs, as plain files.

    runs/<benchmark>/<model>/<config-hash>/
      config.json    benchmark config, model description, dataset hash, package versions
      samples.jsonl  one line per item: prompt, raw output, parsed answer, score, error class
      results.json   aggregates with confidence intervals
      report.md      the tables a reader wants first

The folder name is a hash of the config, so the same command lands in the same folder
(and resumes from the response cache), and a changed setting never overwrites old results.
Files are written to a temporary name and renamed, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import platform
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from lexbench.types import content_hash

T = TypeVar("T")

TRACKED_PACKAGES = ("lexbench", "torch", "transformers", "nltk", "numpy", "scipy", "httpx",
                    "wordfreq", "english-words", "gensim", "sentence-transformers")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def slug(text: str) -> str:
    """A file-system-safe name: `openai:gpt-4o` -> `openai-gpt-4o`."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return cleaned or "unnamed"


@dataclass(frozen=True)
class RunFolder:
    path: Path

    @property
    def config_path(self) -> Path:
        return self.path / "config.json"

    @property
    def samples_path(self) -> Path:
        return self.path / "samples.jsonl"

    @property
    def results_path(self) -> Path:
        return self.path / "results.json"

    @property
    def report_path(self) -> Path:
        return self.path / "report.md"


def run_folder(root: str | Path, benchmark: str, model_name: str,
               config: Mapping[str, Any]) -> RunFolder:
    """Where a run with this config goes; the hash ignores package versions and timing."""
    return RunFolder(Path(root) / slug(benchmark) / slug(model_name) / content_hash(dict(config), 12))


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def write_json(path: Path, value: Any) -> None:
    _atomic_write(path, json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True,
                                   default=_json_default) + "\n")


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    try:  # numpy scalars
        return value.item()
    except AttributeError:
        raise TypeError(f"cannot write {type(value).__name__} to JSON") from None


def write_samples(path: Path, samples: Iterable[Mapping[str, Any]]) -> None:
    lines = [json.dumps(dict(s), ensure_ascii=False, sort_keys=True, default=_json_default)
             for s in samples]
    _atomic_write(path, "\n".join(lines) + ("\n" if lines else ""))


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not valid JSON ({error.msg})") from None
    return rows


def read_item_file(path: str | Path, from_dict: Callable[[dict[str, Any]], T]) -> list[T]:
    """Items of a generated JSONL file, each built by `from_dict`; an empty file or a
    repeated id is an error naming the file."""
    items = [from_dict(row) for row in read_jsonl(path)]
    if not items:
        raise ValueError(f"{path}: no items")
    repeated = sorted(k for k, n in Counter(getattr(i, "id") for i in items).items() if n > 1)
    if repeated:
        raise ValueError(f"{path}: item ids repeat: {repeated[:5]}")
    return items


def read_manifest(items_path: str | Path, command: str) -> dict[str, Any]:
    """FILE.manifest.json beside a generated items FILE; missing is an error naming the
    command that writes it."""
    manifest_path = Path(f"{items_path}.manifest.json")
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{manifest_path} is missing: export needs the generation "
                                f"manifest written by `{command}`")
    return json.loads(manifest_path.read_text(encoding="utf-8"))


def write_run(folder: RunFolder, config: Mapping[str, Any], samples: Iterable[Mapping[str, Any]],
              results: Mapping[str, Any], report_markdown: str) -> RunFolder:
    write_json(folder.config_path, {**config, "versions": package_versions()})
    write_samples(folder.samples_path, samples)
    write_json(folder.results_path, results)
    _atomic_write(folder.report_path, report_markdown)
    return folder


def read_run(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """(config, samples, results) of a run folder, with a clear error if it is not one."""
    folder = RunFolder(Path(path))
    missing = [p.name for p in (folder.config_path, folder.samples_path, folder.results_path)
               if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"{path} is not a lexbench run folder (missing {', '.join(missing)})")
    config = json.loads(folder.config_path.read_text(encoding="utf-8"))
    results = json.loads(folder.results_path.read_text(encoding="utf-8"))
    return config, read_jsonl(folder.samples_path), results
