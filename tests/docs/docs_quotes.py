"""What the documentation quotes: `lexbench ...` command lines, repository paths and make
targets, read from README.md and docs/**/*.md (used by test_docs_commands.py)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
#: Fenced blocks in these languages (or none) hold shell lines; Python, TOML, ... do not.
SHELL_FENCES = {"", "bash", "sh", "shell", "console", "text", "zsh"}
#: Where a command starts: after an optional `$ ` prompt, environment assignments and
#: `nice`/`time`.
COMMAND_START = re.compile(
    r"^\s*(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:(?:nice|time)\s+)*"
    r"(lexbench\s+-{0,2}[a-z].*)"
)
#: Between two commands on one line.
SHELL_SEPARATOR = re.compile(r"\s(?:&&|\|\||;|\|)\s")
#: A comment or a redirection, to the line's end, or a trailing `&` (run in the background).
SHELL_END = re.compile(r"\s(?:#|>|2>)(?:\s.*)?$|\s&\s*$")
INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
#: Pages the site generates at build time (docs/hooks/lexbench_site.py): links to them work.
GENERATED_PAGES = ("docs/index.md", "docs/reference/commands.md")
#: A path under one of the repository's top-level folders, as prose or a command cites it.
PATH_CITED = re.compile(r"(?<![\w/.~-])((?:src|tests|docs|examples|benchmarks|\.ci)/[\w./-]*[\w/])")
MAKE_TARGET = re.compile(r"\bmake ([a-z][\w-]*)")


@dataclass(frozen=True)
class Quote:
    file: Path
    line: int
    text: str
    #: Inline code may name a command without its required arguments (`lexbench rescore`).
    inline: bool = False

    @property
    def where(self) -> str:
        return f"{self.file.relative_to(REPO)}:{self.line}"

    @property
    def argv(self) -> list[str]:
        """The arguments after `lexbench`, placeholders for optional parts dropped."""
        words = shlex.split(self.text)[1:]
        kept: list[str] = []
        optional = 0
        for word in words:
            # `[RUN_C ...]` marks optional arguments; `...` more of the same.
            opened = word.startswith("[") and not word.startswith("[]")
            optional += opened
            if not optional and word not in ("...", "…"):
                kept.append(word)
            optional -= optional > 0 and word.endswith("]") and word != "[]"
        return kept


def doc_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _code_spans(text: str, *, shell_only: bool = False) -> Iterator[tuple[int, str, bool]]:
    """(line number, code, inline?) for every line of a fenced block (only shell blocks
    with `shell_only`) and every inline code span."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(line)
        if opening:
            fence = opening.group(2).lower() if fence is None else None
            continue
        if fence is not None:
            if not shell_only or fence in SHELL_FENCES:
                yield number, line, False
        else:
            for match in INLINE_CODE.finditer(line):
                yield number, match.group(1), True


def _joined_lines(
    spans: list[tuple[int, str, bool]],
) -> Iterator[tuple[int, str, bool]]:
    """Shell continuation lines (ending in a backslash) joined into one."""
    pending: tuple[int, str, bool] | None = None
    for number, code, inline in spans:
        if pending is not None:
            number, code = pending[0], pending[1] + " " + code.strip()
            pending = None
        if code.rstrip().endswith("\\"):
            pending = (number, code.rstrip()[:-1], inline)
            continue
        yield number, code, inline
    if pending is not None:
        yield pending


def command_lines() -> list[Quote]:
    """Every `lexbench ...` command the docs quote (in code, not in prose)."""
    quotes = []
    for file in doc_files():
        spans = list(_code_spans(file.read_text(encoding="utf-8"), shell_only=True))
        for number, code, inline in _joined_lines(spans):
            for piece in SHELL_SEPARATOR.split(SHELL_END.sub("", code)):
                start = COMMAND_START.match(piece)
                if start:
                    quotes.append(Quote(file, number, start.group(1).strip(), inline))
    return quotes


def _prose_and_commands(text: str) -> Iterator[tuple[int, str]]:
    """Lines of prose and of shell blocks; not Python, TOML or folder diagrams (`text`),
    whose paths are relative to something else."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = FENCE.match(line)
        if opening:
            fence = opening.group(2).lower() if fence is None else None
        elif fence is None or (fence in SHELL_FENCES and fence != "text"):
            yield number, line


def repository_paths() -> list[tuple[Path, int, str]]:
    """Repository paths the docs cite (`tests/run/test_x.py`) or link to (relative links)."""
    cited = []
    for file in doc_files():
        for number, line in _prose_and_commands(file.read_text(encoding="utf-8")):
            # Link targets are relative to the page; they are resolved below.
            for path in PATH_CITED.findall(re.sub(r"\]\([^)]*\)", "]", line)):
                if not any(c in path for c in "*<>{}"):
                    cited.append((file, number, path.rstrip(".")))
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
                if "://" in target or target.startswith("mailto:"):
                    continue
                resolved = (file.parent / target).resolve()
                cited.append((file, number, str(resolved.relative_to(REPO))))
    return cited


def makefile_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", text, flags=re.M))


def make_targets_named() -> list[tuple[Path, int, str]]:
    named = []
    for file in doc_files():
        for number, code, _ in _code_spans(file.read_text(encoding="utf-8")):
            named.extend((file, number, target) for target in MAKE_TARGET.findall(code))
    return named
