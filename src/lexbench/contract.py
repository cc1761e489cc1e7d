"""What a benchmark is to lexbench: the four steps it defines (`Benchmark`) and the entry
that registers it (`BenchmarkSpec`), with every optional part declared here with a default.

A built-in benchmark and a plugin register the same way: an entry point in the
`lexbench.benchmarks` group (or a module given with `--include PATH`) whose object is a
`BenchmarkSpec` (or a list of them). Nothing else in lexbench knows a benchmark by name:
the command line, `run all`, `report`, `leaderboard`, `compare`, `rescore`, `human` and
`export` ask the spec.

Every callable part of an entry may be given as a "package.module:object" string instead
(`Importable`), imported when first used, so registering a benchmark imports none of its
code (`lexbench.references` says when a bad string is caught):

>>> from lexbench.contract import BenchmarkSpec
>>> spec = BenchmarkSpec("mine", "my analogy set", build=lambda model, **options: None)
>>> spec.run_names, spec.default_model, spec.in_suite
(('mine',), 'smollm2-135m', False)
>>> BenchmarkSpec("mine", "my analogy set", build="mine.benchmark:build").build
Reference('mine.benchmark:build')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from lexbench.references import BadReference, Importable, Reference, labelled

if TYPE_CHECKING:  # the layers below are imported only when a part is used
    import argparse

    from lexbench.parts import LoadedRun, PublicFile, Reporter, Row
    from lexbench.published import PublishedRow
    from lexbench.stats import TestResult
    from lexbench.types import Request, Response, Score
    from lexbench.wordings import PromptVariant

#: The model every `lexbench run` uses when none is named (the packaged SmolLM2-135M-Instruct).
DEFAULT_MODEL = "smollm2-135m"

#: The shared run option a benchmark may be unable to honour (`BenchmarkSpec.cannot_honour`):
#: chat prompts, and the system prompt they carry, wrap `generate` requests only.
CHAT = "chat"

T = TypeVar("T")

__all__ = [
    "CHAT",
    "DEFAULT_MODEL",
    "BadReference",
    "Benchmark",
    "BenchmarkSpec",
    "ComparisonTest",
    "FinetuneTables",
    "Importable",
    "LabelSetting",
    "ModelView",
    "Reference",
    "Regeneration",
    "SuiteEntry",
    "Tally",
    "first_per_stratum",
]


def first_per_stratum(
    items: Sequence[T], limit: int | None, stratum: Callable[[T], Hashable]
) -> list[T]:
    """The `--limit N` rule: the first `limit` items of each stratum, in the items' order
    (None: all of them). Every stratum keeps items, so per-stratum tables and clustered
    intervals exist on a slice.

    >>> first_per_stratum(["a1", "a2", "b1", "a3", "b2"], 1, lambda word: word[0])
    ['a1', 'b1']
    """
    if limit is None:
        return list(items)
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    taken: Counter[Hashable] = Counter()
    chosen: list[T] = []
    for item in items:
        key = stratum(item)
        if taken[key] < limit:
            taken[key] += 1
            chosen.append(item)
    return chosen


class ModelView(Protocol):
    """What a benchmark may ask of the model it is built for: its name and the request
    kinds it answers (every backend, a `lexbench.models.base.Model`, is one). The contract
    names this, not the backend class, so it sits below the models."""

    @property
    def name(self) -> str: ...

    @property
    def kinds(self) -> frozenset[str]: ...

    def supports(self, kind: str) -> bool: ...


class Benchmark(Protocol):
    """The steps a built benchmark defines; see `lexbench.benchmarks.lambda_` for one.

    Optional, not part of the Protocol so that a benchmark without them still conforms:
    `figures(results, folder) -> list[Path]` writes PNGs to `<run>/figures/`;
    `scores_in_background = True` declares `score` safe on another thread and independent
    of the items' order, so items are scored while the model answers the rest;
    `tally() -> Tally` gives a fresh accumulator that a streaming run feeds each item and
    its score as they are scored, in item order, and whose `finish()` returns exactly what
    `summarize` would (without it the run keeps every item and score and calls
    `summarize`: fine for thousands of items, not for the hundreds of thousands of a
    paper grid).
    """

    name: str

    def config(self) -> dict[str, Any]:
        """Everything that defines the run apart from the model (goes into config.json)."""

    def items(self) -> Iterable[Any]:
        """The items to evaluate, deterministic for a given config; each has an `id`. A
        list, or an object that yields them afresh on each iteration and tells its `len`
        (SetLexSem's paper grid is read as it runs, never held whole)."""

    def requests(self, item: Any) -> list[Request]:
        """What to ask the model for one item (request ids unique across the run)."""

    def score(self, item: Any, responses: Sequence[Response]) -> Score:
        """Score one item from its responses; never calls a model."""

    def sample(
        self, item: Any, requests: Sequence[Request], responses: Sequence[Response], score: Score
    ) -> dict[str, Any]:
        """The samples.jsonl line for one item."""

    def summarize(self, items: Sequence[Any], scores: Sequence[Score]) -> dict[str, Any]:
        """The results.json body: the paper's tables with intervals."""

    def report(self, results: Mapping[str, Any]) -> str:
        """Markdown for report.md and the terminal."""


class Tally(Protocol):
    """What a benchmark keeps of a run as it streams (`Benchmark.tally`): counters and
    compact per-item records, never prompts or raw outputs. `add` is called once per item,
    in item order; `finish` returns the results.json body, equal to `summarize(items,
    scores)` on the same items and scores."""

    def add(self, item: Any, score: Score) -> None: ...

    def finish(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SuiteEntry:
    """How a benchmark takes part in `lexbench run all`: in `order`, built with `options`;
    `quick_options` are added when `run all --limit N` asks for a slice (budgets a CPU
    finishes; recorded in the run's config like any option). A full run keeps the paper's."""

    order: int
    options: Mapping[str, Any] = field(default_factory=dict)
    quick_options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LabelSetting:
    """A setting a run's label names when it differs from the benchmark's default:
    `key` is its dotted path in config.json ("benchmark.prompt_style"), `name` what the
    label calls it ("prompt"). A setting the run does not record, or records as null, is
    not named (null means "not set": the default)."""

    key: str
    name: str
    default: Any = None
    #: (key, value): name the setting only in runs whose config has that value there (a
    #: setting of one task of several, such as E-KAR's explanation length).
    only_when: tuple[str, Any] | None = None


@dataclass(frozen=True)
class FinetuneTables:
    """How `lexbench finetune table FOLDER` turns a benchmark's fine-tuned folders into its
    paper's tables: `experiments` are the names its folders' lineage files carry,
    `add_arguments(parser)` adds the table's options (in a group of their own), and
    `table(folder, experiment, args)` returns {"report": markdown, "folder": run folder}."""

    experiments: tuple[str, ...]
    add_arguments: Importable[Callable[[argparse.ArgumentParser], None]] = Importable()
    table: Importable[Callable[..., Mapping[str, Any]]] = Importable()


@dataclass(frozen=True)
class ComparisonTest:
    """A test `lexbench compare` runs beside its paired ones, because the benchmark's paper
    used it: `run(a, b, resamples=, seed=, two_sided=) -> TestResult` on the per-item values
    (`metric` "score": the graded value; "accuracy": right/wrong as 1/0) of the items both
    runs scored. Its p-values form a multiple-comparison family of their own (Holm), and
    its rows carry `label` as their test, so a reader sees whose test it is."""

    name: str
    label: str
    run: Importable[Callable[..., TestResult]] = Importable()
    metric: str = "score"
    resamples: int = 10_000


@dataclass(frozen=True)
class Regeneration:
    """How `--sets K` draws fresh item sets of the benchmark's design: the seed the given
    builder options draw their items with (`published_seed(options)`), and the same
    options drawing with another seed (`with_seed(options, seed)`; refuse in one line
    options that cannot be redrawn, such as an items file)."""

    published_seed: Importable[Callable[[Mapping[str, Any]], int]] = Importable()
    with_seed: Importable[Callable[[Mapping[str, Any], int], dict[str, Any]]] = Importable()


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark's entry: how to build it for a model, and the optional parts it brings.

    Required: `name`, `description` and `build(model, **options) -> Benchmark` (the model
    is opened; a benchmark asks it only `supports(kind)`). Every callable field
    (`Importable`) takes the callable or a "package.module:object" string naming it,
    imported on first use; the fields called without arguments (`reporters`, `human_task`,
    `prompt_variants`, `published`) may name the value itself. Every other field has a
    default that works for any benchmark following the run-folder conventions:

    * `needs_any`: request kinds of which the model must answer one (checked first);
    * `chat_default`: wrap generation prompts in the chat format for chat models;
    * `default_model`: the model spec the command line uses when none is given;
    * `limit_option`: the builder option `--limit N` sets (None: the benchmark has none);
      the builder keeps the first N items of each stratum (`first_per_stratum`);
    * `data_option`: the builder option `--data PATH` sets, in its own `run` and in
      `lexbench run all --data NAME=PATH` (None: it reads no files);
    * `suite`: its place and options in `lexbench run all` (None: not in the suite);
    * `run_names`: the benchmark names its run folders carry (default: its own name);
    * `commands(cli)`: adds its own sub-commands (`run NAME`, `generate NAME`, ...); without
      it `lexbench run NAME` gets the generic options (model, run, `--limit`, `--data`,
      `--option KEY=VALUE`);
    * `reporters()`: report sections for its runs (default: the generic one);
    * `headline(run)`: its leaderboard row (default: accuracy with a Wilson interval);
    * `human_task()`: its human-study task, if people can take it;
    * `label_settings`: the settings that name a run in reports and leaderboards when they
      differ from their defaults (`smollm2-135m (prompt=completion, limit=5)`; a run at
      every default is `smollm2-135m (defaults)`);
    * `question_fields`: per run name, the sample fields that make up an item's question,
      so `compare` pairs only items asked the same question (default: the prompt);
    * `build_progress`: `build` takes `progress=` (building shows a bar of its own);
    * `finetune_tables`: the tables `lexbench finetune table` makes of its fine-tuned models
      (its `lexbench finetune NAME` commands come from `commands`);
    * `comparison_tests`: tests its paper used that `compare` runs beside the paired ones
      (default none).
    * `prompt_variants()`: its wordings besides the paper's (`--prompt-variant NAME|all`);
    * `regenerate`: how it draws fresh item sets (`--sets K`, the contamination probe);
    * `spread_fields`: sample fields whose values are the cells of the spread tables
      ("a+b": the combination of two fields);
    * `public_file(options)`: its public data file, for the completion probe;
    * `cannot_honour(options, model)`: the shared run options it cannot honour when built
      with these builder options for this (opened) model, each with the reason, e.g.
      `{CHAT: "SCAN ranks next words; ..."}`; such an option is refused, never dropped
      (default: it honours every one);
    * `published()`: its paper's printed numbers (`lexbench.published.load_published` reads
      them from a TOML file), shown beside its runs where the protocol matches
      (docs/published-results.md); a row may name another run name ("bats").
    """

    name: str
    description: str
    build: Importable[Callable[..., Benchmark]] = Importable()
    needs_any: tuple[str, ...] = ()
    chat_default: bool = False
    default_model: str = DEFAULT_MODEL
    limit_option: str | None = "limit"
    data_option: str | None = "data"
    suite: SuiteEntry | None = None
    run_names: tuple[str, ...] = ()
    commands: Importable[Callable[[Any], None] | None] = Importable(None)
    reporters: Importable[Callable[[], Sequence[Reporter]] | None] = Importable(
        None, allows_value=True
    )
    headline: Importable[Callable[[LoadedRun], Row | None] | None] = Importable(None)
    human_task: Importable[Callable[[], Any] | None] = Importable(None, allows_value=True)
    finetune_tables: FinetuneTables | None = None
    question_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    label_settings: tuple[LabelSetting, ...] = ()
    build_progress: bool = False
    comparison_tests: tuple[ComparisonTest, ...] = ()
    prompt_variants: Importable[Callable[[], Sequence[PromptVariant]] | None] = Importable(
        None, allows_value=True
    )
    regenerate: Regeneration | None = None
    spread_fields: tuple[str, ...] = ()
    public_file: Importable[Callable[[Mapping[str, Any]], PublicFile] | None] = Importable(None)
    cannot_honour: Importable[
        Callable[[Mapping[str, Any], ModelView], Mapping[str, str]] | None
    ] = Importable(None)
    published: Importable[Callable[[], Sequence[PublishedRow]] | None] = Importable(
        None, allows_value=True
    )
    #: Where it was registered from, filled in by `lexbench.plugins` ("built-in", a
    #: distribution "name version", or "path FILE").
    source: str = ""

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() or c in "/\\:" for c in self.name):
            raise ValueError(
                f"benchmark name {self.name!r}: give a non-empty name without "
                "spaces, slashes or colons (it names run folders)"
            )
        if not self.run_names:
            object.__setattr__(self, "run_names", (self.name,))
        # The parts' references name this benchmark in their errors too.
        where = self._reference_label
        if self.finetune_tables is not None:
            tables = labelled(self.finetune_tables, where("finetune_tables"))
            object.__setattr__(self, "finetune_tables", tables)
        if self.regenerate is not None:
            object.__setattr__(self, "regenerate", labelled(self.regenerate, where("regenerate")))
        tests = tuple(
            labelled(test, where(f"comparison_tests[{i}]"))
            for i, test in enumerate(self.comparison_tests)
        )
        object.__setattr__(self, "comparison_tests", tests)

    def _reference_label(self, field_name: str) -> str:
        """Whose a reference is, in its errors (`Importable` asks)."""
        return f"benchmark {getattr(self, 'name', '?')!r}, field {field_name}"

    @property
    def in_suite(self) -> bool:
        return self.suite is not None

    def check(self, model: ModelView) -> None:
        """Refuse, in one line, a model that answers none of the kinds this benchmark needs."""
        if self.needs_any and not any(model.supports(kind) for kind in self.needs_any):
            raise ValueError(
                f"{self.name} needs a model that answers "
                f"{' or '.join(self.needs_any)} requests; {model.name} answers "
                f"{', '.join(sorted(model.kinds)) or 'none'}"
            )
