"""NLTK's WordNet reader, opened fast: the same answers without three costs lexbench never
needs (see `_reader_class`), and without the cyclic garbage collector walking the million
small objects it builds.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_READER_CLASS: list[type] = []
# Bytes `str.splitlines` (NLTK's stream) treats as line breaks besides "\n", in ASCII.
_OTHER_LINE_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")


class AsciiLines:
    """A read-only ASCII text file as NLTK's reader uses its streams (lines, byte offsets
    for `seek` and `tell`, `discard_line` for its binary searches), over Python's buffered
    binary file instead of NLTK's pure-Python decoder."""

    def __init__(self, path: str) -> None:
        self.name = path  # NLTK's binary search stats the file by name
        self._file = open(path, "rb")  # noqa: SIM115 - open while the reader lives

    def readline(self, size: int | None = None) -> str:
        return self._file.readline(-1 if size is None else size).decode("ascii")

    def read(self, size: int | None = None) -> str:
        return self._file.read(-1 if size is None else size).decode("ascii")

    def discard_line(self) -> None:
        self._file.readline()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def __iter__(self) -> Iterator[str]:
        return (line.decode("ascii") for line in self._file)

    def __next__(self) -> str:
        line = self._file.readline()
        if not line:
            raise StopIteration
        return line.decode("ascii")

    @property
    def closed(self) -> bool:
        return self._file.closed

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> AsciiLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _plain_ascii_lines(path: Path) -> bool:
    """The file is ASCII and breaks lines only at "\\n": a plain text file reads it exactly
    as NLTK's stream does."""
    data = path.read_bytes()
    return data.isascii() and not any(mark in data for mark in _OTHER_LINE_BREAKS)


def _reader_class() -> type:
    """NLTK's WordNetCorpusReader without two costs lexbench never needs (made once, on
    first use, so importing this module does not import NLTK)."""
    if not _READER_CLASS:
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        class LexbenchWordNetReader(WordNetCorpusReader):
            """Answers exactly as NLTK's reader does; only three wasted steps go.

            * `map_wn`: at start-up NLTK maps the senses of its default "wordnet" corpus onto
              the loaded one (about 2 s, reading index.sense twice), for Open Multilingual
              WordNet lookups only; with no OMW reader the map is never read.
            * `get_version`: NLTK scans data.adj for the copyright line on every call, and
              every Wu-Palmer or path similarity calls it (via `_needs_root`) for both senses;
              the files do not change under an open reader, so the answer is kept.
            * `open`: NLTK decodes every file through its pure-Python seekable stream (half
              of the start-up, and of every synset read). A file of ASCII text whose only
              line break is "\\n" (Princeton's and Debian's WordNet 3.0) reads the same
              through `AsciiLines`, lines and byte offsets alike; any other file keeps
              NLTK's stream.
            """

            def open(self, file: str) -> Any:
                stream = super().open(file)  # NLTK's path guards stay in force
                path = getattr(self._root.join(file), "path", None)
                if isinstance(path, str) and _plain_ascii_lines(Path(path)):
                    stream.close()
                    return AsciiLines(path)
                return stream

            def map_wn(self, version: str = "wordnet") -> Any:
                if self._omw_reader is None:
                    return None
                return super().map_wn(version)

            def get_version(self) -> str:
                version = self.__dict__.get("_lexbench_version")
                if version is None:
                    version = self._lexbench_version = super().get_version()
                return version

        _READER_CLASS.append(LexbenchWordNetReader)
    return _READER_CLASS[0]


# Set by the command line (`lexbench.cli`): a process that runs one command keeps what it
# loads under `paused_gc` for its whole life, so the collector need never walk it again.
FREEZE_LOADED = [False]


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a large structure without reference cycles
    is built (a WordNet reader, a relation index, a sense table): each of its passes would
    only walk the growing heap again (a third of the time, and more). In the command line
    the structure is then frozen (`gc.freeze`): later collections skip its million objects
    (about 0.2 s of a 3,000-item LAMBDA run); a library caller's heap is left alone."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if FREEZE_LOADED[0]:
            gc.freeze()
        if collecting:
            gc.enable()


def open_reader(directory: Path) -> Any:
    """NLTK's WordNet reader over a prepared directory (see `_reader_class`)."""
    import nltk

    data_root = str(directory.parent.parent)
    if data_root not in nltk.data.path:
        nltk.data.path.insert(0, data_root)
    reader_class = _reader_class()
    with paused_gc(), warnings.catch_warnings():
        # "multilingual functions are not available": we never use OMW.
        warnings.simplefilter("ignore")
        return reader_class(str(directory), None)
