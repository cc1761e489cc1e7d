"""Options a command applies to every `api.run` it makes, for one loop step: another item
seed (a fresh set) or another wording. The benchmark commands build their `api.run` call
from their own options; the robustness loops (`lexbench.robustness.runs`) run that same
call once per set or wording with this override in force, so no command needs to know them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lexbench.benchmarks.base import BenchmarkSpec

Change = Callable[["BenchmarkSpec", Mapping[str, Any]], dict[str, Any]]

_ACTIVE: ContextVar[Change | None] = ContextVar("lexbench_run_override", default=None)
# Models opened by `api.run` during a loop, kept open for its next steps (one load for K
# sets instead of K + 1): model spec and options -> the open model.
_SHARED: ContextVar[dict[str, Any] | None] = ContextVar("lexbench_shared_models", default=None)


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


@contextlib.contextmanager
def sharing_models() -> Iterator[None]:
    """Within the block, a model `api.run` opens from a spec stays open for the next
    `api.run` with the same spec and options; all are closed when the block ends."""
    if _SHARED.get() is not None:  # already inside a loop: its pool serves
        yield
        return
    with contextlib.ExitStack() as stack:
        token = _SHARED.set({"stack": stack, "models": {}})
        try:
            yield
        finally:
            _SHARED.reset(token)


@contextlib.contextmanager
def open_run_model(model: Any, options: Mapping[str, Any] | None) -> Iterator[Any]:
    """`open_model(model, options)`, or the loop's already open model of that spec."""
    from lexbench.models.registry import open_model

    shared = _SHARED.get()
    if shared is None or not isinstance(model, str):
        with open_model(model, options) as opened:
            yield opened
        return
    key = json.dumps([model, dict(options or {})], sort_keys=True, default=str)
    if key not in shared["models"]:
        shared["models"][key] = shared["stack"].enter_context(open_model(model, options))
    yield shared["models"][key]
