"""The response cache: SQLite in WAL mode, keyed by model fingerprint + request.

A key is sha256(canonical JSON of the fingerprint, canonical JSON of the request payload),
so the request id (which names an item) is not part of it: two benchmarks asking the same
model the same thing share the answer. Sampled requests carry their seed in the decoding,
so each seed (or epoch) is cached apart.

Only successful responses are stored: a failed request is asked again on the next run.
Every `put_many` is one committed transaction, and the runner calls it as answers arrive
(one by one for streaming backends), so a killed run (SIGKILL included) loses only what was
in flight: a WAL commit survives the death of the process that made it. WAL lets a reader
(a report, a second run) read while a run writes.

What is stored: the model fingerprint (never a secret: backends keep API keys and URL
credentials out of it), the request payload and the response. Nothing else. Text is stored
as JSON in which a lone surrogate (a model may emit one: `"\\udcff"` is legal JSON) is kept
as its `\\udcff` escape, so it reads back unchanged.

A cache that cannot be used (corrupt, truncated, read-only, on a full disk) raises
`CacheError`, naming the file, the problem and the ways out: `--no-cache`, another `--cache`,
or `lexbench cache repair` (moves the damaged file aside and rebuilds it from what can be
read; see lexbench.run.cache_repair). Every stored answer is checked against its schema
when read (`cache_rows`): a row of the wrong shape is a miss, with a warning, never a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lexbench.paths import cache_dir
from lexbench.run import send_claims
from lexbench.run.cache_problems import (
    CacheError,
    describe_problem,
    refuse_a_non_file,
)
from lexbench.run.cache_rows import MAX_ROW_CHARS, BadRow, parse_stored_response
from lexbench.run.send_claims import Holder, Owner
from lexbench.types import Failure, Request, Response, canonical_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sending (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    since REAL NOT NULL
);
"""
COLUMNS = ("key", "model", "request", "response", "created")
# Claims of answered keys deleted in one go (see put_many).
CLAIMS_ENDED_TOGETHER = 1024
# Pages the write-ahead log grows to before they are copied into the file (SQLite's default
# is 1,000, 4 MB). Every group of answers rewrites pages of the keys' index; copying them
# less often copies each such page once for many commits (2*10^4 SetLexSem-sized answers in
# groups of 64, closing included: 23 -> 17.5 us of CPU each; 6*10^4: 30 -> 20). A commit is
# as safe either way: what survives a kill is what is in the log.
WAL_CHECKPOINT_PAGES = 10_000


def _utf8(text: str) -> bytes:
    # A lone surrogate cannot be UTF-8; "surrogatepass" keeps keys of ordinary text as
    # they always were and gives such text a key too.
    return text.encode("utf-8", "surrogatepass")


def storable(text: str) -> str:
    """`text` (JSON) with lone surrogates written as `\\udcff` escapes: valid UTF-8 for
    SQLite, and the same string once parsed."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def request_key(fingerprint: Mapping[str, Any], request: Request) -> str:
    return request_keys(fingerprint, [request])[0]


def request_keys(fingerprint: Mapping[str, Any], requests: Iterable[Request]) -> list[str]:
    """`request_key` of each request, the model's part written once."""
    model = canonical_json(dict(fingerprint)) + "\n"
    return [hashlib.sha256(_utf8(model + r.cache_key_json())).hexdigest() for r in requests]


def default_cache_path() -> Path:
    return cache_dir("responses") / "responses.sqlite"


class ResponseCache:
    """Persistent map from (model, request) to response. Thread-safe for one process."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_cache_path()
        self._lock = threading.Lock()
        self._models: dict[int, tuple[Mapping[str, Any], str]] = {}
        self._answered_claims: list[str] = []  # claims of stored answers, ended in groups
        self._swept = False  # claims of owners found gone deleted (at the first claim)
        self._opened_at = time.time()
        self._closed = False
        refuse_a_non_file(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CacheError(describe_problem(self.path, error)) from None
        with self._errors():
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = self._connect()
        self._use_wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
        db.executescript(SCHEMA)
        db.commit()
        # A truncated or damaged file can open fine and fail on the first read.
        db.execute("SELECT key FROM responses LIMIT 1").fetchall()
        self._file = self._file_at_path()
        return db

    def _use_wal(self, db: sqlite3.Connection, patience: float = 60.0) -> None:
        """Switch the file to write-ahead logging. Two processes creating one cache at once
        race for this switch, and SQLite answers the loser "database is locked" at once,
        without its busy timeout: retry for up to `patience` seconds."""
        deadline = time.monotonic() + patience
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(str(self.path), check_same_thread=False, timeout=60)

    def _file_at_path(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return stat.st_dev, stat.st_ino

    def _follow_the_path(self) -> None:
        """(The lock held.) When the file this cache opened is no longer the one at its path
        (`lexbench cache clear` or `repair` ran meanwhile), carry what this process stored
        since it opened it (and the open send claims) to the file now at the path, created
        if need be, and use that one: answers written into a deleted file would be lost."""
        if os.name == "nt" or self._file_at_path() == self._file:
            return
        old, columns = self._db, ", ".join(COLUMNS)
        mine = old.execute(
            f"SELECT {columns} FROM responses WHERE created >= ?", (self._opened_at - 1.0,)
        ).fetchall()
        claims = old.execute("SELECT key, owner, host, pid, started, since FROM sending")
        self._db = self._open()
        self._db.executemany(
            f"INSERT OR IGNORE INTO responses ({columns}) VALUES (?,?,?,?,?)", mine
        )
        self._db.executemany("INSERT OR IGNORE INTO sending VALUES (?, ?, ?, ?, ?, ?)", claims)
        self._db.commit()
        old.close()
        print(
            f"lexbench: the response cache {self.path} was deleted or replaced while this run "
            f"used it (`lexbench cache clear` or `repair`?); the {len(mine)} answer(s) this "
            f"run stored are kept in the file now at {self.path}",
            file=sys.stderr,
            flush=True,
        )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, OSError) as error:
            raise CacheError(describe_problem(self.path, error)) from None

    def get_many(self, keys: Sequence[str]) -> dict[str, Response]:
        """The stored answers of `keys`. A row that is not a valid answer (damaged, or of
        a shape this version cannot read) is a miss, asked again and replaced; a warning
        says how many there were, once per call."""
        with self._lock, self._errors():
            self._follow_the_path()  # not the answers of a file deleted meanwhile
            return self._stored(keys)

    def _stored(self, keys: Sequence[str], warn: bool = True) -> dict[str, Response]:
        found: dict[str, Response] = {}
        bad: list[str] = []
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, response FROM responses WHERE key IN ({marks})", chunk
            )
            for key, text in rows:
                try:
                    found[key] = parse_stored_response(text)
                except BadRow as why:
                    bad.append(f"{str(key)[:12]}…: {why}")
        if bad and warn:
            print(
                f"lexbench: warning: {len(bad)} cached answer(s) in {self.path} are not valid "
                f"answers (first: {bad[0]}); they are asked again. `lexbench cache check "
                f"--cache {self.path}` lists the damage",
                file=sys.stderr,
                flush=True,
            )
        return found

    # ------------------------------------------------------------ send coordination

    def claim_for_sending(
        self, keys: Sequence[str], owner: Owner
    ) -> tuple[dict[str, Response], list[str], dict[str, Holder]]:
        """Claim `keys` for `owner` to send, in one transaction: (answers stored since they
        were looked up, keys now claimed by `owner`, {key: holder} for keys another live
        process is sending). Claims of owners found gone are taken over, and the first
        call deletes every such claim in the file (see `send_claims`)."""
        now = time.time()
        with self._lock, self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if not self._swept:
                    send_claims.sweep_dead(self._db, owner, now)
                answered = self._stored(keys, warn=False)  # said once, by get_many
                unanswered = [key for key in keys if key not in answered]
                mine, others = send_claims.claim(self._db, unanswered, owner, now)
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise
            self._swept = True
        return answered, mine, others

    def refresh_claims(self, owner: Owner) -> float:
        """Tell waiters that `owner` is still sending (see send_claims); the time written."""
        with self._lock, self._errors():
            now = time.time()
            self._db.execute("UPDATE sending SET since = ? WHERE owner = ?", (now, owner.id))
            self._db.commit()
        return now

    def release_claims(self, owner: Owner) -> None:
        """End every claim of `owner` (its run is over, finished or not)."""
        with self._lock, self._errors():
            self._end_answered_claims()
            self._db.execute("DELETE FROM sending WHERE owner = ?", (owner.id,))
            self._db.commit()

    def put_many(self, entries: Iterable[tuple[str, Mapping[str, Any], Request, Response]]) -> int:
        """Store the answers (failed requests excepted) in one transaction, which also ends
        the send claims of the failed keys (free to be sent again at once). The claims of
        answered keys end in groups (`CLAIMS_ENDED_TOGETHER`, in key order) and at the end
        of the run: one deleted per answer was half the cost of storing it (each touched
        its own page of the claims' index), and such a claim binds no one meanwhile, as
        `claim_for_sending` reads the answers first."""
        rows = []
        failed: list[tuple[str]] = []
        answered: list[str] = []
        now = time.time()
        for key, fingerprint, request, response in entries:
            if response.failure == Failure.REQUEST_FAILED:
                failed.append((key,))  # asked again on a rerun; a model's own answer (OOV) is kept
                continue
            text = storable(response.to_json())
            if len(text) > MAX_ROW_CHARS:  # never read back (cache_rows): asked again
                failed.append((key,))
                continue
            answered.append(key)
            rows.append(
                (key, self._model_json(fingerprint), storable(request.cache_key_json()), text, now)
            )
        if not rows and not failed:
            return 0
        with self._lock, self._errors():
            ending = self._answered_claims + answered
            ended_now = ending if len(ending) >= CLAIMS_ENDED_TOGETHER else []
            try:
                self._db.executemany(
                    "INSERT OR REPLACE INTO responses (key, model, request, response, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
                self._db.executemany(
                    "DELETE FROM sending WHERE key = ?", failed + [(k,) for k in sorted(ended_now)]
                )
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise
            self._answered_claims = [] if ended_now else ending
            self._follow_the_path()
        return len(rows)

    def _end_answered_claims(self) -> None:
        """Delete the claims of answered keys not deleted yet (the lock held)."""
        if self._answered_claims:
            self._db.executemany(
                "DELETE FROM sending WHERE key = ?", [(k,) for k in sorted(self._answered_claims)]
            )
            self._db.commit()
            self._answered_claims = []

    def _model_json(self, fingerprint: Mapping[str, Any]) -> str:
        """The fingerprint's JSON, written once per fingerprint object: a run stores every
        answer under the same one (kept with the object, so its id is never reused)."""
        kept = self._models.get(id(fingerprint))
        if kept is None or kept[0] is not fingerprint:
            if len(self._models) > 16:
                self._models.clear()
            kept = self._models[id(fingerprint)] = (
                fingerprint,
                storable(canonical_json(dict(fingerprint))),
            )
        return kept[1]

    def insert_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Store rows read from another cache file (`COLUMNS` order) as they are."""
        with self._lock, self._errors():
            self._db.executemany(
                f"INSERT OR REPLACE INTO responses ({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            self._db.commit()

    def count(self) -> int:
        with self._lock, self._errors():
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            with self._lock, self._errors():  # a file deleted since the last answer stored
                self._follow_the_path()
        finally:
            # Closing a connection to a damaged file: nothing left to save.
            with self._lock, contextlib.suppress(sqlite3.Error):
                self._end_answered_claims()
            with self._lock, contextlib.suppress(sqlite3.Error):
                self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def response_cache(
    cache: ResponseCache | str | Path | None = None, use_cache: bool = True
) -> Iterator[ResponseCache | None]:
    """The cache a run should use: `cache` itself when it is an open ResponseCache, else one
    opened at that path (None: the default path) and closed afterwards; None when
    `use_cache` is false."""
    if not use_cache:
        yield None
    elif isinstance(cache, ResponseCache):
        yield cache
    else:
        opened = ResponseCache(cache)
        try:
            yield opened
        finally:
            opened.close()
