"""A human study's file: one SQLite database (WAL) holding the items, what each annotator
was shown, and every answer.

    STUDY/study.sqlite
      meta     the study's spec (benchmark, dataset, sample, options) and its random id
      items    position, opaque token, item id, the item itself (JSON)
      stages   per item the steps an annotator takes (LAMBDA: "answer"; E-KAR: "hard"
               then "easy"), each with the exact prompt a model would get for it
      views    when each step was first served to each annotator (time on task), and how
               often (a begin, or the answer before it; a GET writes nothing)
      answers  one row per (annotator, item, step): typed text, what the scorer reads,
               client-measured and server-measured time; the primary key makes a second
               answer to the same step impossible, whatever the browser does
      invites  per invited annotator the sha256 of their link's secret (never the secret)

Writes use `synchronous=FULL`: an answer the server has acknowledged is on the disk.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

DATABASE = "study.sqlite"
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    position INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE, item_id TEXT NOT NULL UNIQUE,
    item TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stages (
    token TEXT NOT NULL REFERENCES items(token), stage TEXT NOT NULL, step INTEGER NOT NULL,
    prompt TEXT NOT NULL, prompt_key TEXT NOT NULL, PRIMARY KEY (token, stage));
CREATE TABLE IF NOT EXISTS annotators (name TEXT PRIMARY KEY, joined REAL NOT NULL);
CREATE TABLE IF NOT EXISTS views (
    annotator TEXT NOT NULL, token TEXT NOT NULL, stage TEXT NOT NULL,
    first_shown REAL NOT NULL, last_shown REAL NOT NULL, times INTEGER NOT NULL,
    PRIMARY KEY (annotator, token, stage));
CREATE TABLE IF NOT EXISTS answers (
    annotator TEXT NOT NULL, token TEXT NOT NULL, stage TEXT NOT NULL,
    typed TEXT NOT NULL, output TEXT NOT NULL, client_ms INTEGER,
    first_shown REAL NOT NULL, answered_at REAL NOT NULL,
    PRIMARY KEY (annotator, token, stage));
CREATE TABLE IF NOT EXISTS invites (
    name TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL UNIQUE, created REAL NOT NULL);
"""
# Added after the first studies were made: opening an older study adds it.
INVITES_SCHEMA = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS invites") :]


def connect_database(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we write BEGIN/COMMIT ourselves; check_same_thread=False: the
    # web server's worker threads share the connection under Study._lock.
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    return db
