"""Reading SetLexSem grids: from a mapping (TOML or a Python file's `GRID`) with every key
and value checked, from a file, or by the name of a built-in grid (`resolve_grid`).

An unknown key, an empty list, a repeated value, or an axis that does not apply to the
study's token type is an error naming the problem (see `lexbench.benchmarks.setlexsem.grid`
for the format)."""

from __future__ import annotations

import runpy
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexbench.benchmarks.setlexsem.grid import (
    BUILTIN_GRIDS,
    MAX_K,
    DecodingSpec,
    Grid,
    Study,
    decoding_from,
)
from lexbench.benchmarks.setlexsem.grid_values import (
    check_keys,
    choices,
    fail,
    int_value,
    ints,
    list_value,
)
from lexbench.benchmarks.setlexsem.prompts import METHODS, PHRASINGS
from lexbench.benchmarks.setlexsem.sets import DECEPTIVE_CONDITIONS, OPERATIONS, TOKEN_TYPES

_STUDY_KEYS = (
    "name",
    "token_types",
    "operations",
    "operand_sizes",
    "token_lengths",
    "number_range",
    "overlaps",
    "deciles",
    "decile_scope",
    "deceptive_conditions",
    "k_shots",
    "methods",
    "phrasings",
    "skip_infeasible",
)


_GRID_KEYS = ("seed", "prompts_per_config", "decoding", "study")


def _token_lengths(value: Any, where: str) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for v in list_value(value, where, "token_lengths"):
        if v is None or v == "any":
            out.append(None)
        else:
            out.append(int_value(v, where, "token_lengths", 1, 30))
    if len(set(out)) != len(out):
        raise fail(where, "token_lengths repeats the unconstrained length")
    return tuple(out)


def _overlaps(value: Any, where: str) -> tuple[float | None, ...]:
    out: list[float | None] = []
    for v in list_value(value, where, "overlaps"):
        if v is None or v == "none":
            out.append(None)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0:
            out.append(float(v))
        else:
            raise fail(where, f'overlaps must be fractions in [0, 1] or "none", got {v!r}')
    if len(set(out)) != len(out):
        raise fail(where, "overlaps repeats a value")
    return tuple(out)


def _study_from(table: Mapping[str, Any], index: int) -> Study:
    where = f"study #{index + 1}"
    check_keys(table, _STUDY_KEYS, where)
    if "name" not in table or not isinstance(table["name"], str) or not table["name"].strip():
        raise fail(where, "needs a non-empty string 'name'")
    name = table["name"]
    where = f"study {name!r}"
    if not all(c.isalnum() or c in "_-" for c in name):
        raise fail(where, "name may only contain letters, digits, '_' and '-'")
    if "token_types" not in table:
        raise fail(where, f"needs 'token_types' (from {', '.join(TOKEN_TYPES)})")
    token_types = choices(table["token_types"], where, "token_types", TOKEN_TYPES)
    special = [t for t in token_types if t in ("deciles", "deceptive")]
    if special and len(token_types) > 1:
        raise fail(where, f"token type {special[0]!r} has its own axes; give it a study of its own")
    kind = token_types[0] if special else "plain"
    values: dict[str, Any] = {"name": name, "token_types": token_types}
    if "operations" in table:
        values["operations"] = choices(table["operations"], where, "operations", OPERATIONS)
    if "operand_sizes" in table:
        values["operand_sizes"] = ints(table["operand_sizes"], where, "operand_sizes", 1, 64)
    if "k_shots" in table:
        values["k_shots"] = ints(table["k_shots"], where, "k_shots", 0, MAX_K)
    if "methods" in table:
        values["methods"] = choices(table["methods"], where, "methods", METHODS)
    if "phrasings" in table:
        values["phrasings"] = choices(table["phrasings"], where, "phrasings", PHRASINGS)
    if "skip_infeasible" in table:
        if not isinstance(table["skip_infeasible"], bool):
            raise fail(
                where, f"skip_infeasible must be true or false, got {table['skip_infeasible']!r}"
            )
        values["skip_infeasible"] = table["skip_infeasible"]

    def forbid(key: str, reason: str) -> None:
        if key in table:
            raise fail(where, f"{key!r} does not apply here: {reason}")

    if kind == "deceptive":
        for key in ("token_lengths", "number_range", "overlaps", "deciles", "decile_scope"):
            forbid(key, "deceptive sets are WordNet hyponyms of any length, disjoint by design")
        if "deceptive_conditions" not in table:
            raise fail(
                where, f"needs 'deceptive_conditions' (from {', '.join(DECEPTIVE_CONDITIONS)})"
            )
        values["deceptive_conditions"] = choices(
            table["deceptive_conditions"], where, "deceptive_conditions", DECEPTIVE_CONDITIONS
        )
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
            raise fail(where, "needs 'deciles' (from 1 to 10; the paper: 1 to 9)")
        values["deciles"] = ints(table["deciles"], where, "deciles", 1, 10)
        if "token_lengths" not in table or None in values["token_lengths"]:
            raise fail(where, "decile studies need explicit token_lengths (the paper: [3, 5])")
        if "decile_scope" in table:
            from lexbench.benchmarks.setlexsem.deciles import DECILE_SCOPES

            if table["decile_scope"] not in DECILE_SCOPES:
                raise fail(where, f"decile_scope must be one of {', '.join(DECILE_SCOPES)}")
            values["decile_scope"] = table["decile_scope"]
        return Study(**values)
    forbid("deciles", "only a 'deciles' study has deciles")
    forbid("decile_scope", "only a 'deciles' study has deciles")
    if "number_range" in table:
        if "numbers" not in token_types:
            raise fail(where, "'number_range' applies only to numbers")
        values["number_range"] = int_value(table["number_range"], where, "number_range", 2)
    return Study(**values)


def grid_from_mapping(data: Mapping[str, Any], source: str = "custom") -> Grid:
    """Validate a grid given as plain data (from TOML or a Python `GRID` dict)."""
    check_keys(data, _GRID_KEYS, "file")
    studies_data = data.get("study")
    if studies_data is None:
        raise fail("file", "has no [[study]] tables: an empty grid generates nothing")
    if not isinstance(studies_data, (list, tuple)) or not studies_data:
        raise fail("file", "'study' must be a non-empty list of tables")
    studies = tuple(_study_from(t, i) for i, t in enumerate(studies_data))
    names = [s.name for s in studies]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise fail("file", f"study names repeat: {repeated}")
    values: dict[str, Any] = {"studies": studies, "source": source}
    if "seed" in data:
        values["seed"] = int_value(data["seed"], "file", "seed", 0)
    if "prompts_per_config" in data:
        values["prompts_per_config"] = int_value(
            data["prompts_per_config"], "file", "prompts_per_config", 1, 100_000
        )
    if "decoding" in data:
        values["decoding"] = decoding_from(data["decoding"])
    return Grid(**values)


def _run_python_grid(path: Path) -> Any:
    """Run a .py grid file and return its GRID. Whatever the file raises (a syntax error, an
    ImportError, anything) becomes one ValueError naming the file, so the command shows a
    clear line instead of a traceback or a misleading "missing dependency" hint."""
    try:
        namespace = runpy.run_path(str(path))
    except SystemExit as error:
        raise ValueError(f"grid file {path}: running it called exit({error.code!r})") from None
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        where = ""
        if isinstance(error, SyntaxError) and error.lineno:
            where = f" (line {error.lineno})"
        raise ValueError(
            f"grid file {path}: running it raised {type(error).__name__}{where}: {error}"
        ) from None
    if "GRID" not in namespace:
        raise ValueError(f"grid file {path}: a Python grid must define a dict named GRID")
    return namespace["GRID"]


def read_grid_file(path: str | Path) -> Grid:
    """A grid from a TOML file, or a Python file defining `GRID`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"grid file {path} not found (or use --grid {'|'.join(BUILTIN_GRIDS)})"
        )
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
    from lexbench.benchmarks.setlexsem.builtin import BUILTIN

    if name not in BUILTIN:
        raise ValueError(
            f"unknown grid {name!r}; use {', '.join(BUILTIN_GRIDS)} or a .toml/.py file"
        )
    return grid_from_mapping(BUILTIN[name], source=name)


def grid_from_dict(data: Mapping[str, Any]) -> Grid:
    """The inverse of `Grid.to_dict()` (how a run's config.json records its grid)."""

    def tuples(table: Mapping[str, Any]) -> dict[str, Any]:
        return {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}

    try:
        grid = Grid(
            studies=tuple(Study(**tuples(s)) for s in data["studies"]),
            seed=data["seed"],
            prompts_per_config=data["prompts_per_config"],
            decoding=DecodingSpec(**tuples(data["decoding"])),
            source=data["source"],
        )
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
        raise ValueError(
            f"unknown grid {str(spec)!r}; use {', '.join(BUILTIN_GRIDS)} or a .toml/.py grid file"
        )
    return read_grid_file(path)
