"""The documentation site's generated parts and navigation (`make docs` builds the site
itself with warnings as errors): the README becomes the home page with its links working
on the site, the command reference covers every command and option of the real parser,
and every page under docs/ is in the navigation."""

from __future__ import annotations

import argparse
import importlib.util
import re

import pytest
import yaml
from docs_quotes import REPO

from lexbench import plugins
from lexbench.cli import build_parser


@pytest.fixture(scope="module")
def site_hooks():
    spec = importlib.util.spec_from_file_location(
        "lexbench_site", REPO / "docs" / "hooks" / "lexbench_site.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_links_into_docs_work_on_the_site(site_hooks):
    home = site_hooks.readme_as_home(
        "[Models](docs/models.md), [LAMBDA](docs/benchmarks/lambda.md#fidelity), "
        "[web](https://example.org/docs/x.md), [top](#quick-start)"
    )
    assert home == (
        "[Models](models.md), [LAMBDA](benchmarks/lambda.md#fidelity), "
        "[web](https://example.org/docs/x.md), [top](#quick-start)"
    )


def test_the_real_readme_links_only_to_site_pages(site_hooks):
    home = site_hooks.readme_as_home((REPO / "README.md").read_text(encoding="utf-8"))
    for target in site_hooks.LINK.findall(home):
        assert (REPO / "docs" / target.split("#")[0]).is_file(), target


def _every_command(parser, words=("lexbench",)):
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _every_command(sub, (*words, name))


def test_the_command_reference_has_every_command_and_option(site_hooks):
    plugins.reset()
    parser = build_parser()
    page = site_hooks.command_reference(parser)
    from_plugins = {spec.name for spec in plugins.benchmarks() if spec.source != "built-in"}
    checked = 0
    for words, command in _every_command(parser):
        if from_plugins & set(words[2:]):
            continue  # a plugin's command: documented by the plugin
        heading = re.search(rf"^#{{2,3}} `{re.escape(' '.join(words))}`\n", page, flags=re.M)
        assert heading, words
        section = page[heading.end() :].split("\n#", 1)[0]
        for action in command._actions:
            for option in action.option_strings:
                assert option in section, (words, option)
                checked += 1
    assert checked > 200  # every run, export, generate, finetune, human ... option
    assert "`lexbench run lambda`" in page and "--prompt-style" in page


def test_every_docs_page_is_in_the_navigation():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(entries):
        for entry in entries:
            for value in entry.values():
                yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(config["nav"]))
    generated = {"index.md", "reference/commands.md"}
    on_disk = {
        str(path.relative_to(REPO / "docs"))
        for path in (REPO / "docs").rglob("*.md")
        if "hooks" not in path.parts
    }
    assert listed - generated == on_disk
    assert config["strict"] is True
