r"""The documentation site's generated parts and navigation (`make docs` builds the site
itself with warnings as errors): the README becomes the home page with its links working
on the site, the command reference covers every command and option of the real parser,
and every page under docs/ is in the navigation. The site is built once here too and its
HTML read: doctests are code, no `\|` shows, the API contents name modules uniquely."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys

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


# ------------------------------------------------------------------ the built site, read as HTML


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    """The real site, built as `make docs` builds it (strict), into a temporary folder."""
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return site


def test_doctests_become_code_blocks(site_hooks):
    lines = ["Text.", ">>> x = 1", "... + 1", ">>> x", "2", "", "After."]
    assert site_hooks.doctests_as_code(lines) == [
        "Text.",
        "",
        "```pycon",
        ">>> x = 1",
        "... + 1",
        ">>> x",
        "2",
        "```",
        "",
        "After.",
    ]
    fenced = ["```python", ">>> 1", "```"]
    assert site_hooks.doctests_as_code(fenced) == fenced


def test_code_pipes_in_tables_lose_their_backslash(site_hooks):
    source = "| `a\\|b` | not \\| code |\n`x\\|y` outside a table"
    assert site_hooks.table_code_pipes(source) == (
        "| `a|b` | not \\| code |\n`x\\|y` outside a table"
    )


def test_api_reference_doctests_render_as_code(built_site):
    page = (built_site / "reference" / "api.html").read_text(encoding="utf-8")
    assert "<blockquote" not in page
    # The docstring examples are highlighted Python sessions: prompt and output.
    assert page.count('<span class="gp">&gt;&gt;&gt; </span>') >= 5
    assert "wilson_interval" in page and "'0.000 [0.000, 0.278]'</span>" in page


def test_no_page_shows_a_backslash_before_a_pipe(built_site):
    shown = {
        str(path.relative_to(built_site)): path.read_text(encoding="utf-8").count("\\|")
        for path in built_site.rglob("*.html")
    }
    assert {page: n for page, n in shown.items() if n} == {}
    # The tables that wrote `\|` in code spans show the alternatives with plain pipes.
    lambda_page = (built_site / "benchmarks" / "lambda.html").read_text(encoding="utf-8")
    assert "<code>--prompt-variant guard|arrow|instruction|all</code>" in lambda_page


def _page_contents(page: str) -> list[tuple[str, str]]:
    """(anchor, label) of each entry of a page's table of contents (drawn twice, in the
    side navigation and beside the page, with the same labels)."""
    entries = re.findall(r'href="#([^"]+)" class="md-nav__link">(.*?)</a>', page, flags=re.S)
    return [(anchor, re.sub(r"<[^>]+>|\s+", "", label)) for anchor, label in entries]


def test_api_contents_entries_of_modules_are_unique(built_site):
    page = (built_site / "reference" / "api.html").read_text(encoding="utf-8")
    modules = re.findall(r"^::: (\S+)", (REPO / "docs/reference/api.md").read_text(), flags=re.M)
    labels = dict(_page_contents(page))
    module_labels = [labels[module] for module in modules]
    assert len(set(module_labels)) == len(modules), module_labels
    assert labels["lexbench.contract"] != labels["lexbench.models.base"]
