"""Input files checked before a command reads them: an `--items` or `--data` file that is
not UTF-8 text is named, with its option, in one line (exit 2), instead of a codec error
that names neither (Python's "'utf-8' codec can't decode byte 0xff in position 0").

Files are decoded incrementally, a megabyte at a time, so a large item file costs a read
and no memory; a folder given as `--data` has its text files (two levels down) checked.
"""

from __future__ import annotations

import argparse
import codecs
from collections.abc import Iterator
from pathlib import Path

# The options whose value is a data file or folder read as text.
TEXT_INPUT_OPTIONS = ("items", "data")
# Formats read as bytes, never decoded: not checked, when the file starts as that format
# does (a `.bin` of text that is not UTF-8 is named like any other file: SCAN, Google and
# SAT read whatever --data names as text).
BINARY_SUFFIXES = frozenset(
    {".parquet", ".arrow", ".gz", ".zip", ".bz2", ".xz", ".npy", ".npz", ".bin", ".sqlite", ".pkl"}
)
BINARY_MAGIC = (
    b"PAR1",  # parquet
    b"ARROW1",
    b"\x1f\x8b",  # gzip
    b"PK\x03\x04",  # zip, npz
    b"BZh",
    b"\xfd7zXZ\x00",
    b"\x93NUMPY",
    b"SQLite format 3\x00",
    b"\x80",  # pickle, protocol 2 and later
)
TEXT_SUFFIXES = frozenset({".txt", ".json", ".jsonl", ".csv", ".tsv", ".toml"})


def undecodable_byte(path: Path, chunk: int = 1 << 20) -> int | None:
    """The offset of the first byte of `path` that is not UTF-8, or None."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            # The decoder keeps the last block's unfinished character (up to 3 bytes) and
            # counts the error's position from its first byte.
            held = len(decoder.getstate()[0])
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as error:
                return offset - held + error.start
            if not block:
                return None
            offset += len(block)


def _starts_as_binary(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return True  # unreadable: the command's own reader names it, with the cause
    return head.startswith(BINARY_MAGIC)


def _text_files(path: Path) -> Iterator[Path]:
    if path.is_file():
        if path.suffix.lower() not in BINARY_SUFFIXES or not _starts_as_binary(path):
            yield path
        return
    if path.is_dir():
        for depth in ("*", "*/*"):
            for found in sorted(path.glob(depth)):
                if found.is_file() and found.suffix.lower() in TEXT_SUFFIXES:
                    yield found


def check_text_inputs(args: argparse.Namespace) -> None:
    """Raise ValueError naming the option and the file when an input file is not UTF-8."""
    for option in TEXT_INPUT_OPTIONS:
        value = getattr(args, option, None)
        if not isinstance(value, (str, Path)) or not str(value):
            continue
        for path in _text_files(Path(value).expanduser()):
            try:
                offset = undecodable_byte(path)
            except OSError:
                continue  # unreadable: the command's own reader names it, with the cause
            if offset is not None:
                shown = str(value) if path == Path(value).expanduser() else f"{value} ({path})"
                raise ValueError(
                    f"--{option} {shown}: not UTF-8 text (byte {offset} cannot be decoded); "
                    f"give the file in UTF-8 (e.g. iconv -t UTF-8), or check that it is "
                    f"the file you meant"
                )
