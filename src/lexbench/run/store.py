"""Run folders: everything a reader or a re-scorer needs, as plain files.

    runs/<benchmark>/<model>/<config-hash>/
      config.json    benchmark config, model description, dataset hash, package versions
      samples.jsonl  one line per item: prompt, raw output, parsed answer, score, error class
      results.json   aggregates with confidence intervals
      report.md      the tables a reader wants first
      figures/       PNGs, for benchmarks that draw some

The folder name is a hash of the config, so the same command lands in the same folder
(and resumes from the response cache), and a changed setting never overwrites old results.

A run folder is written as one unit: its files go into a fresh hidden folder beside it
(`.<hash>.tmp-<pid>-<random>`) which then takes the old folder's place, by an atomic
exchange where the system has one (Linux `renameat2`), else by two renames. A reader sees
the whole old folder or the whole new one, never new samples beside old results, whatever
kills the writer. Single files are written the same way (`run.files`: a unique temporary
name, then a rename), so two writers never share a temporary file; JSON in a run folder is
strict (`run.files` says how NaN, infinities and lone surrogates are kept).

Two processes running the same configuration take turns: the first claims the folder (an
advisory lock on `.<hash>.lock` beside it, released by the system if the process dies),
the second waits with a message, then finds every answer in the response cache.
"""

from __future__ import annotations

import os
import platform
import re
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from lexbench.run import claims
from lexbench.run.files import read_json_file, read_jsonl
from lexbench.types import content_hash

TRACKED_PACKAGES = (
    "lexbench",
    "torch",
    "transformers",
    "nltk",
    "numpy",
    "scipy",
    "httpx",
    "wordfreq",
    "english-words",
    "gensim",
    "sentence-transformers",
)


def package_versions(
    names: Iterable[str] = TRACKED_PACKAGES, missing: str | None = None
) -> dict[str, str]:
    """Python's version and each installed package's; a package that is not installed is
    left out, or given as `missing` when that is set."""
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if missing is not None:
                versions[name] = missing
    return versions


def slug(text: str) -> str:
    """A file-system-safe name: `openai:gpt-4o` -> `openai-gpt-4o`."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return cleaned or "unnamed"


@dataclass(frozen=True)
class RunFolder:
    path: Path
    # Held while this process runs the folder's configuration (see `claim_run_folder`).
    claim: Any = field(default=None, compare=False, repr=False)

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


def run_folder(
    root: str | Path,
    benchmark: str,
    model_name: str,
    config: Mapping[str, Any],
    *,
    claim: bool = False,
) -> RunFolder:
    """Where a run with this config goes; the hash ignores package versions and timing.

    With `claim=True` the folder is also claimed for this process (waiting, with a message,
    while another process holds it) until `write_run` writes it or the process ends."""
    folder = RunFolder(
        Path(root) / slug(benchmark) / slug(model_name) / content_hash(dict(config), 12)
    )
    return claim_run_folder(folder) if claim else folder


def claim_run_folder(
    folder: RunFolder, notify: Callable[[str], None] | None = claims.say
) -> RunFolder:
    """`folder`, claimed for this process: waits (saying so through `notify`) while another
    process holds it. `write_run` releases the claim."""
    return RunFolder(folder.path, claim=claims.claim(folder.path, notify))


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where the system
    or file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    return result == 0


def _put_in_place(staging: Path, destination: Path) -> None:
    """Make `staging` the folder at `destination`, replacing whatever was there."""
    if not destination.exists():
        staging.rename(destination)
        return
    if _exchange(staging, destination):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old folder
        return
    # No atomic exchange: two renames. Killed between them, the folder is missing (never
    # mixed); the next write of this configuration writes it whole.
    old = destination.with_name(f".{destination.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
    destination.rename(old)
    staging.rename(destination)
    shutil.rmtree(old, ignore_errors=True)


def _remove_leftovers(destination: Path) -> None:
    """Staging folders of writers that died (only called while holding the claim)."""
    for pattern in (f".{destination.name}.tmp-*", f".{destination.name}.old-*"):
        for leftover in destination.parent.glob(pattern):
            shutil.rmtree(leftover, ignore_errors=True)


def read_run(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """(config, samples, results) of a run folder, with a clear error if it is not one.

    The three files are read from one version of the folder: when a writer replaced the
    folder while they were read (its inode changed), they are read again."""
    path = Path(path)
    for attempt in range(5):
        before = _inode(path)
        try:
            read = _read_run_once(path)
        except FileNotFoundError:
            if attempt == 4 or not _being_replaced(path):
                raise
        else:
            if before is not None and _inode(path) == before:
                return read
        time.sleep(0.05 * (attempt + 1))
    return _read_run_once(path)


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _being_replaced(path: Path) -> bool:
    """A writer's staging folder sits beside `path` (it is being written right now)."""
    return any(
        True
        for pattern in (f".{path.name}.tmp-*", f".{path.name}.old-*")
        for _ in path.parent.glob(pattern)
    )


def _read_run_once(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    config, results = read_run_head(path)
    return config, read_jsonl(RunFolder(path).samples_path), results


def read_run_head(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config, results) of a run folder, with a clear error if it is not one (its
    samples.jsonl must be there too; a streaming reader reads it line by line)."""
    folder = RunFolder(Path(path))
    missing = [
        p.name
        for p in (folder.config_path, folder.samples_path, folder.results_path)
        if not p.is_file()
    ]
    if missing:
        raise FileNotFoundError(
            f"{folder.path} is not a lexbench run folder (missing {', '.join(missing)})"
        )
    config = read_json_file(folder.config_path, "config.json")
    results = read_json_file(folder.results_path, "results.json")
    for name, value in (("config.json", config), ("results.json", results)):
        if not isinstance(value, dict):
            raise ValueError(
                f"{folder.path / name}: expected a JSON object, got "
                f"{type(value).__name__}; the file is damaged"
            )
    return config, results
