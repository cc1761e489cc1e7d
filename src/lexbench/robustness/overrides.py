"""Options a command applies to every `api.run` it makes, for one loop step: another item
seed (a fresh set) or another wording. The benchmark commands build their `api.run` call
from their own options; the robustness loops (`lexbench.robustness.runs`) run that same
call once per set or wording with this override in force, so no command needs to know them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lexbench.benchmarks.base import BenchmarkSpec

Change = Callable[["BenchmarkSpec", Mapping[str, Any]], dict[str, Any]]

_ACTIVE: ContextVar[Change | None] = ContextVar("lexbench_run_override", default=None)


@contextlib.contextmanager
def overriding(change: Change) -> Iterator[None]:
    """Within the block, `api.run` passes its builder options through `change`."""
    token = _ACTIVE.set(change)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def apply_override(spec: BenchmarkSpec, options: Mapping[str, Any]) -> dict[str, Any]:
    change = _ACTIVE.get()
    return dict(options) if change is None else change(spec, options)
