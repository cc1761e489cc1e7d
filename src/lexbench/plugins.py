"""Every benchmark and model backend lexbench can use, and where each comes from.

Two entry-point groups, read the same way for the built-ins and for other packages:

* `lexbench.benchmarks`: each entry point's object is a `BenchmarkSpec` (or a list of
  them); lexbench's own four packages register here in its `pyproject.toml`.
* `lexbench.models`: each entry point names a backend module with a
  `load(name, options) -> Model` function; its name is the spec prefix (`hf:`, `openai:`).

A module that is not installed can be added by path (`lexbench --include FILE_OR_DIR`, or
`LEXBENCH_INCLUDE`, paths separated by the OS path separator): its `BENCHMARKS` (a list of
specs) or `BENCHMARK` becomes available like an installed one, as lm-eval's
`--include_path` does for task folders.

A plugin that fails to import or declares something malformed is recorded as a `Broken`
entry, named in one line on stderr, and never stops the others from loading.

    >>> names = [spec.name for spec in benchmarks()]
    >>> {"lambda", "scan", "setlexsem", "ekar"} <= set(names)
    True
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from lexbench.contract import BenchmarkSpec

BENCHMARK_GROUP = "lexbench.benchmarks"
MODEL_GROUP = "lexbench.models"
INCLUDE_ENV = "LEXBENCH_INCLUDE"
BUILTIN_DISTRIBUTION = "lexbench"


@dataclass(frozen=True)
class Broken:
    """A plugin that could not be loaded: what it is, where from, and why."""

    group: str
    name: str
    source: str
    reason: str

    def line(self) -> str:
        return f"lexbench: plugin {self.name!r} ({self.source}) not loaded: {self.reason}"


@dataclass(frozen=True)
class Backend:
    """A model backend kind: its spec prefix, the module that loads it, where it comes from."""

    kind: str
    module: str
    source: str


class _Registry:
    """What has been discovered so far (entry points once per process; includes as given)."""

    def __init__(self) -> None:
        self.specs: dict[str, BenchmarkSpec] | None = None
        self.backends: dict[str, Backend] | None = None
        self.broken: list[Broken] = []
        self.included: list[Path] = []
        self.warned: set[Broken] = set()


_REGISTRY = _Registry()


def _source(entry_point: metadata.EntryPoint) -> str:
    dist = entry_point.dist
    if dist is None:
        return f"entry point {entry_point.value}"
    name = dist.metadata["Name"] or ""
    if name.lower() == BUILTIN_DISTRIBUTION:
        return "built-in"
    return f"{name} {dist.version}"


def _entry_points(group: str) -> list[metadata.EntryPoint]:
    # One entry per name: an editable install can list a distribution twice.
    seen: dict[str, metadata.EntryPoint] = {}
    for entry_point in metadata.entry_points(group=group):
        seen.setdefault(entry_point.name, entry_point)
    return sorted(seen.values(), key=lambda e: (_source(e) != "built-in", e.name))


def _specs_from(obj: Any, where: str) -> list[BenchmarkSpec]:
    specs = list(obj) if isinstance(obj, (list, tuple)) else [obj]
    for spec in specs:
        if not isinstance(spec, BenchmarkSpec):
            raise TypeError(
                f"{where} gives a {type(spec).__name__}, not a lexbench.contract.BenchmarkSpec"
            )
    return specs


def _add(found: dict[str, BenchmarkSpec], specs: Iterable[BenchmarkSpec], source: str) -> None:
    for spec in specs:
        if spec.name in found:
            _broken(
                BENCHMARK_GROUP,
                spec.name,
                source,
                f"the name is taken by {found[spec.name].source or 'another benchmark'}; rename it",
            )
            continue
        found[spec.name] = replace(spec, source=source)


def _broken(group: str, name: str, source: str, reason: str) -> None:
    entry = Broken(group, name, source, reason.splitlines()[0][:300] if reason else "unknown")
    _REGISTRY.broken.append(entry)
    if entry not in _REGISTRY.warned:
        _REGISTRY.warned.add(entry)
        print(entry.line(), file=sys.stderr)


def _discover_benchmarks() -> dict[str, BenchmarkSpec]:
    found: dict[str, BenchmarkSpec] = {}
    for entry_point in _entry_points(BENCHMARK_GROUP):
        source = _source(entry_point)
        try:
            specs = _specs_from(entry_point.load(), f"entry point {entry_point.value}")
        except Exception as error:
            _broken(BENCHMARK_GROUP, entry_point.name, source, f"{type(error).__name__}: {error}")
            continue
        _add(found, specs, source)
    return found


def _discover_backends() -> dict[str, Backend]:
    found: dict[str, Backend] = {}
    for entry_point in _entry_points(MODEL_GROUP):
        source = _source(entry_point)
        module = entry_point.value.split(":", 1)[0]
        if ":" in entry_point.value or not module:
            _broken(
                MODEL_GROUP,
                entry_point.name,
                source,
                f"{entry_point.value!r} must name a module with a load(name, options) function",
            )
            continue
        found.setdefault(entry_point.name, Backend(entry_point.name, module, source))
    return found


def _load_path(path: Path) -> ModuleType:
    """Import a module from a file (or a package folder's __init__.py) by path."""
    target = path / "__init__.py" if path.is_dir() else path
    if not target.is_file():
        raise FileNotFoundError(f"no such module file: {target}")
    # A name of its own per file (its dataclasses look their module up in sys.modules).
    name = "lexbench_include_" + hashlib.sha256(str(target.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(
        name, target, submodule_search_locations=[str(path)] if path.is_dir() else None
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {target}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def include(paths: Sequence[str | Path]) -> None:
    """Add the benchmarks of modules given by path (`--include`); each path once."""
    specs = _benchmark_table()
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        if path in _REGISTRY.included:
            continue
        _REGISTRY.included.append(path)
        source = f"path {path}"
        try:
            module = _load_path(path)
            obj = getattr(module, "BENCHMARKS", None) or getattr(module, "BENCHMARK", None)
            if obj is None:
                raise AttributeError(
                    "the module defines neither BENCHMARKS (a list of BenchmarkSpec) nor BENCHMARK"
                )
            found = _specs_from(obj, str(path))
        except Exception as error:
            _broken(BENCHMARK_GROUP, path.name, source, f"{type(error).__name__}: {error}")
            continue
        _add(specs, found, source)


def include_from_environment() -> None:
    value = os.environ.get(INCLUDE_ENV, "")
    paths = [p for p in value.split(os.pathsep) if p.strip()]
    if paths:
        include(paths)


def _benchmark_table() -> dict[str, BenchmarkSpec]:
    if _REGISTRY.specs is None:
        _REGISTRY.specs = _discover_benchmarks()
    return _REGISTRY.specs


def benchmarks() -> list[BenchmarkSpec]:
    """Every registered benchmark: built-ins first, then plugins, by name."""
    return list(_benchmark_table().values())


def benchmark(name: str) -> BenchmarkSpec:
    """The spec registered as `name`, or a one-line error listing the known names."""
    table = _benchmark_table()
    if name in table:
        return table[name]
    hint = ""
    if any(b.group == BENCHMARK_GROUP for b in _REGISTRY.broken):
        hint = " (some plugins failed to load: lexbench list shows why)"
    raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(table)}{hint}")


def spec_for_run(run_benchmark: str) -> BenchmarkSpec | None:
    """The spec whose runs carry the benchmark name `run_benchmark` (`ekar-explain` is
    E-KAR's), or None for a run of a benchmark not registered here."""
    for spec in _benchmark_table().values():
        if run_benchmark in spec.run_names:
            return spec
    return None


def backends() -> dict[str, Backend]:
    """Every model backend kind by its spec prefix."""
    if _REGISTRY.backends is None:
        _REGISTRY.backends = _discover_backends()
    return dict(_REGISTRY.backends)


def broken() -> list[Broken]:
    """Plugins that could not be loaded (benchmarks are discovered first)."""
    _benchmark_table()
    backends()
    return list(_REGISTRY.broken)


def reset() -> None:
    """Forget what was discovered (tests that install or include plugins)."""
    global _REGISTRY
    _REGISTRY = _Registry()
