"""SetLexSem grids: which configurations to generate, validated strictly.

A grid is a list of studies; each study is the cross product of its axes. A grid file is
TOML (or a Python file defining a dict `GRID` of the same shape):

    seed = 292                    # the paper's seed
    prompts_per_config = 50       # different A and B per configuration

    [decoding]                    # optional; greedy by default
    temperature = 0.0             # the paper: 0.25, with top_k = 20 and top_p = 0.25
    max_new_tokens = 256          # answer-only methods
    reasoning_max_new_tokens = 1024   # methods that think first

    [[study]]
    name = "main"
    token_types = ["numbers", "words"]
    operations = ["union", "intersection", "difference", "symmetric_difference"]
    operand_sizes = [2, 4, 8, 16]
    token_lengths = [1, 2, 3, 4]  # or "any": numbers in [0, number_range), words of any length
    k_shots = [0, 1, 3, 5]
    methods = ["baseline", "baseline_allow_empty", "cot_self_reflection",
               "cot_self_reflection_allow_empty"]
    phrasings = ["formal", "plain"]
    skip_infeasible = true        # leave out, and list, cells the pools cannot fill

    [[study]]                     # words by corpus frequency (Table 7)
    name = "deciles"
    token_types = ["deciles"]
    deciles = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    token_lengths = [3, 5]
    decile_scope = "global_books_scale"  # the authors' equal-width bins of normalised log
                                  # counts, wordfreq on Google Books' scale (the default);
                                  # "global": the same bins, the rarest ranked word counting 1;
                                  # "global_equal_count": equal-count tenths of the ranking;
                                  # "length": equal-count tenths within each token length

An unknown key, an empty list, a repeated value, or an axis that does not apply to the
study's token type is an error naming the problem. A cell whose pool is too small for its
sets is an error too, unless its study says `skip_infeasible = true` (the paper's own runs
left such cells out: one-digit numbers cannot fill sets of 16); skipped cells are listed in
the manifest and on the terminal, never dropped silently. TOML has no null, so "none"
(overlap) and "any" (token length) stand for "no constraint".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from lexbench.benchmarks.setlexsem.grid_values import check_keys, fail, int_value
from lexbench.benchmarks.setlexsem.prompts import REASONING_METHODS
from lexbench.benchmarks.setlexsem.sets import OPERATIONS
from lexbench.types import Decoding

MAX_K = 10
BUILTIN_GRIDS = ("paper", "lexbench", "small")
PAPER_NUMBER_RANGE = 10_000  # "the numbers ... were sampled from the range [0, 9999]"


@dataclass(frozen=True)
class DecodingSpec:
    """How answers are decoded, per method kind. Greedy by default; recorded on every row."""

    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    max_new_tokens: int = 256
    reasoning_max_new_tokens: int = 1024
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def for_method(self, method: str) -> Decoding:
        budget = (
            self.reasoning_max_new_tokens if method in REASONING_METHODS else self.max_new_tokens
        )
        return Decoding(
            max_new_tokens=budget,
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            stop=self.stop,
            seed=self.seed,
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "stop": list(self.stop)}


@dataclass(frozen=True)
class Study:
    """One cross product of axes. `None` in token_lengths/overlaps means unconstrained."""

    name: str
    token_types: tuple[str, ...]
    operations: tuple[str, ...] = OPERATIONS
    operand_sizes: tuple[int, ...] = (2, 4, 8, 16)
    token_lengths: tuple[int | None, ...] = (None,)
    number_range: int = PAPER_NUMBER_RANGE
    overlaps: tuple[float | None, ...] = (None,)
    deciles: tuple[int, ...] = ()
    decile_scope: str = "global_books_scale"  # setlexsem.deciles.BOOKS_SCALE
    deceptive_conditions: tuple[str, ...] = ()
    k_shots: tuple[int, ...] = (0,)
    methods: tuple[str, ...] = ("baseline",)
    phrasings: tuple[str, ...] = ("formal",)
    skip_infeasible: bool = False

    def set_configs(self) -> Iterator[dict[str, Any]]:
        """The set-drawing configurations (what decides A and B), in grid order."""
        for token_type in self.token_types:
            if token_type == "deceptive":
                for m in self.operand_sizes:
                    for condition in self.deceptive_conditions:
                        yield {
                            "token_type": token_type,
                            "m": m,
                            "token_length": None,
                            "number_range": None,
                            "overlap": None,
                            "decile": None,
                            "decile_scope": None,
                            "deceptive_condition": condition,
                        }
                continue
            deciles: Sequence[int | None] = self.deciles if token_type == "deciles" else (None,)
            for decile in deciles:
                for length in self.token_lengths:
                    for m in self.operand_sizes:
                        for overlap in self.overlaps:
                            yield {
                                "token_type": token_type,
                                "m": m,
                                "token_length": length,
                                "number_range": self.number_range
                                if token_type == "numbers" and length is None
                                else None,
                                "overlap": overlap,
                                "decile": decile,
                                "decile_scope": self.decile_scope if decile is not None else None,
                                "deceptive_condition": None,
                            }

    def prompt_configs(self) -> Iterator[dict[str, Any]]:
        for operation in self.operations:
            for k in self.k_shots:
                for method in self.methods:
                    for phrasing in self.phrasings:
                        yield {
                            "operation": operation,
                            "k": k,
                            "method": method,
                            "phrasing": phrasing,
                        }

    def configurations(self) -> int:
        """Cells before feasibility (the cross product's size)."""
        return sum(1 for _ in self.set_configs()) * sum(1 for _ in self.prompt_configs())

    def to_dict(self) -> dict[str, Any]:
        return {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in asdict(self).items()
        }


@dataclass(frozen=True)
class Grid:
    studies: tuple[Study, ...]
    seed: int = 292
    prompts_per_config: int = 50
    decoding: DecodingSpec = field(default_factory=DecodingSpec)
    source: str = "custom"

    def configurations(self) -> int:
        return sum(s.configurations() for s in self.studies)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "seed": self.seed,
            "prompts_per_config": self.prompts_per_config,
            "decoding": self.decoding.to_dict(),
            "studies": [s.to_dict() for s in self.studies],
        }

    def with_decoding(self, **changes: Any) -> Grid:
        """A copy with decoding settings changed (None values are ignored)."""
        given = {k: v for k, v in changes.items() if v is not None}
        if not given:
            return self
        return replace(
            self, decoding=decoding_from({**self.decoding.to_dict(), **given}, "decoding override")
        )


# ------------------------------------------------------------------------------ validation


_DECODING_KEYS = (
    "temperature",
    "top_p",
    "top_k",
    "max_new_tokens",
    "reasoning_max_new_tokens",
    "stop",
    "seed",
)


def decoding_from(table: Mapping[str, Any], where: str = "decoding") -> DecodingSpec:
    check_keys(table, _DECODING_KEYS, where)
    values: dict[str, Any] = {}
    for key in ("temperature", "top_p"):
        if key in table:
            v = table[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise fail(where, f"{key} must be a non-negative number, got {v!r}")
            values[key] = float(v)
    if "top_p" in values and not 0.0 < values["top_p"] <= 1.0:
        raise fail(where, f"top_p must be in (0, 1], got {values['top_p']}")
    if "top_k" in table:
        values["top_k"] = int_value(table["top_k"], where, "top_k", 0)
    for key in ("max_new_tokens", "reasoning_max_new_tokens"):
        if key in table:
            values[key] = int_value(table[key], where, key, 1)
    if "stop" in table:
        stop = table["stop"]
        if not isinstance(stop, (list, tuple)) or not all(isinstance(s, str) and s for s in stop):
            raise fail(where, f"stop must be a list of non-empty strings, got {stop!r}")
        values["stop"] = tuple(stop)
    if "seed" in table and table["seed"] is not None:
        values["seed"] = int_value(table["seed"], where, "seed", 0)
    return DecodingSpec(**values)
