"""Generating SetLexSem items deterministically: each configuration of a grid planned and
validated before anything is written (cells its pools cannot fill are skipped and listed
when the study allows it), then its prompts drawn with seeded samplers."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lexbench.benchmarks.setlexsem.categories import CATEGORY_TYPES, category_pool
from lexbench.benchmarks.setlexsem.grid import Grid, Study
from lexbench.benchmarks.setlexsem.hyponym_pools import HyponymPool, load_hyponym_pools
from lexbench.benchmarks.setlexsem.items import SetLexSemItem, config_id, length_label, set_key
from lexbench.benchmarks.setlexsem.prompts import demonstration, prompt_text
from lexbench.benchmarks.setlexsem.sets import (
    DeceptivePools,
    InfeasibleCell,
    Member,
    SetPair,
    check_deceptive,
    decile_pool,
    draw_deceptive,
    draw_independent,
    draw_overlapping,
    ground_truth,
    number_pool,
    overlap_size,
    require_pairs,
    sort_members,
    word_pool,
)


def _pair_key(pair: SetPair) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    return (tuple(sort_members(pair[0])), tuple(sort_members(pair[1])))


@dataclass
class _Draws:
    """The pairs drawn for one set configuration: tests first, demonstrations on demand."""

    tests: list[SetPair]
    demo_rng: random.Random
    sampler: Any
    meta: list[tuple[str | None, str | None, int]]
    taken: set[Any]  # pair keys of the tests and demonstrations drawn so far
    demos: list[SetPair] = field(default_factory=list)

    def demonstrations(self, k: int) -> list[SetPair]:
        attempts = 0
        while len(self.demos) < k:
            attempts += 1
            if attempts > 1000 + 100 * k:
                raise InfeasibleCell(
                    f"could not draw {k} demonstrations different from the "
                    f"test sets; the pool is too small"
                )
            pair = self.sampler(self.demo_rng)[0]
            key = _pair_key(pair)
            if key not in self.taken:
                self.taken.add(key)
                self.demos.append(pair)
        return self.demos[:k]


@dataclass(frozen=True)
class PlannedCell:
    study: str
    set_config: Mapping[str, Any]
    prompt_config: Mapping[str, Any]
    config_id: str


@dataclass(frozen=True)
class SkippedCell:
    study: str
    config_id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"study": self.study, "config_id": self.config_id, "reason": self.reason}


class ItemGenerator:
    """Generates a grid's items in a fixed order, drawing each set configuration once.

    `plan()` draws every cell's sets (raising on an impossible cell unless its study skips
    them) before `items()` renders a single prompt."""

    def __init__(self, grid: Grid, wordnet: str | None = None):
        self.grid = grid
        self.wordnet = wordnet
        self._draws: dict[str, _Draws] = {}
        self._pools: tuple[HyponymPool, ...] | None = None
        self._demo_text: dict[tuple[str, str, int], str] = {}
        self._plan: tuple[list[PlannedCell], list[SkippedCell]] | None = None
        self._prepared: dict[int, DeceptivePools] = {}

    @property
    def pools(self) -> tuple[HyponymPool, ...] | None:
        return self._pools

    def hyponym_pools(self) -> tuple[HyponymPool, ...]:
        if self._pools is None:
            self._pools = load_hyponym_pools(self.wordnet)
        return self._pools

    def _deceptive_pools(self, m: int) -> DeceptivePools:
        if m not in self._prepared:
            self._prepared[m] = DeceptivePools.build(self.hyponym_pools(), m)
        return self._prepared[m]

    def _sampler(self, config: Mapping[str, Any]) -> Any:
        """A function rng -> (pair, (hypernym_a, hypernym_b, swapped)); raises InfeasibleCell
        when the pool cannot give `prompts_per_config` + max k different pairs."""
        m = config["m"]
        most_shots = max((k for s in self.grid.studies for k in s.k_shots), default=0)
        needed = self.grid.prompts_per_config + most_shots
        if config["token_type"] == "deceptive":
            prepared = self._deceptive_pools(m)
            condition = config["deceptive_condition"]
            check_deceptive(prepared, condition)

            def deceptive(rng: random.Random) -> tuple[SetPair, tuple[str | None, str | None, int]]:
                drawn = draw_deceptive(rng, prepared, None, condition)
                return (drawn.a, drawn.b), (drawn.hypernym_a, drawn.hypernym_b, drawn.swapped)

            return deceptive
        if config["token_type"] == "numbers":
            pool: Sequence[Member] = number_pool(config["token_length"], config["number_range"])
            what = f"the number pool [{pool.start}, {pool.stop - 1}]"  # type: ignore[attr-defined]
        elif config["token_type"] == "words":
            pool = word_pool(config["token_length"])
            what = f"the word pool of length {length_label(config['token_length'])}"
        elif config["token_type"] in CATEGORY_TYPES:
            pool = category_pool(config["token_type"], config["token_length"], self.wordnet)
            what = (
                f"the {config['token_type']} pool of length {length_label(config['token_length'])}"
            )
        else:
            pool = decile_pool(config["decile"], config["token_length"], config["decile_scope"])
            what = (
                f"decile {config['decile']} ({config['decile_scope']} ranking) at length "
                f"{config['token_length']}"
            )
        overlap = config["overlap"]
        if overlap is None:
            require_pairs(len(pool), m, needed, what)
        elif len(pool) < 2 * m - overlap_size(m, overlap):
            raise InfeasibleCell(
                f"{what} has {len(pool)} members; sets of {m} with overlap "
                f"{overlap:g} need {2 * m - overlap_size(m, overlap)}"
            )

        def plain(rng: random.Random) -> tuple[SetPair, tuple[None, None, int]]:
            if overlap is None:
                return draw_independent(rng, pool, m), (None, None, 0)
            return draw_overlapping(rng, pool, m, overlap), (None, None, 0)

        return plain

    def draws(self, config: Mapping[str, Any]) -> _Draws:
        key = set_key(config) + f"|condition={config['deceptive_condition']}"
        if key in self._draws:
            return self._draws[key]
        sampler = self._sampler(config)
        rng = random.Random(f"setlexsem:{self.grid.seed}:{set_key(config)}:tests")
        tests: list[SetPair] = []
        meta: list[tuple[str | None, str | None, int]] = []
        seen: set[Any] = set()
        attempts = 0
        while len(tests) < self.grid.prompts_per_config:
            attempts += 1
            if attempts > 1000 + 20 * self.grid.prompts_per_config:
                raise InfeasibleCell(
                    f"could not draw {self.grid.prompts_per_config} different "
                    f"pairs of sets; the pool is too small"
                )
            pair, info = sampler(rng)
            if _pair_key(pair) in seen:
                continue
            seen.add(_pair_key(pair))
            tests.append(pair)
            meta.append(info)
        demo_rng = random.Random(f"setlexsem:{self.grid.seed}:{set_key(config)}:demonstrations")
        self._draws[key] = _Draws(
            tests=tests, demo_rng=demo_rng, sampler=sampler, meta=meta, taken=seen
        )
        return self._draws[key]

    def _cells(self) -> Iterator[tuple[Study, dict[str, Any], dict[str, Any], str]]:
        for study in self.grid.studies:
            for set_config in study.set_configs():
                for prompt_config in study.prompt_configs():
                    yield study, set_config, prompt_config, config_id(set_config, prompt_config)

    def plan(self) -> tuple[list[PlannedCell], list[SkippedCell]]:
        """Draw every cell's sets and demonstrations; the cells to generate and those left out.
        An impossible cell in a study without `skip_infeasible` is a ValueError naming the
        grid, the study and the cell."""
        if self._plan is not None:
            return self._plan
        planned: list[PlannedCell] = []
        skipped: list[SkippedCell] = []
        for study, set_config, prompt_config, cid in self._cells():
            try:
                self.draws(set_config).demonstrations(prompt_config["k"])
            except InfeasibleCell as error:
                if not study.skip_infeasible:
                    raise ValueError(
                        f"grid {self.grid.source}: study {study.name!r}, configuration {cid}: "
                        f"{error}; remove this cell from the grid, or set skip_infeasible = "
                        f"true in the study to leave such cells out"
                    ) from None
                skipped.append(SkippedCell(study.name, cid, str(error)))
                continue
            planned.append(PlannedCell(study.name, set_config, prompt_config, cid))
        self._plan = (planned, skipped)
        return self._plan

    def studies_by_config(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for cell in self.plan()[0]:
            names = out.setdefault(cell.config_id, [])
            if cell.study not in names:
                names.append(cell.study)
        return out

    def _demonstration_text(self, key: str, operation: str, index: int, pair: SetPair) -> str:
        cache_key = (key, operation, index)
        text = self._demo_text.get(cache_key)
        if text is None:
            text = demonstration(operation, pair[0], pair[1])
            self._demo_text[cache_key] = text
        return text

    def items(
        self, limit: int | None = None, selection: Mapping[str, Sequence[str]] | None = None
    ) -> Iterator[SetLexSemItem]:
        """The items, configuration by configuration. `limit` renders only the first N
        prompts of each (the sets are drawn in full, so they do not depend on the limit);
        `selection` keeps the configurations matching it (see `select_items`)."""
        planned, _ = self.plan()
        studies = self.studies_by_config()
        emitted: set[str] = set()
        for cell in planned:
            if cell.config_id in emitted:
                continue
            emitted.add(cell.config_id)
            names = tuple(studies[cell.config_id])
            fields = {**cell.set_config, **cell.prompt_config}
            if selection and not matches_selection(selection, names, fields):
                continue
            yield from self._cell_items(cell, names, limit)

    def _cell_items(
        self, cell: PlannedCell, studies: tuple[str, ...], limit: int | None = None
    ) -> Iterator[SetLexSemItem]:
        set_config, prompt_config, cid = cell.set_config, cell.prompt_config, cell.config_id
        draws = self.draws(set_config)
        k = prompt_config["k"]
        demos = draws.demonstrations(k)
        key = set_key(set_config) + f"|{set_config['deceptive_condition']}"
        operation = prompt_config["operation"]
        decoding = self.grid.decoding.for_method(prompt_config["method"]).to_dict()
        demo_texts = [
            self._demonstration_text(key, operation, i, pair) for i, pair in enumerate(demos)
        ]
        for index, ((a, b), (hyper_a, hyper_b, swapped)) in enumerate(zip(draws.tests, draws.meta)):
            if limit is not None and index >= limit:
                break
            text = prompt_text(
                a,
                b,
                operation,
                prompt_config["method"],
                prompt_config["phrasing"],
                demos,
                demo_texts,
            )
            yield SetLexSemItem(
                id=f"{cid}/{index:02d}",
                config_id=cid,
                studies=studies,
                token_type=set_config["token_type"],
                operation=operation,
                m=set_config["m"],
                token_length=set_config["token_length"],
                number_range=set_config["number_range"],
                overlap=set_config["overlap"],
                decile=set_config["decile"],
                decile_scope=set_config["decile_scope"],
                deceptive_condition=set_config["deceptive_condition"],
                k=k,
                method=prompt_config["method"],
                phrasing=prompt_config["phrasing"],
                prompt_index=index,
                seed=self.grid.seed,
                set_a=tuple(a),
                set_b=tuple(b),
                answer=tuple(sort_members(ground_truth(operation, a, b))),
                demonstrations=tuple(demos),
                hypernym_a=hyper_a,
                hypernym_b=hyper_b,
                swapped=swapped,
                decoding=decoding,
                prompt=text,
            )


def matches_selection(
    selection: Mapping[str, Sequence[str]], studies: Sequence[str], fields: Mapping[str, Any]
) -> bool:
    """True when a configuration matches every field of `selection` (values compared as
    text; "any" matches an unconstrained token length)."""
    for name, values in selection.items():
        if name == "study":
            if not set(values) & set(studies):
                return False
        elif ("any" if fields[name] is None else str(fields[name])) not in values:
            return False
    return True
