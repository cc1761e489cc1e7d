"""Path options checked before a command runs: a folder given where a file is read or
written (`--items DIR`, `--cache DIR`, `generate -o DIR`), or a file where a folder is
(`--out FILE`, `report -o FILE/sub`), is one line naming the option (exit 2), before a
model loads or anything is written, instead of a raw `[Errno 21] Is a directory`.

What each option takes is read from its own help text when the parser is built ("a JSONL
file", "root of the run folders"), so a new command's options are checked without being
listed here; an option whose help says "file or folder", or neither, is not checked.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from lexbench.paths import special_file

FILE, FOLDER = "file", "folder"
# Options typed as text that name a folder (a WordNet database may also be found from the
# environment, so the value is kept as given): checked like a folder option.
TEXT_FOLDERS = frozenset({"wordnet"})
_FILE_WORDS = re.compile(r"\b(file|sheet)\b")
_FOLDER_WORDS = re.compile(r"\b(folders?|director(y|ies))\b")
# Options read as a file or a folder depending on the benchmark (E-KAR's --data is a
# folder, SCAN's a file): never checked here.
EITHER = frozenset({"data"})


def path_kind(action: argparse.Action) -> str | None:
    """FILE or FOLDER when the option's help (or its metavar DIR) says which it takes."""
    if action.dest in TEXT_FOLDERS and action.type in (None, str) and action.option_strings:
        return FOLDER
    if action.type is not Path or action.dest in EITHER:
        return None
    text = (action.help or "").lower()
    says_file = bool(_FILE_WORDS.search(text))
    says_folder = bool(_FOLDER_WORDS.search(text)) or action.metavar == "DIR"
    if says_file == says_folder:
        return None
    return FILE if says_file else FOLDER


def mark_path_kinds(parser: argparse.ArgumentParser) -> None:
    """Record on every command (as the default `path_kinds`) what its path options take."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                mark_path_kinds(child)
    kinds = {}
    for action in parser._actions:
        kind = path_kind(action)
        if kind is not None:
            names = tuple(action.option_strings) or (action.dest.upper(),)
            kinds[action.dest] = (names, kind)
    if kinds:
        parser.set_defaults(path_kinds=kinds)


def check_path_options(args: argparse.Namespace) -> None:
    """Raise ValueError naming the option when a path is a folder where a file is taken,
    or a file (or lies under one) where a folder is."""
    typed = [str(a).split("=", 1)[0] for a in getattr(args, "argv", None) or []]
    for dest, (names, kind) in (getattr(args, "path_kinds", None) or {}).items():
        # Named as the user typed it (`--wordnet` or its alias `--data`).
        name = next((n for n in reversed(names) if n in typed), names[-1])
        value: Any = getattr(args, dest, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and path:
                path = Path(path)
            if isinstance(path, Path):
                problem = _problem(path.expanduser(), kind)
                if problem:
                    raise ValueError(f"{name} {path}: {problem}")


def _problem(path: Path, kind: str) -> str | None:
    if kind == FILE and path.is_dir():
        return "is a folder, where a file is expected: name a file (in it, or elsewhere)"
    if kind == FOLDER and path.exists() and not path.is_dir():
        what = special_file(path) or "a file"  # /dev/null or a FIFO is no file either
        return f"is {what}, where a folder is expected: name a folder (or a new name)"
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"{parent} is a file, so nothing can be made inside it"
            break
    return None
