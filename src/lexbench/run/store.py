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
kills the writer. Single files are written the same way (a unique temporary name, then a
rename), so two writers never share a temporary file.

Two processes running the same configuration take turns: the first claims the folder (an
advisory lock on `.<hash>.lock` beside it, released by the system if the process dies),
the second waits with a message, then finds every answer in the response cache.

JSON written here is strict: NaN and infinities become `null`, and a lone surrogate (legal
in JSON, not in UTF-8) is written as its `\\udcff` escape, which reads back as the same
string. A JSON object file (results.json, config.json) that had such numbers also lists
them under `"non_finite"`: {JSON pointer: "NaN" | "Infinity" | "-Infinity"}, so strict
readers see `null` ("undefined") while `read_json_file` gives lexbench's own readers back
exactly the numbers that were computed.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import secrets
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lexbench.run import claims
from lexbench.run.jsonio import (
    dumps_strict,
    encode_text,
    restore_non_finite,
)
from lexbench.types import content_hash


class HasId(Protocol):
    """An item: anything with an `id`."""

    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=HasId)

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


# ------------------------------------------------------------------------------ files


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """An OSError of a write without a file name (a full disk, a file-size limit: `write`
    and `flush` name none) raised again naming `path`, so its one line says which file."""
    try:
        yield
    except OSError as error:
        if error.filename is None and error.errno is not None:
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise


def _atomic_write(path: Path, text: str | Iterable[str]) -> None:
    """Write `text` (or its pieces, one after another) to a unique temporary file beside
    `path`, flush it to disk, rename it over `path`: a reader sees the old file or the new
    one, and two writers never collide."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        with naming(path), open(temporary, "wb") as handle:
            for piece in [text] if isinstance(text, str) else text:
                handle.write(encode_text(piece))
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def write_text(path: Path, text: str) -> None:
    """A text file written atomically (lone surrogates as visible `\\udcff` escapes)."""
    _atomic_write(Path(path), text)


def write_json(path: Path, value: Any) -> None:
    _atomic_write(
        path,
        dumps_strict(value, mark_non_finite=True, indent=2, ensure_ascii=False, sort_keys=True)
        + "\n",
    )


def write_samples(path: Path, samples: Iterable[Mapping[str, Any]]) -> None:
    """One JSON line per sample, written as each is made: a run of 10^5 items never holds
    all its lines (or, given a generator, all its sample rows) in memory at once."""
    _atomic_write(path, (sample_text(s) for s in samples))


def sample_text(sample: Mapping[str, Any]) -> str:
    """One samples.jsonl line: strict JSON (see the module docstring), keys sorted."""
    return dumps_strict(dict(sample), ensure_ascii=False, sort_keys=True) + "\n"


def _load_json(path: Path, text: str, what: str) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path}: {what} is not valid JSON ({error.msg} at line {error.lineno}, "
            f"column {error.colno}); the file is damaged: rerun the command that "
            f"wrote it"
        ) from None
    try:
        return restore_non_finite(value)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def read_json_file(path: str | Path, what: str = "the file") -> Any:
    """A JSON file, with an error naming the file when it cannot be read or parsed; the
    numbers listed under "non_finite" come back as NaN/inf."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path}: {what} is not UTF-8 text (byte {error.start}); the file "
            f"is damaged: rerun the command that wrote it"
        ) from None
    return _load_json(path, text, what)


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    return [row for _, row in iter_jsonl(path)]


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) of a JSONL file, one line at a time (blank lines skipped); a
    line that is not JSON, or text that is not UTF-8, is an error naming the file."""
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}:{number}: not valid JSON ({error.msg})") from None
                yield number, value
    except UnicodeDecodeError as error:
        # Decoded in blocks, so the line is unknown; the block's byte offset is not useful.
        raise ValueError(f"{path}: not UTF-8 text ({error.reason})") from None


def read_item_file(path: str | Path, from_dict: Callable[[dict[str, Any]], T]) -> list[T]:
    """Items of a generated JSONL file, each built by `from_dict`; an empty file, a line
    that is not an item (not a JSON object, or missing fields) or a repeated id is an error
    naming the file and line."""
    items = []
    for number, row in enumerate(read_jsonl(path), 1):
        if not isinstance(row, dict):
            raise ValueError(
                f"{path}: item {number} is a JSON {type(row).__name__}, not an "
                f"object with the item's fields: {json.dumps(row)[:80]}"
            )
        try:
            items.append(from_dict(row))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            detail = f"missing field {error}" if isinstance(error, KeyError) else str(error)
            raise ValueError(f"{path}: item {number} is not a valid item ({detail})") from None
    if not items:
        raise ValueError(f"{path}: no items")
    repeated = sorted(k for k, n in Counter(i.id for i in items).items() if n > 1)
    if repeated:
        raise ValueError(f"{path}: item ids repeat: {repeated[:5]}")
    return items


def read_manifest(items_path: str | Path, command: str) -> dict[str, Any]:
    """FILE.manifest.json beside a generated items FILE; missing is an error naming the
    command that writes it."""
    manifest_path = Path(f"{items_path}.manifest.json")
    if not manifest_path.is_file():
        raise FileNotFoundError(
            f"{manifest_path} is missing: export needs the generation "
            f"manifest written by `{command}`"
        )
    return read_json_file(manifest_path, "the manifest")


# ------------------------------------------------------------------------------ run folders


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
