"""SetLexSem's items as a source made again each time it is iterated, never held whole.

A paper grid is 302,400 prompts of up to a few kilobytes each: a run that listed them
would hold about a gigabyte before asking anything. An `ItemSource` yields the items of a
generated file (`FileItems`) or of a grid generated on the fly (`GridItems`) one at a time,
with `--limit` and `--select` applied as they pass, so a streaming run (`run.evaluate`)
holds one window of them.

`survey()` walks the items once before the run: their number, the dataset hash the run
folder is named by (sha256 over each item's JSONL line, as it always was), and every
check that must fail before a request is sent (a damaged line, a repeated id, a selection
that matches nothing). The run then iterates the source a second time, without the
checks only a whole pass can make.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lexbench.benchmarks.setlexsem.files import check_selection, item_line, iter_items
from lexbench.benchmarks.setlexsem.generate import ItemGenerator, matches_selection
from lexbench.benchmarks.setlexsem.grid import Grid
from lexbench.benchmarks.setlexsem.items import SetLexSemItem
from lexbench.heartbeat import long_step


@dataclass(frozen=True)
class Survey:
    """What one pass over a source found: its items and their dataset hash."""

    count: int
    sha256: str


@dataclass
class ItemSource:
    """Items made again on each iteration (see the module docstring), the first `limit` of
    each configuration that match `selection`; `len` surveys once."""

    limit: int | None = None
    selection: Mapping[str, Sequence[str]] = field(default_factory=dict)
    _survey: Survey | None = field(default=None, init=False, repr=False)

    def produce(self, whole_checks: bool) -> Iterator[SetLexSemItem]:
        """The items; `whole_checks`: also make the checks only a whole pass can make
        (repeated ids), as the survey does; the run's pass needs them no more."""
        raise NotImplementedError

    def where(self) -> str:
        raise NotImplementedError

    def survey(self) -> Survey:
        """Count and hash the items once, refusing a selection that matches nothing, a
        source without items and (`produce`) repeated ids."""
        if self._survey is not None:
            return self._survey
        digest = hashlib.sha256()
        count = 0
        # A paper grid made on the fly takes a minute or more: said, with its count.
        what = f"counting and hashing SetLexSem's items ({self.where()}) before the run"
        with long_step(what, unit="items") as step:
            for item in self.produce(whole_checks=True):
                digest.update(item_line(item).encode("utf-8"))
                count += 1
                step.done = count
        if count == 0:
            check_selection(self.selection, ())
            raise ValueError(f"{self.where()}: no items")
        self._survey = Survey(count, digest.hexdigest())
        return self._survey

    def __iter__(self) -> Iterator[SetLexSemItem]:
        return self.produce(whole_checks=False)

    def __len__(self) -> int:
        return self.survey().count


@dataclass
class FileItems(ItemSource):
    """The items of a generated JSONL file (every line checked by `iter_items`, repeated
    ids across the whole file included, whatever `limit` and `selection` keep)."""

    path: Path = Path()

    def where(self) -> str:
        return str(self.path)

    def produce(self, whole_checks: bool) -> Iterator[SetLexSemItem]:
        for item in iter_items(self.path, check_ids=whole_checks):
            if self.limit is not None and item.prompt_index >= self.limit:
                continue
            if self.selection and not matches_selection(self.selection, item.studies, vars(item)):
                continue
            yield item


@dataclass
class GridItems(ItemSource):
    """A grid's items, generated as they are asked for (the whole grid is planned, and
    so validated, first). Their ids cannot repeat: the generator makes each configuration
    once and numbers its prompts."""

    grid: Grid | None = None
    wordnet: str | None = None
    _generator: ItemGenerator | None = field(default=None, init=False, repr=False)

    def where(self) -> str:
        return f"the {self.grid.source if self.grid else ''} grid".replace("  ", " ")

    def produce(self, whole_checks: bool) -> Iterator[SetLexSemItem]:
        if self._generator is None:
            if self.grid is None:
                raise ValueError("GridItems needs a grid")
            self._generator = ItemGenerator(self.grid, self.wordnet)
        yield from self._generator.items(self.limit, self.selection)
