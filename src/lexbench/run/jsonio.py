"""Strict JSON for run folders: NaN and infinities become `null` (listed under
`"non_finite"` in object files so lexbench's own readers get the numbers back), and a lone
surrogate is written as its `\\udcff` escape (see `lexbench.run.files`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def encode_text(text: str) -> bytes:
    """UTF-8, with a lone surrogate written as `\\udcff`: inside a JSON string that is the
    escape JSON readers turn back into the same character; in Markdown it stays visible."""
    return text.encode("utf-8", "backslashreplace")


NON_FINITE_KEY = "non_finite"


def _pointer_token(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def strict_json_value(value: Any, found: dict[str, str] | None = None, pointer: str = "") -> Any:
    """`value` as plain JSON data: NaN and +-inf -> None (recorded in `found` by JSON
    pointer when given); tuples and sets -> lists; objects with `to_dict`, paths and numpy
    scalars/arrays -> their plain form."""
    return _plain(value, found, (pointer,))


# A value's place as a chain (parent place, key): the pointer text is made only for the
# rare non-finite number, not for every value of a results file of 10^5 numbers.
Place = tuple[Any, ...]


def _pointer(place: Place) -> str:
    tokens: list[str] = []
    while len(place) == 2:
        place, key = place
        tokens.append(_pointer_token(key))
    return place[0] + "".join(f"/{token}" for token in reversed(tokens))


def _plain(value: Any, found: dict[str, str] | None, place: Place) -> Any:
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        if found is not None:
            found[_pointer(place)] = (
                "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
            )
        return None
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, Mapping):
        return {key: _plain(item, found, (place, key)) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(item, found, (place, index)) for index, item in enumerate(value)]
    if hasattr(value, "to_dict"):
        return _plain(value.to_dict(), found, place)
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _plain(value.tolist(), found, place)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def dumps_strict(value: Any, *, mark_non_finite: bool = False, **options: Any) -> str:
    """json.dumps that never writes NaN/Infinity: they become null, and with
    `mark_non_finite` an object also lists them under "non_finite" (see the module doc)."""
    try:  # the fast path: plain data with finite numbers
        return json.dumps(value, allow_nan=False, default=json_default, **options)
    except ValueError:
        found: dict[str, str] = {}
        plain = strict_json_value(value, found)
        if mark_non_finite and found and isinstance(plain, dict):
            plain[NON_FINITE_KEY] = found
        return json.dumps(plain, allow_nan=False, **options)


def restore_non_finite(value: Any) -> Any:
    """The inverse of `mark_non_finite`: the numbers listed under "non_finite" put back."""
    if not isinstance(value, dict) or not isinstance(value.get(NON_FINITE_KEY), dict):
        return value
    for pointer, kind in value.pop(NON_FINITE_KEY).items():
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in str(pointer).split("/")[1:]]
        target: Any = value
        try:
            for token in tokens[:-1]:
                target = target[int(token)] if isinstance(target, list) else target[token]
            last = tokens[-1]
            if isinstance(target, list):
                target[int(last)] = float(kind)
            elif last in target:
                target[last] = float(kind)
        except (KeyError, IndexError, ValueError, TypeError):
            raise ValueError(f"the non_finite entry {pointer!r} names no value") from None
    return value


def json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")
