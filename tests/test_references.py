"""Registry entries as "package.module:object" strings (`lexbench.references`, taken by every
callable field of `lexbench.contract.BenchmarkSpec` and its parts): imported on first use,
called like the object, a bad one refused in one line naming the benchmark, the field and
the string; plain callables still work; every built-in reference resolves, and importing a
benchmark's package imports none of its code. (A plugin given by `--include` path in either
form: tests/test_plugins.py.)"""

from __future__ import annotations

import copy
import inspect
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.contract import (
    BadReference,
    BenchmarkSpec,
    ComparisonTest,
    FinetuneTables,
    Reference,
    Regeneration,
)

TARGET = """
def build(model, *, k=1):
    return ("built", model, k)

def register(cli, name="default"):
    cli.append(name)

VARIANTS = ("plain", "polite")
"""


@pytest.fixture
def target(tmp_path, monkeypatch) -> str:
    """A module named for this test alone, on the path but not imported yet."""
    name = f"lazy_target_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(TARGET)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_a_string_is_imported_when_first_used(target):
    spec = BenchmarkSpec(
        "mine", "mine", build=f"{target}:build", prompt_variants=f"{target}:VARIANTS"
    )
    assert target not in sys.modules  # registering imported nothing
    assert spec.build("model", k=2) == ("built", "model", 2)
    assert target in sys.modules
    assert spec.prompt_variants() == ("plain", "polite")  # a getter's string names the value
    assert str(inspect.signature(spec.build)) == "(model, *, k=1)"


def test_a_plain_callable_is_kept_as_it_is():
    def build(model, **options):
        return model

    spec = BenchmarkSpec("mine", "mine", build=build, commands=None)
    assert spec.build is build and spec.commands is None and spec.reporters is None


def test_bound_arguments_come_first(target):
    commands: list[str] = []
    spec = BenchmarkSpec(
        "mine",
        "mine",
        build=Reference(f"{target}:build", "the model"),
        commands=Reference(f"{target}:register", name="mine"),
    )
    assert spec.build(k=3) == ("built", "the model", 3)
    spec.commands(commands)
    assert commands == ["mine"]
    assert str(inspect.signature(spec.build)) == "(*, k=1)"


def test_a_malformed_string_is_refused_when_the_spec_is_made():
    with pytest.raises(BadReference) as caught:
        BenchmarkSpec("mine", "mine", build="mine.benchmark.build")
    message = str(caught.value)
    assert message.startswith("benchmark 'mine', field build: 'mine.benchmark.build'")
    assert '"package.module:object"' in message and "\n" not in message
    with pytest.raises(BadReference, match=r"^FinetuneTables\.table: 'a table'"):
        FinetuneTables(("x",), add_arguments=print, table="a table")


@pytest.mark.parametrize(
    ("reference", "why"),
    [
        ("no_such_module_for_lexbench:build", "there is no module 'no_such_module_for_lexbench'"),
        ("{target}_missing.sub:build", "there is no module '{target}_missing'"),
        ("{target}:bild", "{target} has no 'bild'"),
        ("{target}:VARIANTS", "it names a tuple, where a callable is wanted"),
    ],
)
def test_a_reference_to_nothing_is_one_line_at_first_use(target, reference, why):
    reference, why = reference.format(target=target), why.format(target=target)
    spec = BenchmarkSpec("mine", "mine", build=reference)
    with pytest.raises(BadReference) as caught:
        spec.build("model")
    assert str(caught.value) == f"benchmark 'mine', field build: {reference!r}: {why}"


def test_a_parts_reference_names_the_benchmark_too(target):
    tables = FinetuneTables(("x",), add_arguments=f"{target}:nope", table=f"{target}:build")
    test = ComparisonTest("t", "t", run=f"{target}:nope")
    regenerate = Regeneration(published_seed=f"{target}:nope", with_seed=f"{target}:build")
    spec = BenchmarkSpec(
        "mine",
        "mine",
        build=f"{target}:build",
        finetune_tables=tables,
        comparison_tests=(test,),
        regenerate=regenerate,
    )
    for part, label in (
        (spec.finetune_tables.add_arguments, "finetune_tables.add_arguments"),
        (spec.comparison_tests[0].run, "comparison_tests[0].run"),
        (spec.regenerate.published_seed, "regenerate.published_seed"),
    ):
        with pytest.raises(BadReference) as caught:
            part(None)
        assert str(caught.value) == (
            f"benchmark 'mine', field {label}: '{target}:nope': {target} has no 'nope'"
        )
    assert spec.finetune_tables.table("m") == ("built", "m", 1)


def test_a_missing_dependency_is_not_a_bad_reference(tmp_path, monkeypatch):
    """The module exists, but imports something not installed: that ImportError goes out
    unchanged (the command line then says to install the extras), as a plain import's."""
    (tmp_path / "needs_a_missing_dependency.py").write_text(
        "import no_such_dependency_for_lexbench\n\ndef build(model): ...\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = BenchmarkSpec("mine", "mine", build="needs_a_missing_dependency:build")
    with pytest.raises(ModuleNotFoundError) as caught:
        spec.build(None)
    assert caught.value.name == "no_such_dependency_for_lexbench"
    assert not isinstance(caught.value, BadReference)
    sys.modules.pop("needs_a_missing_dependency", None)


def test_a_reference_copies_pickles_and_compares_by_what_it_names(target):
    reference = BenchmarkSpec("mine", "mine", build=Reference(f"{target}:build", "m")).build
    assert isinstance(reference, Reference)
    assert copy.deepcopy(reference) is reference
    again = pickle.loads(pickle.dumps(reference))
    assert again == reference and again.where == "benchmark 'mine', field build"
    assert again(k=5) == ("built", "m", 5)
    assert reference != Reference(f"{target}:build", "other")
    assert repr(reference) == f"Reference('{target}:build', 'm')"


def test_every_builtin_reference_resolves():
    """A typo in a built-in entry fails here, not in a user's run."""
    import dataclasses

    from lexbench import plugins

    plugins.reset()
    checked = []
    for spec in plugins.benchmarks():
        if spec.source != "built-in":
            continue
        parts = [spec, *spec.comparison_tests, spec.finetune_tables, spec.regenerate]
        for part in filter(None, parts):
            for f in dataclasses.fields(part):
                value = getattr(part, f.name)
                if isinstance(value, Reference):
                    assert value.resolve() is not None, value.where
                    checked.append(value.where)
    assert "benchmark 'lambda', field build" in checked
    assert "benchmark 'scan', field finetune_tables.table" in checked
    assert "benchmark 'bats', field comparison_tests[0].run" in checked
    assert len(checked) >= 40


def test_importing_a_benchmark_package_imports_none_of_its_code():
    """Registering a benchmark is importing its package: that must stay cheap (no torch,
    transformers or numpy, none of its own modules but what its entry names eagerly)."""
    script = (
        "import sys\n"
        "import lexbench.benchmarks.lambda_, lexbench.benchmarks.scan\n"
        "import lexbench.benchmarks.analogies, lexbench.benchmarks.setlexsem\n"
        "import lexbench.benchmarks.ekar\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'transformers', 'numpy', 'scipy') or m.startswith('lexbench.'))))\n"
    )
    source = str(Path(__file__).resolve().parents[1] / "src")
    loaded = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": source, "PATH": "/usr/bin:/bin"},
    ).stdout.split()
    assert loaded == [
        "lexbench.benchmarks",
        "lexbench.benchmarks.analogies",
        "lexbench.benchmarks.ekar",
        "lexbench.benchmarks.ekar.data",
        "lexbench.benchmarks.ekar.explain_prompts",
        "lexbench.benchmarks.ekar.prompts",
        "lexbench.benchmarks.lambda_",
        "lexbench.benchmarks.scan",
        "lexbench.benchmarks.setlexsem",
        "lexbench.contract",
        "lexbench.references",
        "lexbench.types",
    ]
