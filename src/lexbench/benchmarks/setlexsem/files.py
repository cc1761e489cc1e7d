"""SetLexSem item files and item selection: write (validated, atomic), read, limit, select."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.setlexsem.generate import ItemGenerator, SkippedCell, matches_selection
from lexbench.benchmarks.setlexsem.grid import Grid
from lexbench.benchmarks.setlexsem.grid_read import resolve_grid
from lexbench.benchmarks.setlexsem.hyponym_pools import HyponymPool
from lexbench.benchmarks.setlexsem.item_ids import IdRepeats
from lexbench.benchmarks.setlexsem.items import SetLexSemItem
from lexbench.heartbeat import Step, long_step
from lexbench.paths import refuse_special_file

# One encoder for every line: `json.dumps` with options builds a new one per call.
_line_encoder = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def item_line(item: SetLexSemItem) -> str:
    """The item's line in an items file, and what the dataset hash is made of: its fields
    as JSON, keys sorted, no spaces. Encoded from `json_fields` (tuples, not list copies):
    the same bytes as `to_dict()` gives."""
    return _line_encoder.encode(item.json_fields()) + "\n"


def items_sha256(items: Iterable[SetLexSemItem]) -> str:
    """sha256 over `item_line` of every item, in order: the dataset hash a run records
    (a generator of items, e.g. `iter_items(path)`, is hashed without being held)."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(item_line(item).encode("utf-8"))
    return digest.hexdigest()


def _readable(path: str) -> None:
    """Give a temporary file (mkstemp makes it 0600) the mode a plain `open` would."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


def _atomic_text(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".partial"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        _readable(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def write_items(
    path: str | Path, grid: Grid | str | Path, wordnet: str | None = None
) -> dict[str, Any]:
    """Write FILE (JSONL) and FILE.manifest.json; returns the manifest.

    The whole grid is planned (and so validated) before anything is written; the JSONL is
    streamed to a uniquely named temporary file beside FILE and renamed into place, so an
    error or an interruption leaves neither a partial FILE nor a stray temporary file.
    FILE may not be a device or a named pipe: the rename would put a file in its place
    (/dev/null replaced, run as root), and the manifest would go beside it."""
    path = Path(path)
    refuse_special_file(
        path,
        "the prompts are written to a file renamed into place at FILE, with their manifest "
        "FILE.manifest.json beside it; name a regular file (or a new name)",
    )
    grid = resolve_grid(grid)
    with long_step(f"writing SetLexSem's items to {path}", unit="items") as step:
        return _write_items(path, grid, wordnet, step)


def _write_items(path: Path, grid: Grid, wordnet: str | None, step: Step) -> dict[str, Any]:
    generator = ItemGenerator(grid, wordnet)
    _, skipped = generator.plan()
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    counts: dict[str, dict[str, int]] = {
        s.name: {"configurations": 0, "prompts": 0} for s in grid.studies
    }
    configurations: set[str] = set()
    total = 0
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".partial"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            for item in generator.items():
                line = item_line(item)
                out.write(line)
                digest.update(line.encode("utf-8"))
                total += 1
                step.done = total
                configurations.add(item.config_id)
                for study in item.studies:
                    counts[study]["prompts"] += 1
                    if item.prompt_index == 0:
                        counts[study]["configurations"] += 1
        meta = manifest(
            grid, total, len(configurations), counts, digest.hexdigest(), generator.pools, skipped
        )
        _readable(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    _atomic_text(Path(f"{path}.manifest.json"), json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta


def manifest(
    grid: Grid,
    prompts: int,
    configurations: int,
    per_study: Mapping[str, Any],
    sha256: str,
    pools: Sequence[HyponymPool] | None,
    skipped: Sequence[SkippedCell] = (),
) -> dict[str, Any]:
    from lexbench import __version__
    from lexbench.benchmarks.setlexsem.hyponym_pools import hyponym_pools_fingerprint
    from lexbench.lexicon.words import wordfreq_version

    meta: dict[str, Any] = {
        "benchmark": "setlexsem",
        "grid": grid.to_dict(),
        "prompts": prompts,
        "configurations": configurations,
        "per_study": dict(per_study),
        "skipped_cells": [s.to_dict() for s in skipped],
        "content_sha256": sha256,
        "lexbench_version": __version__,
        "wordfreq_version": wordfreq_version(),
    }
    if pools is not None:
        meta["hyponym_pools_sha"] = hyponym_pools_fingerprint(pools)
    return meta


def read_items(path: str | Path) -> list[SetLexSemItem]:
    """Every item of a generated JSONL file (see `iter_items` for what is checked)."""
    return list(iter_items(path))


def iter_items(path: str | Path, check_ids: bool = True) -> Iterator[SetLexSemItem]:
    """The items of a generated JSONL file, one at a time, as they are read.

    Checked as `run.files.read_item_file` checks, with its messages: a line that is not
    JSON (its line number named), not an object or not an item (its item number named),
    text that is not UTF-8, an empty file, ids that repeat. Problems are reported in file
    order, the first one found ending the reading; repeated ids are known only at the end,
    so they are reported after the last item. Ids are remembered as 8-byte hashes, not as
    text (see `IdRepeats`); `check_ids=False` skips that check, for a file already read
    once with it."""
    repeats = IdRepeats() if check_ids else None
    number = 0
    decode = _decoder.decode
    from_dict = SetLexSemItem.from_dict
    try:
        with open(path, encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, 1):
                try:
                    row = decode(line)  # json.loads, less its check for a byte-order mark
                except json.JSONDecodeError:
                    if not line.strip():
                        continue
                    _not_json(path, line_number, line)
                number += 1
                if type(row) is not dict:
                    raise ValueError(
                        f"{path}: item {number} is a JSON {type(row).__name__}, not an "
                        f"object with the item's fields: {json.dumps(row)[:80]}"
                    )
                try:
                    item = from_dict(row)
                except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
                    detail = f"missing field {error}" if isinstance(error, KeyError) else str(error)
                    raise ValueError(
                        f"{path}: item {number} is not a valid item ({detail})"
                    ) from None
                if repeats is not None:
                    repeats.add(item.id)
                yield item
    except UnicodeDecodeError as error:
        # Decoded in blocks, so the line is unknown; the block's byte offset is not useful.
        raise ValueError(f"{path}: not UTF-8 text ({error.reason})") from None
    if number == 0:
        raise ValueError(f"{path}: no items")
    repeated = [] if repeats is None else repeats.repeated(lambda: _ids_in(path))
    if repeated:
        raise ValueError(f"{path}: item ids repeat: {repeated[:5]}")


_decoder = json.JSONDecoder()


def _not_json(path: str | Path, line_number: int, line: str) -> None:
    """Raise the error `json.loads` gives for `line` (a byte-order mark named as such)."""
    try:
        json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{line_number}: not valid JSON ({error.msg})") from None
    raise AssertionError(f"{path}:{line_number}: json.loads read a line its decoder did not")


def _ids_in(path: str | Path) -> Iterator[str]:
    """Every item id of a file `iter_items` has read through once (so it is valid)."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield str(_decoder.decode(line)["id"])


def limit_per_config(items: Sequence[SetLexSemItem], limit: int | None) -> list[SetLexSemItem]:
    """The first `limit` prompts of every configuration."""
    if limit is None:
        return list(items)
    return [i for i in items if i.prompt_index < limit]


SELECTABLE = (
    "study",
    "token_type",
    "operation",
    "m",
    "token_length",
    "decile",
    "deceptive_condition",
    "k",
    "method",
    "phrasing",
)


def parse_selection(specs: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """`["m=2,4", "k=0"]` -> {"m": ("2", "4"), "k": ("0",)}; a bad spec is a ValueError."""
    out: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        field_name, sep, values = spec.partition("=")
        field_name = field_name.strip()
        if not sep or field_name not in SELECTABLE or not values.strip():
            raise ValueError(
                f"--select {spec!r}: expected FIELD=V1,V2 with FIELD one of {', '.join(SELECTABLE)}"
            )
        if field_name in out:
            raise ValueError(
                f"--select names {field_name!r} twice; list the values once: {field_name}=V1,V2"
            )
        out[field_name] = tuple(v.strip() for v in values.split(",") if v.strip())
    return out


def select_items(
    items: Sequence[SetLexSemItem], selection: Mapping[str, Sequence[str]]
) -> list[SetLexSemItem]:
    """The items whose configuration matches `selection`. An empty result is an error."""
    if not selection:
        return list(items)
    # The selectable fields are the item's own attributes: no `to_dict()` copy per item.
    chosen = [i for i in items if matches_selection(selection, i.studies, vars(i))]
    check_selection(selection, chosen)
    return chosen


def check_selection(selection: Mapping[str, Sequence[str]], chosen: Sequence[Any]) -> None:
    if selection and not chosen:
        shown = " ".join(f"{k}={','.join(v)}" for k, v in selection.items())
        raise ValueError(f"--select {shown} matches no configuration of this grid")
