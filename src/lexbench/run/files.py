"""Single files as lexbench writes and reads them: each written as one unit, each read back
with an error that names the file.

A file is written to a unique temporary name beside it, flushed to disk, then renamed over
the old one: a reader sees the whole old file or the whole new one, and two writers never
share a temporary file. A write that fails without naming a file (a full disk, a file-size
limit) is raised again naming it.

JSON written here is strict: NaN and infinities become `null`, and a lone surrogate (legal
in JSON, not in UTF-8) is written as its `\\udcff` escape, which reads back as the same
string. A JSON object file (results.json, config.json) that had such numbers also lists
them under `"non_finite"`: {JSON pointer: "NaN" | "Infinity" | "-Infinity"}, so strict
readers see `null` ("undefined") while `read_json_file` gives lexbench's own readers back
exactly the numbers that were computed.

A file that cannot be read (not UTF-8, not JSON, not an item, a repeated id, a missing
manifest) is one error naming the file, and the line where there is one.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lexbench.run.jsonio import (
    dumps_strict,
    encode_text,
    restore_non_finite,
)


class HasId(Protocol):
    """An item: anything with an `id`."""

    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=HasId)


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


def atomic_write(path: Path, text: str | Iterable[str]) -> None:
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
    atomic_write(Path(path), text)


def write_json(path: Path, value: Any) -> None:
    atomic_write(
        path,
        dumps_strict(value, mark_non_finite=True, indent=2, ensure_ascii=False, sort_keys=True)
        + "\n",
    )


def write_samples(path: Path, samples: Iterable[Mapping[str, Any]]) -> None:
    """One JSON line per sample, written as each is made: a run of 10^5 items never holds
    all its lines (or, given a generator, all its sample rows) in memory at once."""
    atomic_write(path, (sample_text(s) for s in samples))


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
