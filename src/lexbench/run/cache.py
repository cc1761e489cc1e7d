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

What is stored: the model fingerprint (never a secret: backends keep API keys out of it),
the request payload and the response. Nothing else.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lexbench.paths import cache_dir
from lexbench.types import Request, Response, canonical_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
);
"""


def request_key(fingerprint: Mapping[str, Any], request: Request) -> str:
    payload = canonical_json(dict(fingerprint)) + "\n" + canonical_json(request.cache_key_payload())
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def default_cache_path() -> Path:
    return cache_dir("responses") / "responses.sqlite"


class ResponseCache:
    """Persistent map from (model, request) to response. Thread-safe for one process."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, Response]:
        found: dict[str, Response] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start:start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, response FROM responses WHERE key IN ({marks})", chunk)
                for key, text in rows:
                    found[key] = Response.from_dict(json.loads(text))
        return found

    def put_many(self, entries: Iterable[tuple[str, Mapping[str, Any], Request, Response]]) -> int:
        rows = []
        now = time.time()
        for key, fingerprint, request, response in entries:
            if response.error is not None:
                continue
            rows.append((key, canonical_json(dict(fingerprint)),
                         canonical_json(request.cache_key_payload()),
                         canonical_json(response.to_dict()), now))
        if not rows:
            return 0
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO responses (key, model, request, response, created) "
                "VALUES (?, ?, ?, ?, ?)", rows)
            self._db.commit()
        return len(rows)

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def response_cache(cache: ResponseCache | str | Path | None = None,
                   use_cache: bool = True) -> Iterator[ResponseCache | None]:
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
