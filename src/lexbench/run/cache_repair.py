"""Looking after the response cache: `lexbench cache check|repair|clear` (lexbench.commands.cache).

`check_cache` runs SQLite's integrity check and reads every stored answer against its
schema (`cache_rows`); a cache this process may not write (a read-only file or folder) is
checked through a copy, since SQLite cannot open a WAL database read-only without writing
its shared-memory file; a writable one is opened read-write (and only read), so that closing
it removes the `-wal`/`-shm` files, as the last connection to a WAL database does.
`repair_cache` moves a damaged file aside and builds a new one from every row that still
reads and has the right shape, counting the rows it dropped.

Nothing lexbench makes is left behind: the salvage copy goes once read, and the file moved
aside takes its write-ahead log in (a checkpoint), so no `-wal`/`-shm` stays beside it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.paths import refuse_special_file
from lexbench.run.cache import COLUMNS, ResponseCache
from lexbench.run.cache_problems import NEEDS_A_FILE, CacheError
from lexbench.run.cache_rows import BadRow, parse_stored_response


def sidecar_files(path: Path) -> list[Path]:
    """The database file and SQLite's WAL and shared-memory files beside it."""
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def refuse_a_folder(path: Path) -> None:
    """A `--cache` that names a folder, a device or a named pipe is a mistake: say so (the
    CLI exits 2), before `check` reads, `repair` moves or `clear` deletes anything (a
    `cache clear --cache /dev/null` run as root would delete the device)."""
    if path.is_dir():
        raise ValueError(
            f"--cache {path} is a folder, not a cache file: give the file itself, "
            f"e.g. --cache {path / 'responses.sqlite'}"
        )
    refuse_special_file(path, NEEDS_A_FILE, named="--cache ")


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


@contextmanager
def _checkable(path: Path) -> Iterator[tuple[Path, bool]]:
    """(file to check, whether it is a copy): the file itself when this process may write
    beside it, else a copy (with its write-ahead log) in a temporary folder."""
    if _writable(path):
        yield path, False
        return
    with tempfile.TemporaryDirectory(prefix="lexbench-check-") as scratch:
        copy = Path(scratch) / path.name
        for part, target in zip(sidecar_files(path), sidecar_files(copy)):
            if part.is_file() and not part.name.endswith("-shm"):
                shutil.copyfile(part, target)
        yield copy, True


@dataclass(frozen=True)
class CheckResult:
    healthy: bool
    line: str
    read_only: bool = False


def check_cache(path: Path) -> CheckResult:
    """SQLite's integrity check plus a schema check of every stored answer."""
    refuse_a_folder(path)
    if not path.is_file():
        return CheckResult(True, f"{path}: no cache yet (it is created by the first run)")
    bad = total = 0
    example = ""
    try:
        with _checkable(path) as (target, copied):
            # Read-write, though it only reads: the last connection to close folds the
            # write-ahead log in and deletes -wal/-shm, which a read-only one leaves behind.
            mode = "ro" if copied else "rw"
            db = sqlite3.connect(f"file:{target}?mode={mode}", uri=True, timeout=10)
            try:
                verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
                if verdict != "ok":
                    return CheckResult(False, f"{path}: corrupt ({verdict})")
                for key, text in db.execute("SELECT key, response FROM responses"):
                    total += 1
                    try:
                        parse_stored_response(text)
                    except BadRow as why:
                        bad += 1
                        example = example or f"row {str(key)[:12]}…: {why}"
            finally:
                db.close()
    except sqlite3.Error as error:
        return CheckResult(False, f"{path}: corrupt or unreadable ({error})")
    size = sum(p.stat().st_size for p in sidecar_files(path) if p.is_file())
    if bad:
        return CheckResult(
            False, f"{path}: {bad} of {total} stored answers cannot be read (first: {example})"
        )
    line = f"{path}: ok, {total} responses, {size / 1e6:.1f} MB"
    if copied:
        line += (
            "; read-only (a copy was checked): runs cannot add answers to it, so make it "
            "writable or run with --cache ANOTHER_FILE"
        )
    return CheckResult(True, line, read_only=copied)


@dataclass(frozen=True)
class Salvage:
    rows: list[tuple[Any, ...]]
    dropped: int  # rows read whose answer is not a valid Response


def salvage_rows(path: Path, skip: int = 500, give_up_after: int = 40) -> Salvage:
    """Every row that can still be read from a damaged cache file (possibly none): rows are
    read in rowid order until a damaged page stops the scan, which then resumes `skip`
    rowids further on, until `give_up_after` jumps in a row find nothing. Rows whose
    answer does not match the schema are dropped and counted."""
    copy = _readable_copy(path)
    try:
        return _checked(_salvage_from(copy, skip, give_up_after))
    finally:
        for part in sidecar_files(copy):
            part.unlink(missing_ok=True)


def _readable_copy(path: Path) -> Path:
    """A copy of `path` (and of its write-ahead log, whose commits are answers too) whose
    header counts the pages the file really has: SQLite refuses a truncated file outright
    (header size > file size), though its first pages are intact."""
    copy = path.with_name(f"{path.name}.salvage-{os.getpid()}")
    shutil.copyfile(path, copy)
    wal = sidecar_files(path)[1]
    if wal.is_file():
        shutil.copyfile(wal, sidecar_files(copy)[1])
    with open(copy, "r+b") as handle:
        header = handle.read(100)
        if len(header) == 100 and header.startswith(b"SQLite format 3\x00"):
            page_size = int.from_bytes(header[16:18], "big")
            page_size = 65536 if page_size == 1 else page_size
            pages = copy.stat().st_size // page_size if page_size else 0
            if pages and int.from_bytes(header[28:32], "big") > pages:
                handle.truncate(pages * page_size)
                handle.seek(28)
                handle.write(pages.to_bytes(4, "big"))
    return copy


def _salvage_from(path: Path, skip: int, give_up_after: int) -> list[tuple[Any, ...]]:
    try:
        db = sqlite3.connect(str(path), timeout=10)
    except sqlite3.Error:
        return []  # nothing of it opens: nothing to salvage (the caller says how many)
    rows: list[tuple[Any, ...]] = []
    query = f"SELECT rowid, {', '.join(COLUMNS)} FROM responses WHERE rowid > ? ORDER BY rowid"
    last, misses = 0, 0
    try:
        while misses < give_up_after:
            try:
                cursor = db.execute(query, (last,))
                while True:
                    row = cursor.fetchone()
                    if row is None:
                        return rows
                    rows.append(row[1:])
                    last, misses = row[0], 0
            except sqlite3.Error:
                last += skip  # a damaged page: resume past it
                misses += 1
    finally:
        db.close()
    return rows


def _checked(rows: list[tuple[Any, ...]]) -> Salvage:
    good = []
    for row in rows:
        try:
            parse_stored_response(row[3])
        except BadRow:
            continue  # counted below: `repair` reports how many it dropped
        good.append(row)
    return Salvage(good, len(rows) - len(good))


@dataclass(frozen=True)
class Repair:
    aside: Path  # where the damaged file went
    kept: int
    dropped: int  # rows that read but were not valid answers
    leftovers: tuple[Path, ...] = ()  # WAL files of the damaged file that could not be folded in


def _fold_log_into(aside: Path) -> tuple[Path, ...]:
    """Checkpoint the moved file's write-ahead log into it, so it stands alone (SQLite
    deletes `-wal` and `-shm` when the last connection closes); what could not be folded
    in (a damaged file) stays beside it, and is returned."""
    wal, shm = sidecar_files(aside)[1:]
    if wal.exists():
        with contextlib.suppress(sqlite3.Error):  # damaged: the leftovers are reported
            db = sqlite3.connect(str(aside), timeout=10)
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
    if not wal.exists() or wal.stat().st_size == 0:
        wal.unlink(missing_ok=True)
        shm.unlink(missing_ok=True)  # an index of the log, remade by SQLite on demand
    return tuple(p for p in (wal, shm) if p.exists())


def _free_aside_name(path: Path) -> Path:
    """PATH.damaged-<time>, with -2, -3, ... added when a repair in the same second (or
    its WAL files) already took the name: a damaged file moved aside is never replaced."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside, number = path.with_name(f"{path.name}.damaged-{stamp}"), 1
    while any(part.exists() or part.is_symlink() for part in sidecar_files(aside)):
        number += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    return aside


def repair_cache(path: Path) -> Repair:
    """Move a damaged cache (with its WAL files) aside to PATH.damaged-<time> and build a
    new one at `path` from the rows that can still be read and are valid answers."""
    refuse_a_folder(path)
    if path.exists() and not _writable(path):
        raise CacheError(
            f"response cache {path} cannot be repaired where it is: it or its folder is "
            f"read-only. Copy it to a writable place and repair the copy "
            f"(lexbench cache repair --cache COPY), or run with --cache ANOTHER_FILE"
        )
    aside = _free_aside_name(path)
    salvage = salvage_rows(path) if path.is_file() else Salvage([], 0)
    for part in sidecar_files(path):
        if part.exists():
            part.rename(part.with_name(aside.name + part.name[len(path.name) :]))
    leftovers = _fold_log_into(aside) if aside.exists() else ()
    fresh = ResponseCache(path)
    try:
        fresh.insert_rows(salvage.rows)
    finally:
        fresh.close()
    return Repair(aside, len(salvage.rows), salvage.dropped, leftovers)
