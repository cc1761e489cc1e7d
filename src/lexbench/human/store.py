"""An open human study: what each annotator is to do next, their answers (saved the moment
they are given, each step once), and the invitations.

The file it reads and writes is `lexbench.human.database`'s. Tokens are random (`secrets`),
stored only there: nothing an annotator sees can be turned back into an item id, a relation
or an answer. Every write is one `BEGIN IMMEDIATE` transaction, so killing the server loses
no saved answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.database import DATABASE, INVITES_SCHEMA, connect_database

# The order items come in: the study's own for every annotator (as a sheet would give them),
# or each annotator's own random order (no item always comes first or last).
ORDERS = ("same", "per-annotator")
ANNOTATOR = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
# Names the results step uses for its own runs.
RESERVED_NAMES = frozenset({"crowd"})


class StudyError(ValueError):
    """A request the study must refuse (unknown token, wrong order, a bad name)."""


def check_annotator(name: str) -> str:
    """A valid annotator name, or a StudyError saying what a name may be."""
    if not ANNOTATOR.fullmatch(name or ""):
        raise StudyError(
            f"annotator name {name!r} is not allowed: use 1-40 letters, digits, "
            f"'.', '_' or '-', starting with a letter or digit"
        )
    if name.lower() in RESERVED_NAMES:
        raise StudyError(f"annotator name {name!r} is reserved for the majority-vote run")
    return name


@dataclass(frozen=True)
class Step:
    """What an annotator is to do next: item `token`, step `stage`."""

    position: int
    token: str
    item_id: str
    item: dict[str, Any]
    stage: str
    step: int


@dataclass(frozen=True)
class Answer:
    annotator: str
    item_id: str
    token: str
    stage: str
    typed: str
    output: str
    prompt_key: str
    client_ms: int | None
    first_shown: float
    answered_at: float

    @property
    def server_seconds(self) -> float:
        return self.answered_at - self.first_shown


@dataclass(frozen=True)
class Progress:
    done: int
    total: int


class Study:
    """An open study. Safe to share between the web server's threads."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        path = self.directory / DATABASE
        if not path.is_file():
            raise FileNotFoundError(
                f"{self.directory} holds no study ({DATABASE} is missing); "
                f"create one with `lexbench human serve BENCHMARK --study "
                f"{self.directory}`"
            )
        self._lock = threading.Lock()
        self._db = connect_database(path)
        self.spec: dict[str, Any] = json.loads(self._meta("spec"))
        self.id: str = self._meta("study_id")
        self._invites = self._has_table("invites")
        if not self._invites:
            # A study made before invitations: the table is added, unless the study is
            # read-only (results read from read-only storage): it then has no invitations.
            with contextlib.suppress(sqlite3.OperationalError):
                self._db.execute(INVITES_SCHEMA)
                self._invites = True

    def _has_table(self, name: str) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return self._db.execute(query, (name,)).fetchone() is not None

    # ------------------------------------------------------------------ reading

    def _meta(self, key: str) -> str:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise ValueError(f"{self.directory / DATABASE}: not a lexbench study (no {key!r})")
        return str(row[0])

    @property
    def benchmark(self) -> str:
        return str(self.spec["benchmark"])

    def stage_names(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT stage, step FROM stages ORDER BY step"
            ).fetchall()
        return [r[0] for r in rows]

    def items(self) -> list[tuple[str, dict[str, Any]]]:
        """(item id, item) in study order."""
        with self._lock:
            rows = self._db.execute("SELECT item_id, item FROM items ORDER BY position").fetchall()
        return [(r[0], json.loads(r[1])) for r in rows]

    def prompts(self, stage: str) -> dict[str, str]:
        """item id -> the prompt stored for this stage."""
        with self._lock:
            rows = self._db.execute(
                "SELECT i.item_id, s.prompt FROM stages s JOIN items i USING (token) "
                "WHERE s.stage = ? ORDER BY i.position",
                (stage,),
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def annotators(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT name FROM annotators ORDER BY name").fetchall()
        return [r[0] for r in rows]

    def next_step(self, annotator: str) -> Step | None:
        """The first step this annotator has not answered, in study order (or, in a study
        made with `order="per-annotator"`, in the annotator's own order); None when done."""
        unanswered = (
            "SELECT i.position, s.token, i.item_id, i.item, s.stage, s.step "
            "FROM stages s JOIN items i USING (token) "
            "LEFT JOIN answers a ON a.annotator = ? AND a.token = s.token "
            "AND a.stage = s.stage WHERE a.token IS NULL "
        )
        with self._lock:
            if self.spec.get("order", "same") == "per-annotator":
                rows = self._db.execute(unanswered, (annotator,)).fetchall()
                row = min(rows, key=lambda r: (self.order_key(annotator, r[1]), r[5]), default=None)
            else:
                row = self._db.execute(
                    unanswered + "ORDER BY i.position, s.step LIMIT 1", (annotator,)
                ).fetchone()
        if row is None:
            return None
        return Step(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5])

    def order_key(self, annotator: str, token: str) -> str:
        """Where an item comes in the annotator's own order: a hash of the study, the
        annotator and the item's token, so each annotator's order is random, differs from
        the others', and is the same again after a reload or a restart."""
        text = f"{self.spec.get('study_id', '')}\0{annotator}\0{token}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def step(self, token: str, stage: str) -> Step:
        with self._lock:
            row = self._db.execute(
                "SELECT i.position, s.token, i.item_id, i.item, s.stage, s.step "
                "FROM stages s JOIN items i USING (token) WHERE s.token = ? AND s.stage = ?",
                (token, stage),
            ).fetchone()
        if row is None:
            raise StudyError("no such item in this study")
        return Step(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5])

    def progress(self, annotator: str) -> Progress:
        with self._lock:
            total = self._db.execute("SELECT COUNT(*) FROM stages").fetchone()[0]
            done = self._db.execute(
                "SELECT COUNT(*) FROM answers WHERE annotator = ?", (annotator,)
            ).fetchone()[0]
        return Progress(int(done), int(total))

    def answer_to(self, annotator: str, token: str, stage: str) -> str | None:
        """What the annotator typed for this step, None if not answered."""
        with self._lock:
            row = self._db.execute(
                "SELECT typed FROM answers WHERE annotator = ? AND token = ? AND stage = ?",
                (annotator, token, stage),
            ).fetchone()
        return None if row is None else str(row[0])

    def answers(self, annotator: str | None = None) -> list[Answer]:
        """Every saved answer (of one annotator, or all), in study order."""
        query = (
            "SELECT a.annotator, i.item_id, a.token, a.stage, a.typed, a.output, s.prompt_key, "
            "a.client_ms, a.first_shown, a.answered_at FROM answers a "
            "JOIN items i USING (token) JOIN stages s ON s.token = a.token AND s.stage = a.stage"
        )
        parameters: tuple[Any, ...] = ()
        if annotator is not None:
            query += " WHERE a.annotator = ?"
            parameters = (annotator,)
        query += " ORDER BY a.annotator, i.position, s.step"
        with self._lock:
            rows = self._db.execute(query, parameters).fetchall()
        return [Answer(*row) for row in rows]

    def answer_book(self, annotator: str) -> dict[str, str]:
        """prompt key -> what the scorer reads, for the `human:NAME` model."""
        return {a.prompt_key: a.output for a in self.answers(annotator)}

    # ------------------------------------------------------------------ writing

    def join(self, annotator: str) -> None:
        check_annotator(annotator)
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO annotators (name, joined) VALUES (?, ?)",
                (annotator, time.time()),
            )

    def was_shown(self, annotator: str, step: Step) -> bool:
        """Whether this step was served to this annotator (its time on task has started)."""
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM views WHERE annotator = ? AND token = ? AND stage = ?",
                (annotator, step.token, step.stage),
            ).fetchone()
        return row is not None

    def spelled(self, annotator: str) -> str | None:
        """The spelling under which this study knows `annotator` (names compare
        case-insensitively: `Bob` and `BOB` are `bob`): an invited name first, then one who
        joined; None for a name it does not know."""
        key = annotator.casefold()
        with self._lock:
            invited = (
                self._db.execute("SELECT name FROM invites").fetchall() if self._invites else []
            )
            joined = self._db.execute("SELECT name FROM annotators ORDER BY joined").fetchall()
        return next((r[0] for r in [*invited, *joined] if r[0].casefold() == key), None)

    def record_view(self, annotator: str, step: Step) -> None:
        """Remember when this annotator was first served this step (the start of time on
        task). Called from POSTs only (begin, and the answer before it): a GET never writes."""
        now = time.time()
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO views (annotator, token, stage, first_shown, last_shown, times) "
                "VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (annotator, token, stage) DO UPDATE SET "
                "last_shown = excluded.last_shown, times = times + 1",
                (annotator, step.token, step.stage, now, now),
            )

    def save_answer(
        self, annotator: str, token: str, stage: str, typed: str, output: str, client_ms: int | None
    ) -> bool:
        """Save one answer; False (nothing written) when this step is already answered.

        Refused with a StudyError: an unknown item or step, a step never shown to this
        annotator, or a later step (E-KAR's EASY) before the earlier one is answered."""
        step = self.step(token, stage)
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                seen = self._db.execute(
                    "SELECT first_shown FROM views WHERE annotator = ? AND token = ? AND stage = ?",
                    (annotator, token, stage),
                ).fetchone()
                if seen is None:
                    raise StudyError("this item was never shown to this annotator")
                earlier = self._db.execute(
                    "SELECT COUNT(*) FROM stages s LEFT JOIN answers a ON a.annotator = ? AND "
                    "a.token = s.token AND a.stage = s.stage WHERE s.token = ? AND s.step < ? "
                    "AND a.token IS NULL",
                    (annotator, token, step.step),
                ).fetchone()[0]
                if earlier:
                    raise StudyError("an earlier step of this item is not answered yet")
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO answers (annotator, token, stage, typed, output, "
                    "client_ms, first_shown, answered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (annotator, token, stage, typed, output, client_ms, seen[0], now),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return cursor.rowcount == 1

    # ------------------------------------------------------------------ invitations

    def invite(self, annotator: str) -> str:
        """A new secret for this annotator's link; only its sha256 is stored. Inviting a
        name again replaces the secret, so an older link stops working."""
        check_annotator(annotator)
        annotator = self.spelled(annotator) or annotator  # `Bob` again is `bob`'s new link
        secret = secrets.token_urlsafe(32)
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO invites (name, secret_sha256, created) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET secret_sha256 = excluded.secret_sha256, "
                "created = excluded.created",
                (annotator, secret_digest(secret), time.time()),
            )
        return secret

    def invited(self) -> set[str]:
        if not self._invites:
            return set()
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT name FROM invites").fetchall()}

    def invitee(self, secret: str) -> str | None:
        """The annotator whose link carries this secret, None for any other string."""
        if not secret or len(secret) > 200 or not self._invites:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT name FROM invites WHERE secret_sha256 = ?", (secret_digest(secret),)
            ).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


def secret_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()
