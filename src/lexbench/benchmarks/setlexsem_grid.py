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

An unknown key, an empty list, a repeated value, or an axis that does not apply to the
study's token type is an error naming the problem. A cell whose pool is too small for its
sets is an error too, unless its study says `skip_infeasible = true` (the paper's own runs
left such cells out: one-digit numbers cannot fill sets of 16); skipped cells are listed in
the manifest and on the terminal, never dropped silently. TOML has no null, so "none"
(overlap) and "any" (token length) stand for "no constraint".
"""

from __future__ import annotations

import runpy
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from lexbench.benchmarks.setlexsem_prompts import METHODS, PHRASINGS, REASONING_METHODS
from lexbench.benchmarks.setlexsem_sets import DECEPTIVE_CONDITIONS, OPERATIONS, TOKEN_TYPES
from lexbench.types import Decoding

MAX_K = 10
BUILTIN_GRIDS = ("paper", "lexbench", "small")
PAPER_NUMBER_RANGE = 10_000   # "the numbers ... were sampled from the range [0, 9999]"

_STUDY_KEYS = ("name", "token_types", "operations", "operand_sizes", "token_lengths",
               "number_range", "overlaps", "deciles", "decile_scope", "deceptive_conditions",
               "k_shots", "methods", "phrasings", "skip_infeasible")
_GRID_KEYS = ("seed", "prompts_per_config", "decoding", "study")
_DECODING_KEYS = ("temperature", "top_p", "top_k", "max_new_tokens", "reasoning_max_new_tokens",
                  "stop", "seed")


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
        budget = self.reasoning_max_new_tokens if method in REASONING_METHODS else self.max_new_tokens
        return Decoding(max_new_tokens=budget, temperature=self.temperature, top_p=self.top_p,
                        top_k=self.top_k, stop=self.stop, seed=self.seed)

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
    decile_scope: str = "global"
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
                        yield {"token_type": token_type, "m": m, "token_length": None,
                               "number_range": None, "overlap": None, "decile": None,
                               "decile_scope": None, "deceptive_condition": condition}
                continue
            deciles: Sequence[int | None] = self.deciles if token_type == "deciles" else (None,)
            for decile in deciles:
                for length in self.token_lengths:
                    for m in self.operand_sizes:
                        for overlap in self.overlaps:
                            yield {"token_type": token_type, "m": m, "token_length": length,
                                   "number_range": self.number_range
                                   if token_type == "numbers" and length is None else None,
                                   "overlap": overlap, "decile": decile,
                                   "decile_scope": self.decile_scope if decile is not None else None,
                                   "deceptive_condition": None}

    def prompt_configs(self) -> Iterator[dict[str, Any]]:
        for operation in self.operations:
            for k in self.k_shots:
                for method in self.methods:
                    for phrasing in self.phrasings:
                        yield {"operation": operation, "k": k, "method": method,
                               "phrasing": phrasing}

    def configurations(self) -> int:
        """Cells before feasibility (the cross product's size)."""
        return sum(1 for _ in self.set_configs()) * sum(1 for _ in self.prompt_configs())

    def to_dict(self) -> dict[str, Any]:
        return {key: list(value) if isinstance(value, tuple) else value
                for key, value in asdict(self).items()}


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
        return {"source": self.source, "seed": self.seed,
                "prompts_per_config": self.prompts_per_config,
                "decoding": self.decoding.to_dict(),
                "studies": [s.to_dict() for s in self.studies]}

    def with_decoding(self, **changes: Any) -> Grid:
        """A copy with decoding settings changed (None values are ignored)."""
        given = {k: v for k, v in changes.items() if v is not None}
        if not given:
            return self
        return replace(self, decoding=_decoding_from(
            {**self.decoding.to_dict(), **given}, "decoding override"))


# ------------------------------------------------------------------------------ validation


def _fail(where: str, message: str) -> ValueError:
    return ValueError(f"grid {where}: {message}")


def _check_keys(table: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    if not isinstance(table, Mapping):
        raise _fail(where, f"expected a table, got {type(table).__name__}")
    unknown = sorted(set(map(str, table)) - set(allowed))
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(map(repr, unknown))}; "
                           f"allowed: {', '.join(allowed)}")


def _list(value: Any, where: str, key: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise _fail(where, f"{key} must be a list, got {value!r}")
    if not value:
        raise _fail(where, f"{key} is empty (an empty axis would silently generate nothing)")
    seen: list[Any] = []
    for item in value:
        if item in seen:
            raise _fail(where, f"{key} repeats {item!r}")
        seen.append(item)
    return list(value)


def _choices(value: Any, where: str, key: str, allowed: Sequence[str]) -> tuple[str, ...]:
    items = _list(value, where, key)
    bad = [v for v in items if v not in allowed]
    if bad:
        raise _fail(where, f"{key} has unknown value(s) {bad}; choose from {', '.join(allowed)}")
    return tuple(items)


def _int(value: Any, where: str, key: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"{key} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise _fail(where, f"{key} must be {bound}, got {value}")
    return value


def _ints(value: Any, where: str, key: str, low: int, high: int | None = None) -> tuple[int, ...]:
    return tuple(_int(v, where, key, low, high) for v in _list(value, where, key))


def _token_lengths(value: Any, where: str) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for v in _list(value, where, "token_lengths"):
        if v is None or v == "any":
            out.append(None)
        else:
            out.append(_int(v, where, "token_lengths", 1, 30))
    if len(set(out)) != len(out):
        raise _fail(where, "token_lengths repeats the unconstrained length")
    return tuple(out)


def _overlaps(value: Any, where: str) -> tuple[float | None, ...]:
    out: list[float | None] = []
    for v in _list(value, where, "overlaps"):
        if v is None or v == "none":
            out.append(None)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0:
            out.append(float(v))
        else:
            raise _fail(where, f"overlaps must be fractions in [0, 1] or \"none\", got {v!r}")
    if len(set(out)) != len(out):
        raise _fail(where, "overlaps repeats a value")
    return tuple(out)


def _study_from(table: Mapping[str, Any], index: int) -> Study:
    where = f"study #{index + 1}"
    _check_keys(table, _STUDY_KEYS, where)
    if "name" not in table or not isinstance(table["name"], str) or not table["name"].strip():
        raise _fail(where, "needs a non-empty string 'name'")
    name = table["name"]
    where = f"study {name!r}"
    if not all(c.isalnum() or c in "_-" for c in name):
        raise _fail(where, "name may only contain letters, digits, '_' and '-'")
    if "token_types" not in table:
        raise _fail(where, f"needs 'token_types' (from {', '.join(TOKEN_TYPES)})")
    token_types = _choices(table["token_types"], where, "token_types", TOKEN_TYPES)
    special = [t for t in token_types if t in ("deciles", "deceptive")]
    if special and len(token_types) > 1:
        raise _fail(where, f"token type {special[0]!r} has its own axes; give it a study of its own")
    kind = token_types[0] if special else "plain"
    values: dict[str, Any] = {"name": name, "token_types": token_types}
    if "operations" in table:
        values["operations"] = _choices(table["operations"], where, "operations", OPERATIONS)
    if "operand_sizes" in table:
        values["operand_sizes"] = _ints(table["operand_sizes"], where, "operand_sizes", 1, 64)
    if "k_shots" in table:
        values["k_shots"] = _ints(table["k_shots"], where, "k_shots", 0, MAX_K)
    if "methods" in table:
        values["methods"] = _choices(table["methods"], where, "methods", METHODS)
    if "phrasings" in table:
        values["phrasings"] = _choices(table["phrasings"], where, "phrasings", PHRASINGS)
    if "skip_infeasible" in table:
        if not isinstance(table["skip_infeasible"], bool):
            raise _fail(where, "skip_infeasible must be true or false, "
                               f"got {table['skip_infeasible']!r}")
        values["skip_infeasible"] = table["skip_infeasible"]

    def forbid(key: str, reason: str) -> None:
        if key in table:
            raise _fail(where, f"{key!r} does not apply here: {reason}")

    if kind == "deceptive":
        for key in ("token_lengths", "number_range", "overlaps", "deciles", "decile_scope"):
            forbid(key, "deceptive sets are WordNet hyponyms of any length, disjoint by design")
        if "deceptive_conditions" not in table:
            raise _fail(where, f"needs 'deceptive_conditions' (from {', '.join(DECEPTIVE_CONDITIONS)})")
        values["deceptive_conditions"] = _choices(table["deceptive_conditions"], where,
                                                  "deceptive_conditions", DECEPTIVE_CONDITIONS)
        values["token_lengths"] = (None,)
        return Study(**values)
    forbid("deceptive_conditions", "only deceptive studies have conditions")
    if "token_lengths" in table:
        values["token_lengths"] = _token_lengths(table["token_lengths"], where)
    if "overlaps" in table:
        values["overlaps"] = _overlaps(table["overlaps"], where)
    if kind == "deciles":
        forbid("number_range", "decile words are not numbers")
        if "deciles" not in table:
            raise _fail(where, "needs 'deciles' (from 1 to 10; the paper: 1 to 9)")
        values["deciles"] = _ints(table["deciles"], where, "deciles", 1, 10)
        if "token_lengths" not in table or None in values["token_lengths"]:
            raise _fail(where, "decile studies need explicit token_lengths (the paper: [3, 5])")
        if "decile_scope" in table:
            from lexbench.lexicon.words import DECILE_SCOPES

            if table["decile_scope"] not in DECILE_SCOPES:
                raise _fail(where, f"decile_scope must be one of {', '.join(DECILE_SCOPES)}")
            values["decile_scope"] = table["decile_scope"]
        return Study(**values)
    forbid("deciles", "only a 'deciles' study has deciles")
    forbid("decile_scope", "only a 'deciles' study has deciles")
    if "number_range" in table:
        if "numbers" not in token_types:
            raise _fail(where, "'number_range' applies only to numbers")
        values["number_range"] = _int(table["number_range"], where, "number_range", 2)
    return Study(**values)


def _decoding_from(table: Mapping[str, Any], where: str = "decoding") -> DecodingSpec:
    _check_keys(table, _DECODING_KEYS, where)
    values: dict[str, Any] = {}
    for key in ("temperature", "top_p"):
        if key in table:
            v = table[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise _fail(where, f"{key} must be a non-negative number, got {v!r}")
            values[key] = float(v)
    if "top_p" in values and not 0.0 < values["top_p"] <= 1.0:
        raise _fail(where, f"top_p must be in (0, 1], got {values['top_p']}")
    if "top_k" in table:
        values["top_k"] = _int(table["top_k"], where, "top_k", 0)
    for key in ("max_new_tokens", "reasoning_max_new_tokens"):
        if key in table:
            values[key] = _int(table[key], where, key, 1)
    if "stop" in table:
        stop = table["stop"]
        if not isinstance(stop, (list, tuple)) or not all(isinstance(s, str) and s for s in stop):
            raise _fail(where, f"stop must be a list of non-empty strings, got {stop!r}")
        values["stop"] = tuple(stop)
    if "seed" in table and table["seed"] is not None:
        values["seed"] = _int(table["seed"], where, "seed", 0)
    return DecodingSpec(**values)


def grid_from_mapping(data: Mapping[str, Any], source: str = "custom") -> Grid:
    """Validate a grid given as plain data (from TOML or a Python `GRID` dict)."""
    _check_keys(data, _GRID_KEYS, "file")
    studies_data = data.get("study")
    if studies_data is None:
        raise _fail("file", "has no [[study]] tables: an empty grid generates nothing")
    if not isinstance(studies_data, (list, tuple)) or not studies_data:
        raise _fail("file", "'study' must be a non-empty list of tables")
    studies = tuple(_study_from(t, i) for i, t in enumerate(studies_data))
    names = [s.name for s in studies]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise _fail("file", f"study names repeat: {repeated}")
    values: dict[str, Any] = {"studies": studies, "source": source}
    if "seed" in data:
        values["seed"] = _int(data["seed"], "file", "seed", 0)
    if "prompts_per_config" in data:
        values["prompts_per_config"] = _int(data["prompts_per_config"], "file",
                                            "prompts_per_config", 1, 100_000)
    if "decoding" in data:
        values["decoding"] = _decoding_from(data["decoding"])
    return Grid(**values)


def _run_python_grid(path: Path) -> Any:
    """Run a .py grid file and return its GRID. Whatever the file raises (a syntax error, an
    ImportError, anything) becomes one ValueError naming the file, so the command shows a
    clear line instead of a traceback or a misleading "missing dependency" hint."""
    try:
        namespace = runpy.run_path(str(path))
    except SystemExit as error:
        raise ValueError(f"grid file {path}: running it called exit({error.code!r})") from None
    except BaseException as error:  # noqa: BLE001 - reported in full, never swallowed
        if isinstance(error, KeyboardInterrupt):
            raise
        where = ""
        if isinstance(error, SyntaxError) and error.lineno:
            where = f" (line {error.lineno})"
        raise ValueError(f"grid file {path}: running it raised {type(error).__name__}{where}: "
                         f"{error}") from None
    if "GRID" not in namespace:
        raise ValueError(f"grid file {path}: a Python grid must define a dict named GRID")
    return namespace["GRID"]


def read_grid_file(path: str | Path) -> Grid:
    """A grid from a TOML file, or a Python file defining `GRID`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"grid file {path} not found (or use --grid "
                                f"{'|'.join(BUILTIN_GRIDS)})")
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"grid file {path}: not valid TOML ({error})") from None
    elif path.suffix == ".py":
        data = _run_python_grid(path)
    else:
        raise ValueError(f"grid file {path}: expected a .toml or .py file")
    try:
        return grid_from_mapping(data, source=str(path))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def builtin_grid(name: str) -> Grid:
    from lexbench.benchmarks.setlexsem_builtin import BUILTIN

    if name not in BUILTIN:
        raise ValueError(f"unknown grid {name!r}; use {', '.join(BUILTIN_GRIDS)} or a .toml/.py file")
    return grid_from_mapping(BUILTIN[name], source=name)


def grid_from_dict(data: Mapping[str, Any]) -> Grid:
    """The inverse of `Grid.to_dict()` (how a run's config.json records its grid)."""
    def tuples(table: Mapping[str, Any]) -> dict[str, Any]:
        return {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}

    try:
        grid = Grid(studies=tuple(Study(**tuples(s)) for s in data["studies"]),
                    seed=data["seed"], prompts_per_config=data["prompts_per_config"],
                    decoding=DecodingSpec(**tuples(data["decoding"])), source=data["source"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a recorded SetLexSem grid ({error!r})") from None
    if grid.to_dict() != dict(data):
        raise ValueError("not a recorded SetLexSem grid (it does not round-trip)")
    return grid


def resolve_grid(spec: str | Path | Grid | Mapping[str, Any]) -> Grid:
    """`paper`, `lexbench`, `small`, a Grid, a recorded grid (`Grid.to_dict()`), or a path
    to a grid file."""
    if isinstance(spec, Grid):
        return spec
    if isinstance(spec, Mapping):
        return grid_from_dict(spec)
    if str(spec) in BUILTIN_GRIDS:
        return builtin_grid(str(spec))
    path = Path(spec)
    if path.suffix not in (".toml", ".py"):
        raise ValueError(f"unknown grid {str(spec)!r}; use {', '.join(BUILTIN_GRIDS)} "
                         f"or a .toml/.py grid file")
    return read_grid_file(path)
