"""MkDocs hooks for lexbench's documentation site (`make docs`, `mkdocs.yml`).

Two pages are made at build time, never committed, so they cannot go stale:

* the home page is README.md, its links rewritten for the site (`docs/models.md` becomes
  `models.md`), so the same links work on GitHub and on the site;
* the command reference is generated from lexbench's own argument parser
  (`lexbench.cli.build_parser`): every command, sub-command and option, with its help.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages: the home page (README.md) and the command reference."""
    from mkdocs.structure.files import File

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=readme_as_home(readme)))
    files.append(File.generated(config, "reference/commands.md", content=command_reference()))
    return files
