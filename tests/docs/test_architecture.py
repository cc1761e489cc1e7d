"""docs/architecture.md: its picture is what its layer table draws (the table
tests/test_structure.py checks imports against), and every file it names exists."""

import importlib.util
import re

from docs_quotes import REPO


def _drawer():
    path = REPO / "docs" / "hooks" / "architecture_svg.py"
    spec = importlib.util.spec_from_file_location("architecture_svg", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_picture_is_drawn_from_the_layer_table():
    drawer = _drawer()
    table = drawer.layer_table(drawer.PAGE.read_text(encoding="utf-8"))
    assert [name for name, _, _ in table][:2] == ["ground", "registry"]
    assert drawer.PICTURE.read_text(encoding="utf-8") == drawer.layers_svg(table), (
        "docs/img/architecture.svg is stale: run .venv/bin/python docs/hooks/architecture_svg.py"
    )


def test_every_module_the_table_names_exists():
    drawer = _drawer()
    for _, modules, _ in drawer.layer_table(drawer.PAGE.read_text(encoding="utf-8")):
        for module in modules:
            parts = module.split(".")
            base = REPO / "src" / "/".join(parts)
            assert base.with_suffix(".py").is_file() or (base / "__init__.py").is_file(), module


def test_the_pages_examples_name_files_that_exist():
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    for path in re.findall(r"`((?:src|examples|tests|docs)/[\w./-]+)`", page):
        assert (REPO / path).exists(), path
