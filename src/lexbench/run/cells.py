"""One cell of a run plan, as `api.run` sees it: the change a plan step makes to the builder
options (another item seed, another wording) and the pool of models the plan keeps open.

A plan (`lexbench.robustness.plan`: models x wordings x item sets) runs a command's own
`api.run` call once per cell with that cell in force here; `api.run` reads it and nothing
else of the plan. This module sits below `api` and knows no planner, so the walk from a
command to `run.evaluate` goes down only.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from lexbench.wordings import PAPER, Declares, apply_variant

#: A step's change: (benchmark entry, the builder options the command gave) -> the options
#: this cell runs with.
Change = Callable[[Any, Mapping[str, Any]], dict[str, Any]]

_ACTIVE: ContextVar[Change | None] = ContextVar("lexbench_run_cell", default=None)
# Models opened by `api.run` within a plan, kept open for its next cells (one load for K
# sets instead of K + 1): model spec and options -> the open model.
_SHARED: ContextVar[dict[str, Any] | None] = ContextVar("lexbench_shared_models", default=None)


@contextlib.contextmanager
def in_cell(change: Change) -> Iterator[None]:
    """Within the block, `api.run` passes its builder options through `change`."""
    token = _ACTIVE.set(change)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def cell_options(spec: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The builder options of the cell in force (the options as given outside a plan)."""
    change = _ACTIVE.get()
    return dict(options) if change is None else change(spec, options)


@contextlib.contextmanager
def sharing_models() -> Iterator[None]:
    """Within the block, a model `api.run` opens from a spec stays open for the next
    `api.run` with the same spec and options; all are closed when the block ends."""
    if _SHARED.get() is not None:  # already inside a plan: its pool serves
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
    """`open_model(model, options)`, or the plan's already open model of that spec."""
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


def with_cell_wording(spec: Declares, built: Any) -> Any:
    """`built` in the wording the cell in force asks for: for a command that builds its
    benchmark itself instead of calling `api.run` (E-KAR's)."""
    requested = cell_options(spec, {}).get("prompt_variant") or PAPER
    return apply_variant(spec, built, str(requested))
