"""Every command line the documentation quotes still works as written: each `lexbench ...`
line in README.md and docs/**/*.md (fenced code blocks and inline code) is accepted by the
real argument parser (parsed only, nothing runs), every repository path the docs cite
exists, and every `make TARGET` they name is a target of the Makefile.

A renamed option, a moved test file or a dropped make target fails here, not in a reader's
terminal. Placeholders are allowed where the docs mark them: an upper-case word (`RUN_A`,
`MODEL`, `DIR`), `<hash>`-style angle brackets, `[OPTIONAL ...]` brackets and `...`.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from docs_quotes import (
    GENERATED_PAGES,
    REPO,
    Quote,
    command_lines,
    doc_files,
    make_targets_named,
    makefile_targets,
    repository_paths,
)

from lexbench import plugins
from lexbench.cli import build_parser, pop_includes

#: The example plugin's benchmark, which the docs walk through; loaded by path so this test
#: does not depend on the plugin being installed.
EXAMPLE_PLUGIN = REPO / "examples" / "lexbench-hypernyms" / "src" / "lexbench_hypernyms"


@pytest.fixture(scope="module")
def parser():
    plugins.reset()
    if not any(spec.name == "hypernyms" for spec in plugins.benchmarks()):
        plugins.include([str(EXAMPLE_PLUGIN)])
    yield build_parser()
    plugins.reset()


PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*|<[^>]+>")
INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")
INVALID_NUMBER = re.compile(
    r"invalid (?:int|float|positive_int|\w+) value: '([^']*)'"
    # A range checked at parse time (lexbench.commands.numbers).
    r"|must be (?:an integer|a number) from .*, got '?([^',]*)'?$"
)
#: A server URL checked at parse time: `URL` or `http://HOST:PORT/v1` in the docs.
INVALID_URL = re.compile(r"'([^']*)' is not a server URL")
URL_STAND_IN = "http://127.0.0.1:8000/v1"


def _argparse_error(parser, argv: list[str]) -> str | None:
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as stop:
        if stop.code not in (0, None):
            line = stderr.getvalue().strip().splitlines()[-1]
            return re.sub(r" \(see [^()]* --help\)$", "", line)  # where help is: not the error
    return None


def _placeholder_error(parser, argv: list[str], depth: int = 0) -> str | None:
    """The error, where a placeholder stands for any value argparse would take: an
    upper-case word in a choice's place parses when some choice does, and a number's."""
    error = _argparse_error(parser, argv)
    if error is None or depth > 4:
        return error
    choice = INVALID_CHOICE.search(error)
    number = INVALID_NUMBER.search(error)
    url = INVALID_URL.search(error)
    if url and url.group(1) in argv and re.search(r"\b[A-Z]{3,}\b", url.group(1)):
        position = argv.index(url.group(1))
        return _placeholder_error(
            parser, [*argv[:position], URL_STAND_IN, *argv[position + 1 :]], depth + 1
        )
    if choice:
        word = choice.group(1)
    elif number:
        word = number.group(1) or number.group(2) or ""
    else:
        word = ""
    if not PLACEHOLDER.fullmatch(word) or word not in argv:
        return error
    position = argv.index(word)
    stand_ins = re.findall(r"'([^']*)'", choice.group(2)) if choice else ["1"]
    for stand_in in stand_ins:
        tried = [*argv[:position], stand_in, *argv[position + 1 :]]
        if _placeholder_error(parser, tried, depth + 1) is None:
            return None
    return error


def _argv_error(parser, argv: list[str], inline: bool) -> str | None:
    for position, word in enumerate(argv):
        if "|" in word and not word.startswith("-"):
            for alternative in word.split("|"):
                tried = [*argv[:position], alternative, *argv[position + 1 :]]
                error = _argv_error(parser, tried, inline)
                if error is not None:
                    return f"{error} (with {alternative!r} for {word!r})"
            return None
    error = _placeholder_error(parser, argv)
    if error and inline and "arguments are required" in error:
        return None
    return error


def _parse_error(parser, quote: Quote) -> str | None:
    """argparse's complaint about `quote`, or None when it parses. `a|b|c` means each of
    them; inline code may name a command without its required arguments."""
    _, argv = pop_includes(quote.argv)
    return _argv_error(parser, argv, quote.inline)


def _reader_own_files(quote: Quote) -> bool:
    """A line that loads the reader's own plugin file (`--include my_benchmark.py`)."""
    includes, _ = pop_includes(quote.argv)
    return any(not (REPO / path).exists() for path in includes)


def test_the_docs_quote_commands_at_all():
    quotes = command_lines()
    assert len(quotes) > 50, "the extractor found almost no command lines"
    assert {q.file.name for q in quotes} >= {"README.md", "getting-started.md"}


def test_every_quoted_lexbench_command_parses(parser):
    failures = [
        f"{quote.where}: {quote.text}\n    -> {error}"
        for quote in command_lines()
        if not _reader_own_files(quote) and (error := _parse_error(parser, quote)) is not None
    ]
    assert not failures, "commands in the docs that argparse refuses:\n" + "\n".join(failures)


def test_a_renamed_option_is_caught(parser):
    """The check can fail: the option README once told users to pass is refused."""
    bad = Quote(REPO / "README.md", 1, "lexbench run ekar --prompt-format paper")
    assert "unrecognized arguments: --prompt-format" in (_parse_error(parser, bad) or "")


def test_every_cited_repository_path_exists():
    missing = [
        f"{file.relative_to(REPO)}:{line}: {path}"
        for file, line, path in repository_paths()
        if not (REPO / path).exists() and path not in GENERATED_PAGES
    ]
    assert not missing, "paths the docs cite that are not in the repository:\n" + "\n".join(missing)


def test_every_named_make_target_exists():
    targets = makefile_targets()
    unknown = [
        f"{file.relative_to(REPO)}:{line}: make {target}"
        for file, line, target in make_targets_named()
        if target not in targets
    ]
    assert not unknown, "make targets the docs name that the Makefile lacks:\n" + "\n".join(unknown)


def test_the_docs_are_found():
    names = {str(f.relative_to(REPO)) for f in doc_files()}
    assert {"README.md", "docs/getting-started.md", "docs/benchmarks/lambda.md"} <= names
    assert all(re.fullmatch(r"[\w./-]+\.md", n) for n in names)


def test_a_moved_test_file_is_caught():
    """The path check can fail: the file README once cited moved under tests/benchmarks/."""
    from docs_quotes import PATH_CITED

    cited = PATH_CITED.findall("Pinned in `tests/test_setlexsem_paper.py` against the paper.")
    assert cited == ["tests/test_setlexsem_paper.py"] and not (REPO / cited[0]).exists()
