"""docs/add-a-benchmark.md lists every argument of `BenchmarkSpec` with the type it has in
the source and the default it has, so a new field or a changed type fails here, not the
plugin author reading the page."""

import dataclasses
import re

from docs_quotes import REPO

from lexbench.contract import BenchmarkSpec

ROW = re.compile(r"^\| `(\w+)` \| `(.+?)` \| (.+?) \| (.+) \|$")


def _documented() -> dict[str, tuple[str, str]]:
    page = (REPO / "docs" / "add-a-benchmark.md").read_text(encoding="utf-8")
    table = page.split("| argument | type | default | what it means |", 1)[1]
    rows = {}
    for line in table.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        match = ROW.match(line)
        assert match, line
        name, type_text, default, _ = match.groups()
        rows[name] = (type_text.replace("\\|", "|"), default)
    return rows


def test_every_benchmark_spec_argument_is_documented_with_its_type_and_default():
    rows = _documented()
    fields = dataclasses.fields(BenchmarkSpec)
    assert list(rows) == [f.name for f in fields]  # every one, in the source's order
    for f in fields:
        type_text, default = rows[f.name]
        assert type_text == f.type, f.name
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            assert default == "required", f.name
        elif f.default is not dataclasses.MISSING:
            assert default.startswith(f"`{f.default!r}`".replace("'", '"')), (f.name, default)
        else:
            assert default.startswith(f"`{f.default_factory()!r}`"), (f.name, default)
