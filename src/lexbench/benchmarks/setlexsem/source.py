"""SetLexSem's items as a source made again each time it is iterated, never held whole.

A paper grid is 324,800 prompts of up to a few kilobytes each: a run that listed them
would hold about a gigabyte before asking anything. An `ItemSource` yields the items of a
generated file (`FileItems`) or of a grid generated on the fly (`GridItems`) one at a time,
with `--limit` and `--select` applied as they pass, so a streaming run (`run.evaluate`)
holds one window of them.

`survey()` walks the items once before the run: their number, the dataset hash the run
folder is named by (sha256 over each item's JSONL line, as it always was), and every
check that must fail before a request is sent (a damaged line, a repeated id, a selection
that matches nothing). The run then iterates the source a second time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lexbench.benchmarks.setlexsem.files import check_selection, item_line, iter_items
from lexbench.benchmarks.setlexsem.generate import ItemGenerator, matches_selection
from lexbench.benchmarks.setlexsem.grid import Grid
from lexbench.benchmarks.setlexsem.item_ids import IdRepeats
from lexbench.benchmarks.setlexsem.items import SetLexSemItem


@dataclass(frozen=True)
class Survey:
    """What one pass over a source found: its items and their dataset hash."""

    count: int
    sha256: str


@dataclass
class ItemSource:
    """Items made again on each iteration (see the module docstring); `len` surveys once."""

    _survey: Survey | None = field(default=None, init=False, repr=False)

    def produce(self) -> Iterator[SetLexSemItem]:
        raise NotImplementedError

    def where(self) -> str:
        raise NotImplementedError

    def survey(self) -> Survey:
        """Count and hash the items once, refusing a repeated id (named) or no items."""
        if self._survey is not None:
            return self._survey
        ids = IdRepeats()  # 8 bytes an item
        digest = hashlib.sha256()
        for item in self.produce():
            digest.update(item_line(item).encode("utf-8"))
            ids.add(item.id)
        if not len(ids):
            raise ValueError(f"{self.where()}: no items")
        repeated = ids.repeated(lambda: (item.id for item in self.produce()))
        if repeated:
            raise ValueError(f"{self.where()}: item ids repeat: {repeated[:5]}")
        self._survey = Survey(len(ids), digest.hexdigest())
        return self._survey

    def __iter__(self) -> Iterator[SetLexSemItem]:
        return self.produce()

    def __len__(self) -> int:
        return self.survey().count


@dataclass
class FileItems(ItemSource):
    """The items of a generated JSONL file, the first `limit` of each configuration that
    match `selection`."""

    path: Path = Path()
    limit: int | None = None
    selection: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def where(self) -> str:
        return str(self.path)

    def produce(self) -> Iterator[SetLexSemItem]:
        matched = False
        for item in iter_items(self.path):
            if self.limit is not None and item.prompt_index >= self.limit:
                continue
            if self.selection and not matches_selection(self.selection, item.studies, vars(item)):
                continue
            matched = True
            yield item
        if not matched:
            check_selection(self.selection, ())


@dataclass
class GridItems(ItemSource):
    """A grid's items, generated as they are asked for (the whole grid is planned, and
    so validated, first), the first `limit` of each configuration matching `selection`."""

    grid: Grid | None = None
    wordnet: str | None = None
    limit: int | None = None
    selection: Mapping[str, Sequence[str]] = field(default_factory=dict)
    _generator: ItemGenerator | None = field(default=None, init=False, repr=False)

    def where(self) -> str:
        return f"the {self.grid.source if self.grid else ''} grid".replace("  ", " ")

    def produce(self) -> Iterator[SetLexSemItem]:
        if self._generator is None:
            if self.grid is None:
                raise ValueError("GridItems needs a grid")
            self._generator = ItemGenerator(self.grid, self.wordnet)
        matched = False
        for item in self._generator.items(self.limit, self.selection):
            matched = True
            yield item
        if not matched:
            check_selection(self.selection, ())
