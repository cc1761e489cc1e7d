r"""MkDocs hooks for lexbench's documentation site (`make docs`, `mkdocs.yml`).

Two pages are made at build time, never committed, so they cannot go stale:

* the home page is README.md, its links rewritten for the site (`docs/models.md` becomes
  `models.md`), so the same links work on GitHub and on the site;
* the command reference is generated from lexbench's own argument parser
  (`lexbench.cli.build_parser`): every command, sub-command and option, with its help.

Two Markdown fixes make the sources read the same on GitHub and on the site:

* a doctest in a docstring (`>>> ...` lines and their output) is a code block, not the
  nested blockquotes Markdown makes of `>`-lines (`DoctestAsCode`);
* `\|` inside a code span in a table cell (GitHub's way to keep the pipe from splitting
  the cell) is a plain `|` (Python-Markdown already keeps code spans whole and would
  print the backslash: `table_code_pipes`).
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

REPO = Path(__file__).resolve().parents[2]
#: The width the help text is wrapped at (argparse reads $COLUMNS).
HELP_COLUMNS = "80"
#: A Markdown link or image target: `](target)` or `](target#anchor)`.
LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)\s]+)\)")


def readme_as_home(readme: str) -> str:
    """README.md as the site's `index.md`: links into docs/ lose the `docs/` prefix; a
    link to anything else in the repository is left as it is (and the strict build
    refuses it, so the README links only to what the site has)."""

    def rewrite(match: re.Match[str]) -> str:
        target = match.group(1)
        return f"]({target.removeprefix('docs/')})" if target.startswith("docs/") else match[0]

    return LINK.sub(rewrite, readme)


#: A line of a doctest: the prompt, or its continuation.
DOCTEST_PROMPT = re.compile(r"^(\s*)(>>>|\.\.\.)( |$)")
FENCE = re.compile(r"^\s*(```|~~~)")


def doctests_as_code(lines: list[str]) -> list[str]:
    """Wrap each doctest (a `>>>` line, its `...` continuations and its output up to a
    blank line) in a `pycon` fence; fenced blocks are left as they are.

    >>> doctests_as_code(["Example:", "", ">>> 1 + 1", "2", "", "Done."])
    ['Example:', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done.']
    """
    out: list[str] = []
    in_fence = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if FENCE.match(line):
            in_fence = not in_fence
        prompt = None if in_fence else DOCTEST_PROMPT.match(line)
        if prompt is None or prompt.group(2) != ">>>":
            out.append(line)
            index += 1
            continue
        indent = prompt.group(1)
        block = []
        while index < len(lines) and lines[index].strip():
            block.append(lines[index])
            index += 1
        if out and out[-1].strip():
            out.append("")  # a fence needs no blank line before it, but a paragraph ends here
        out += [f"{indent}```pycon", *block, f"{indent}```"]
    return out


class _DoctestPreprocessor(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return doctests_as_code(lines)


class DoctestAsCode(Extension):
    """Doctests in Markdown (the API reference's docstrings) become `pycon` code blocks."""

    def extendMarkdown(self, md: Markdown) -> None:
        # Before the fenced-code preprocessors (priority 25), after whitespace normalising.
        md.preprocessors.register(_DoctestPreprocessor(md), "lexbench_doctests", 28)


CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def table_code_pipes(markdown: str) -> str:
    r"""In table rows, `\|` inside a code span becomes `|` (outside code spans Python-Markdown
    already reads `\|` as a pipe).

    >>> print(table_code_pipes(r"| `a\|b` | x \| y |"))
    | `a|b` | x \| y |
    """

    def unescape(match: re.Match[str]) -> str:
        return match[0].replace("\\|", "|")

    return "\n".join(
        CODE_SPAN.sub(unescape, line) if line.lstrip().startswith("|") else line
        for line in markdown.split("\n")
    )


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...], skip: frozenset[str]
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield words, parser
    for name, sub in _subcommands(parser):
        if name not in skip:
            yield from _commands(sub, (*words, name), skip)


def _help(parser: argparse.ArgumentParser) -> str:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        return parser.format_help()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def command_reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The Markdown page: one section per command (a heading, its description, and its
    full `--help`), in the parser's order. Benchmarks that come from installed plugins
    rather than lexbench itself are left out: the page documents lexbench."""
    from lexbench import plugins
    from lexbench.cli import build_parser

    if parser is None:
        parser = build_parser()
    plugin_benchmarks = frozenset(
        spec.name for spec in plugins.benchmarks() if spec.source != "built-in"
    )
    lines = [
        "# Command reference",
        "",
        "Every `lexbench` command and option, generated from the argument parser when this "
        "site is built (`lexbench COMMAND --help` prints the same). Benchmarks added by "
        "plugins bring commands of their own, not listed here.",
        "",
    ]
    for words, command in _commands(parser, ("lexbench",), plugin_benchmarks):
        # `lexbench run` is a section; `lexbench run lambda` one of its entries.
        level = "##" if len(words) <= 2 else "###"
        lines += [f"{level} `{' '.join(words)}`", ""]
        if command.description:
            lines += [command.description, ""]
        lines += ["```text", _help(command).rstrip(), "```", ""]
    return "\n".join(lines)


@event_priority(100)  # before mkdocstrings reads the extensions it renders docstrings with
def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DoctestAsCode())
    return config


def on_page_markdown(markdown: str, **_: Any) -> str:
    return table_code_pipes(markdown)


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages: the home page (README.md) and the command reference."""
    from mkdocs.structure.files import File

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=readme_as_home(readme)))
    files.append(File.generated(config, "reference/commands.md", content=command_reference()))
    return files
