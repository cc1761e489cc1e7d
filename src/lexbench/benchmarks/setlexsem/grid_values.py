"""Checks for the values of a SetLexSem grid, each failing with a message that names the
place (`study 2 (main)`) and the problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def fail(where: str, message: str) -> ValueError:
    return ValueError(f"grid {where}: {message}")


def check_keys(table: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    if not isinstance(table, Mapping):
        raise fail(where, f"expected a table, got {type(table).__name__}")
    unknown = sorted(set(map(str, table)) - set(allowed))
    if unknown:
        raise fail(
            where, f"unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}"
        )


def list_value(value: Any, where: str, key: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise fail(where, f"{key} must be a list, got {value!r}")
    if not value:
        raise fail(where, f"{key} is empty (an empty axis would silently generate nothing)")
    seen: list[Any] = []
    for item in value:
        if item in seen:
            raise fail(where, f"{key} repeats {item!r}")
        seen.append(item)
    return list(value)


def choices(value: Any, where: str, key: str, allowed: Sequence[str]) -> tuple[str, ...]:
    items = list_value(value, where, key)
    bad = [v for v in items if v not in allowed]
    if bad:
        raise fail(where, f"{key} has unknown value(s) {bad}; choose from {', '.join(allowed)}")
    return tuple(items)


def int_value(value: Any, where: str, key: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(where, f"{key} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise fail(where, f"{key} must be {bound}, got {value}")
    return value


def ints(value: Any, where: str, key: str, low: int, high: int | None = None) -> tuple[int, ...]:
    return tuple(int_value(v, where, key, low, high) for v in list_value(value, where, key))
