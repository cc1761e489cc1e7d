"""The shape of the source tree, checked: no import circles, the shared layers never import a
benchmark by name, modules stay small, and every package says what it is.

Imports are read from the source (every `import` and `from ... import`, at module level or
inside a function: a lazy import still ties two modules together), not by importing. Imports
under `if TYPE_CHECKING:` count too: they are never executed, but a module that names
another's types depends on it as surely as one that calls it, and a circle of names is a
circle a reader must walk.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "lexbench"
#: "No module above ~400 lines": the ~ is 10% (the formatter puts one argument per line).
MAX_LINES = 440
#: The layers below the benchmarks: none may import a benchmark's package.
SHARED_LAYERS = (
    "run",
    "models",
    "report",
    "human",
    "finetune",
    "lexicon",
    "datasets",
    "metrics",
    "commands",
    "stats",
    "types",
    "text",
    "paths",
    "hashing",
    "api",
    "cli",
    "plugins",
    "export",
    "robustness",
)
BENCHMARK_INTERFACE = "lexbench.contract"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_names(path: Path, name: str) -> Iterator[str]:
    """Every module name an import statement in `path` names (resolving relative imports;
    `from pkg import mod` names `pkg.mod` as well as `pkg`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    modules = source_modules()
    return {
        name: {
            target for target in imported_names(path, name) if target in modules and target != name
        }
        for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_that():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_resolve_relative_and_from_forms(tmp_path):
    path = SRC / "lexbench" / "benchmarks" / "lambda_" / "cli.py"
    names = set(imported_names(path, "lexbench.benchmarks.lambda_.cli"))
    assert "lexbench.commands.arguments" in names


def test_type_only_imports_count(tmp_path):
    """An import under `if TYPE_CHECKING:` is an edge of the graph like any other."""
    path = tmp_path / "typed.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from lexbench.report import runs\n"
    )
    assert "lexbench.report.runs" in set(imported_names(path, "lexbench.typed"))


def test_the_contract_names_no_report_or_robustness_type():
    graph = import_graph()
    above = [
        t
        for t in graph[BENCHMARK_INTERFACE]
        if t.startswith(("lexbench.report", "lexbench.robustness"))
    ]
    assert not above, f"{BENCHMARK_INTERFACE} imports {above}"


def test_the_walk_from_api_to_evaluate_goes_down_only():
    """`api` and the layers it calls never reach back up to the planner or the commands."""
    graph = import_graph()
    below_api = {"lexbench.api"}
    frontier = ["lexbench.api"]
    while frontier:
        for target in graph[frontier.pop()] - below_api:
            if target.startswith(("lexbench.run.", "lexbench.wordings")):
                below_api.add(target)
                frontier.append(target)
    upward = sorted(
        f"{name} -> {target}"
        for name in below_api
        for target in graph[name]
        if target.startswith(("lexbench.robustness", "lexbench.commands", "lexbench.cli"))
    )
    assert not upward, "api's layers reach back up: " + ", ".join(upward)


def _layers() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The layers, bottom to top, as docs/architecture.md's table gives them (its picture is
    drawn from the same table): a module imports from its own layer or those below. The
    benchmarks are vertical slices on top: each may use any shared layer, and none of those
    knows a benchmark by name (the contract is the ground floor's)."""
    import importlib.util

    path = SRC.parent / "docs" / "hooks" / "architecture_svg.py"
    spec = importlib.util.spec_from_file_location("architecture_svg", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.layer_table((SRC.parent / "docs" / "architecture.md").read_text("utf-8"))
    return tuple((name, modules) for name, modules, _ in table)


LAYERS = _layers()
#: The most imports that may run back up the layers (issue 42: 10 at 6b24aed, none since the
#: human backend moved into human/).
MAX_UPWARD = 0


def layer_of(module: str) -> int:
    """The layer of `module`: that of the longest prefix the table names."""
    best = (-1, -1)
    for depth, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            below = prefix != "lexbench" and module.startswith(prefix + ".")  # not the root
            if (module == prefix or below) and len(prefix) > best[1]:
                best = (depth, len(prefix))
    assert best[0] >= 0, f"{module} is in no layer of LAYERS"
    return best[0]


def upward_imports() -> list[str]:
    graph = import_graph()
    return sorted(
        f"{name} ({LAYERS[layer_of(name)][0]}) -> {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in graph.items()
        for target in targets
        if layer_of(target) > layer_of(name)
    )


def test_imports_run_down_the_layers():
    found = upward_imports()
    assert len(found) <= MAX_UPWARD, "imports up the layers: " + "; ".join(found)


def test_no_import_circles():
    found = cycles(import_graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_shared_layers_never_import_a_benchmark():
    graph = import_graph()
    offending = []
    for name, targets in graph.items():
        layer = name.split(".")[1] if "." in name else ""
        if layer not in SHARED_LAYERS:
            continue
        for target in targets:
            if target.startswith("lexbench.benchmarks.") and target != BENCHMARK_INTERFACE:
                offending.append(f"{name} -> {target}")
    assert not offending, "shared layers importing a benchmark: " + ", ".join(sorted(offending))


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC))
)
def test_module_size(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC)} has {lines} lines; split it by topic"


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("__init__.py")), ids=lambda p: str(p.relative_to(SRC))
)
def test_every_package_says_what_it_is(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring and len(docstring.split()) >= 8, f"{path.relative_to(SRC)}: no docstring"


def test_one_folder_per_benchmark():
    folders = {
        p.name
        for p in (PACKAGE / "benchmarks").iterdir()
        if p.is_dir() and (p / "__init__.py").is_file()
    }
    assert {"lambda_", "scan", "analogies", "setlexsem", "ekar"} <= folders
    flat = [
        p.name
        for p in (PACKAGE / "benchmarks").glob("*.py")
        if p.name not in ("__init__.py", "base.py")
    ]
    assert not flat, f"benchmark modules outside a benchmark's folder: {flat}"
