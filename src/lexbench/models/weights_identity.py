"""What local weights are: the sha256 of their bytes, remembered so it is computed once.

A model read from disk (`hf:FOLDER`, `mlm:FOLDER`, a `.gguf` file, an E-KAR classifier, a
contextual encoder, a sentence encoder) is identified by the content of every file in its
folder that can decide its answers (weights, config, generation config, tokenizer, chat
template, any file added beside them: all but a short list of documents and a trainer's
state, see `identity_files`), never by names and sizes: a checkpoint
saved over an older one of the same architecture has files of the same sizes, and must get
neither the older one's cached answers nor its run folder.

Hashing gigabytes takes seconds, so each file's digest is remembered in lexbench's cache
(`weights/sha256-memo.json`) under (resolved path, size, mtime_ns, ctime_ns, inode). Any
write to a file changes its ctime, which no tool can set back (unlike mtime), and a file
replaced by another has a new inode: a remembered digest is only reused for the same bytes.

>>> folder_sha256(Path("my-checkpoint"))        # doctest: +SKIP
'5f1d…'
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lexbench.hashing import sha256_file
from lexbench.paths import cache_location, write_atomically

# Every file of a model folder is part of its identity unless it is known not to change an
# answer: a list of what to skip, never a list of what to keep, so a file no list foresaw
# (chat_template.jinja, generation_config.json, added_tokens.json, a custom tokenizer's
# vocabulary, a sub-folder's module) changes the identity. Skipped: a model card and its
# licence (read by people, never by a loader), pictures, and the entries below.
DOCUMENT_PREFIXES = ("readme", "license", "licence", "notice", "copying", "use_policy")
DOCUMENT_SUFFIXES = frozenset({".md", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"})
# A trainer's own state beside the weights: never read when the model is loaded, and the
# optimizer's is twice the weights' size.
TRAINER_FILES = frozenset(
    {"optimizer.pt", "scheduler.pt", "training_args.bin", "trainer_state.json", "scaler.pt"}
)
MEMO_FILE = "sha256-memo.json"
MEMO_LIMIT = 4096  # remembered files; the oldest are forgotten first


def _memo_path() -> Path:
    """Where the memo is; nothing is created (a missing folder reads as an empty memo)."""
    return cache_location("weights") / MEMO_FILE


def _stat_key(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def _read_memo(memo: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(memo.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # a damaged memo only costs a rehash; it is rewritten whole below
    return loaded if isinstance(loaded, dict) else {}


def remembered_sha256(path: str | Path) -> str:
    """sha256 of the file's bytes; read from the memo when the file's (size, mtime, ctime,
    inode) are those it was hashed with, else computed and remembered."""
    resolved = Path(path).resolve()
    key = str(resolved)
    before = _stat_key(resolved)
    memo_path = _memo_path()
    entry = _read_memo(memo_path).get(key)
    if isinstance(entry, dict) and entry.get("stat") == before:
        digest = entry.get("sha256")
        if isinstance(digest, str) and len(digest) == 64:
            return digest
    digest = sha256_file(resolved)
    if _stat_key(resolved) != before:
        return digest  # written while being read: correct for these bytes, not remembered
    memo = _read_memo(memo_path)  # re-read: another process may have added files since
    memo.pop(key, None)
    memo[key] = {"stat": before, "sha256": digest}
    while len(memo) > MEMO_LIMIT:
        memo.pop(next(iter(memo)))
    # A read-only cache: the digest is right, it is just computed again next time.
    with contextlib.suppress(OSError):
        memo_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(memo_path, json.dumps(memo, sort_keys=False))
    return digest


def _is_document(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith(DOCUMENT_PREFIXES) or Path(lowered).suffix in DOCUMENT_SUFFIXES


def identity_files(folder: Path) -> Iterator[Path]:
    """Every file of a model folder, in a stable order: the folder's own and those of its
    sub-folders (sentence-transformers modules such as 1_Pooling/), except what cannot change
    an answer: hidden entries (.git, a writer's .partial file), trainer checkpoints
    (checkpoint-N/) and a trainer's state (optimizer.pt, rng_state*.pth ...), which loading
    the folder does not read, and documents (README, LICENSE, *.md, pictures)."""
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith((".", "checkpoint-")) and name != "__pycache__"
        )
        for name in sorted(files):
            if (
                not name.startswith((".", "rng_state"))
                and name not in TRAINER_FILES
                and not _is_document(name)
            ):
                yield Path(root) / name


def folder_sha256(folder: str | Path) -> str:
    """One sha256 over the relative path and content digest of every identity file of
    `folder` (see `identity_files`)."""
    root = Path(folder)
    digest = hashlib.sha256()
    for path in identity_files(root):
        relative = path.relative_to(root).as_posix()
        digest.update(f"{relative}\0{remembered_sha256(path)}\n".encode())
    return digest.hexdigest()
