"""Analogy questions in the word2vec format (`: section` lines, then `a b c d` lines), and
the Google analogy set in it: the copy gensim ships, else a download from gensim's
repository checked by sha256.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lexbench.benchmarks.analogies.data import Analogy

GOOGLE_URL = (
    "https://raw.githubusercontent.com/piskvorky/gensim/develop/gensim/test/test_data/"
    "questions-words.txt"
)
# sha256 of the copy gensim 4.4 ships (the original word2vec file).
GOOGLE_SHA256 = "8c29b3332afc46f3fb8be04cb5297bf96f39aa7131272dff57869b4485b22a36"


def read_question_file(path: str | Path, *, prefix: str = "") -> list[Analogy]:
    """A questions file in the word2vec format: `: section` lines, then `a b c d` lines.

    Type is `syntactic` for sections named gram* (as in the Google set), else `semantic`;
    mapping is the section. Lines without four words are an error naming the line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no analogy questions file at {path}")
    items: list[Analogy] = []
    section = ""
    counts: Counter[str] = Counter()
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith(":"):
                section = text.lstrip(":").strip()
                continue
            parts = text.split()
            if len(parts) != 4:
                raise ValueError(f"{path}:{number}: expected four words 'a b c d', got {text!r}")
            name = section or "questions"
            kind = "syntactic" if name.startswith("gram") else "semantic"
            items.append(
                Analogy(
                    id=f"{prefix}{name}/{counts[name]:04d}",
                    a=parts[0],
                    b=parts[1],
                    c=parts[2],
                    d=parts[3],
                    type=kind,
                    mapping=name,
                )
            )
            counts[name] += 1
    if not items:
        raise ValueError(f"{path}: no questions found")
    return items


def locate_google(path: str | Path | None = None) -> Path:
    """The Google analogy file: the path given, gensim's copy, or a checked download."""
    if path is not None:
        located = Path(path).expanduser()
        if not located.is_file():
            raise FileNotFoundError(f"no Google analogy file at {located}")
        return located
    try:
        from gensim.test.utils import datapath

        shipped = Path(datapath("questions-words.txt"))
        if shipped.is_file():
            return shipped
    except ImportError:
        pass
    from lexbench.datasets.fetch import fetch

    return fetch(GOOGLE_URL, sha256=GOOGLE_SHA256, name="google/questions-words.txt")


def load_google(path: str | Path | None = None) -> list[Analogy]:
    """The 19,544 Google analogy questions (14 sections; 5 semantic, 9 syntactic)."""
    return read_question_file(locate_google(path))
