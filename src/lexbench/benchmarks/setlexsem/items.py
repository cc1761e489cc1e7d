"""SetLexSem items and their deterministic generation.

For each set configuration (token type, operand size, token length, number range, overlap,
decile, deceptive condition) a `random.Random` seeded with a string naming it draws the test
pairs, and a second stream draws the demonstrations. So A and B are the same across
operations, k, methods and phrasings (and across studies), and the demonstrations for k = 1
are the first of those for k = 3 and k = 5 (the paper fixes its demonstrations the same
way). A configuration that appears in two studies is generated once; its row lists both.

Generation is planned before anything is written: every cell's sets and demonstrations are
drawn first, so an impossible cell is reported (grid, study and cell named) before the
output file exists, and a study with `skip_infeasible` lists the cells it leaves out.
Writing, reading and selecting item files is `setlexsem_files`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lexbench.benchmarks.setlexsem.sets import (
    Member,
    SetPair,
)
from lexbench.types import Decoding

# Fields that name a configuration (every hyperparameter but the prompt index).
CONFIG_FIELDS = (
    "config_id",
    "token_type",
    "operation",
    "m",
    "token_length",
    "number_range",
    "overlap",
    "decile",
    "decile_scope",
    "deceptive_condition",
    "k",
    "method",
    "phrasing",
)


@dataclass(frozen=True)
class SetLexSemItem:
    """One prompt with every hyperparameter that made it."""

    id: str
    config_id: str
    studies: tuple[str, ...]
    token_type: str
    operation: str
    m: int
    token_length: int | None
    number_range: int | None
    overlap: float | None
    decile: int | None
    decile_scope: str | None
    deceptive_condition: str | None
    k: int
    method: str
    phrasing: str
    prompt_index: int
    seed: int
    set_a: tuple[Member, ...]
    set_b: tuple[Member, ...]
    answer: tuple[Member, ...]  # sorted ground truth
    demonstrations: tuple[SetPair, ...]
    hypernym_a: str | None
    hypernym_b: str | None
    swapped: int
    decoding: Mapping[str, Any]
    prompt: str

    @property
    def answer_size(self) -> int:
        return len(self.answer)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "config_id": self.config_id,
            "studies": list(self.studies),
            "token_type": self.token_type,
            "operation": self.operation,
            "m": self.m,
            "token_length": self.token_length,
            "number_range": self.number_range,
            "overlap": self.overlap,
            "decile": self.decile,
            "decile_scope": self.decile_scope,
            "deceptive_condition": self.deceptive_condition,
            "k": self.k,
            "method": self.method,
            "phrasing": self.phrasing,
            "prompt_index": self.prompt_index,
            "seed": self.seed,
            "set_a": list(self.set_a),
            "set_b": list(self.set_b),
            "answer": list(self.answer),
            "answer_size": self.answer_size,
            "demonstrations": [[list(a), list(b)] for a, b in self.demonstrations],
            "hypernym_a": self.hypernym_a,
            "hypernym_b": self.hypernym_b,
            "swapped": self.swapped,
            "decoding": dict(self.decoding),
            "prompt": self.prompt,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> SetLexSemItem:
        # The same conversions a keyword `cls(...)` call would be given, set straight into
        # the instance: the frozen dataclass's `__init__` (27 guarded `__setattr__` calls)
        # was a third of reading a line. Repeated texts are interned: a configuration's
        # 50 prompts share one config_id, one studies tuple, one operation name.
        try:
            fields = {
                "id": str(row["id"]),
                "config_id": _intern(str(row["config_id"])),
                "studies": _shared_studies(tuple(row["studies"])),
                "token_type": _intern(str(row["token_type"])),
                "operation": _intern(str(row["operation"])),
                "m": int(row["m"]),
                "token_length": row["token_length"],
                "number_range": row["number_range"],
                "overlap": row["overlap"],
                "decile": row["decile"],
                "decile_scope": row["decile_scope"],
                "deceptive_condition": row["deceptive_condition"],
                "k": int(row["k"]),
                "method": _intern(str(row["method"])),
                "phrasing": _intern(str(row["phrasing"])),
                "prompt_index": int(row["prompt_index"]),
                "seed": int(row["seed"]),
                "set_a": tuple(row["set_a"]),
                "set_b": tuple(row["set_b"]),
                "answer": tuple(row["answer"]),
                "demonstrations": tuple([(tuple(a), tuple(b)) for a, b in row["demonstrations"]]),
                "hypernym_a": row.get("hypernym_a"),
                "hypernym_b": row.get("hypernym_b"),
                "swapped": int(row.get("swapped", 0)),
                "decoding": _shared_decoding(row["decoding"]),
                "prompt": str(row["prompt"]),
            }
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"not a SetLexSem item row ({error!r}): {dict(row)!r:.200}") from None
        item = object.__new__(cls)
        object.__setattr__(item, "__dict__", fields)
        return item

    def json_fields(self) -> dict[str, Any]:
        """`to_dict()` with tuples left as tuples, for encoding only: JSON writes a tuple
        as it writes a list, so the bytes are the same without the list copies."""
        return {
            "id": self.id,
            "config_id": self.config_id,
            "studies": self.studies,
            "token_type": self.token_type,
            "operation": self.operation,
            "m": self.m,
            "token_length": self.token_length,
            "number_range": self.number_range,
            "overlap": self.overlap,
            "decile": self.decile,
            "decile_scope": self.decile_scope,
            "deceptive_condition": self.deceptive_condition,
            "k": self.k,
            "method": self.method,
            "phrasing": self.phrasing,
            "prompt_index": self.prompt_index,
            "seed": self.seed,
            "set_a": self.set_a,
            "set_b": self.set_b,
            "answer": self.answer,
            "answer_size": len(self.answer),
            "demonstrations": self.demonstrations,
            "hypernym_a": self.hypernym_a,
            "hypernym_b": self.hypernym_b,
            "swapped": self.swapped,
            # A plain dict as it is (JSON cannot encode other mappings: those are copied).
            "decoding": self.decoding if type(self.decoding) is dict else dict(self.decoding),
            "prompt": self.prompt,
        }

    def request_decoding(self) -> Decoding:
        # A shared decoding dict (an item read from a file) has its `Decoding` made once;
        # the dict outlives the process's items, so its id names it alone.
        shared = _request_decodings.get(id(self.decoding))
        if shared is not None and shared[0] is self.decoding:
            return shared[1]
        values = dict(self.decoding)
        values["stop"] = tuple(values.get("stop", ()))
        return Decoding(**values)


# Bounded: a grid has a few hundred distinct texts of each kind; an adversarial file with
# more simply stops being interned (the values stay right, only less shared).
_INTERN_LIMIT = 100_000
_interned: dict[Any, Any] = {}


def _intern(text: str) -> str:
    shared = _interned.get(text)
    if shared is not None:
        return shared
    if len(_interned) < _INTERN_LIMIT:
        _interned[text] = text
    return text


def _shared_decoding(decoding: Any) -> dict[str, Any]:
    """A copy of `decoding`, one per distinct setting (a grid has a few): 300 bytes and two
    objects for the garbage collector to walk, less per item. Keyed by `repr`, which tells
    0 from 0.0 and -0.0 from 0.0; a NaN (never equal to itself) is not shared."""
    if type(decoding) is not dict:
        return dict(decoding)
    key = repr(decoding)
    shared = _decodings.get(key)
    if shared is not None and shared == decoding:
        return shared
    copy = dict(decoding)
    if len(_decodings) < _INTERN_LIMIT and "nan" not in key:
        _decodings[key] = copy
        try:
            values = {**copy, "stop": tuple(copy.get("stop", ()))}
            _request_decodings[id(copy)] = (copy, Decoding(**values))
        except (TypeError, ValueError):  # not a decoding a request can have: said when asked
            pass
    return copy


# Never emptied, so no other object can take the id of a dict they hold.
_decodings: dict[str, dict[str, Any]] = {}
_request_decodings: dict[int, tuple[dict[str, Any], Decoding]] = {}


def _shared_studies(studies: tuple[Any, ...]) -> tuple[Any, ...]:
    # Only tuples of text: a tuple holding 1 and one holding 1.0 are equal but not alike.
    if all(type(s) is str for s in studies):
        shared = _interned.get(studies)
        if shared is not None:
            return shared
        if len(_interned) < _INTERN_LIMIT:
            _interned[studies] = studies
    return studies


# ------------------------------------------------------------------------------ configurations


def length_label(length: int | None) -> str:
    return "any" if length is None else str(length)


def set_key(config: Mapping[str, Any]) -> str:
    """Names a set-drawing configuration. `swapped` shares the `not_swapped` stream so the two
    deceptive conditions are paired (same hypernyms, same members before the swap)."""
    condition = config["deceptive_condition"]
    stream = {"not_swapped": "hyponyms", "swapped": "hyponyms"}.get(condition, condition)
    return (
        f"{config['token_type']}|L={length_label(config['token_length'])}"
        f"|n={config['number_range']}|decile={config['decile']}|scope={config['decile_scope']}"
        f"|overlap={config['overlap']}|deceptive={stream}|m={config['m']}"
    )


def config_id(set_config: Mapping[str, Any], prompt_config: Mapping[str, Any]) -> str:
    """A readable id, e.g. `numbers/L3/m4/union/k1/baseline/formal`."""
    parts = [set_config["token_type"]]
    if set_config["token_type"] == "deceptive":
        parts.append(set_config["deceptive_condition"])
    else:
        parts.append(f"L{length_label(set_config['token_length'])}")
    if set_config["number_range"] is not None:
        parts.append(f"n{set_config['number_range']}")
    if set_config["decile"] is not None:
        scope = {
            "length": "",
            "global": "g",
            "global_equal_count": "ge",
            "global_books_scale": "gb",
        }
        parts.append(f"d{set_config['decile']}{scope[set_config['decile_scope']]}")
    if set_config["overlap"] is not None:
        parts.append(f"ov{set_config['overlap']:g}")
    parts += [
        f"m{set_config['m']}",
        prompt_config["operation"],
        f"k{prompt_config['k']}",
        prompt_config["method"],
        prompt_config["phrasing"],
    ]
    return "/".join(parts)
