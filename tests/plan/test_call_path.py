"""The call path of `lexbench run lambda --model A,B` goes down the layers only: traced with
`sys.setprofile`, no function of a shared layer calls into a layer above it (the command
line, the commands, the planner, `api`, the runner: in that order). Calls into the
benchmark itself (its options, its builder, its items and scores) are calls to a plugin
through the contract, which every layer may make; they are not counted as climbs, but
nothing they call may climb either."""

from __future__ import annotations

import sys

import pytest

from lexbench.cli import main

#: The shared layers of the run path, top to bottom.
LAYERS = (
    ("lexbench.cli",),
    ("lexbench.commands",),
    ("lexbench.plan",),
    ("lexbench.api",),
    ("lexbench.run", "lexbench.models", "lexbench.report", "lexbench.robustness"),
)


def layer(module: str) -> int | None:
    for depth, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return depth
    return None


def test_the_run_path_only_goes_down(tmp_path, monkeypatch, scripted_backend):
    monkeypatch.chdir(tmp_path)
    climbs: list[str] = []
    entered: list[str] = []

    def profile(frame, event, arg):
        if event != "call":
            return
        callee = frame.f_globals.get("__name__", "")
        caller_frame = frame.f_back
        caller = caller_frame.f_globals.get("__name__", "") if caller_frame else ""
        to, from_ = layer(callee), layer(caller)
        if to is None:
            return
        if not entered or entered[-1] != callee:
            entered.append(callee)
        if from_ is not None and to < from_:
            climbs.append(
                f"{caller}.{caller_frame.f_code.co_name} -> {callee}.{frame.f_code.co_name}"
            )

    argv = ["run", "lambda", "--model", "scripted:a,scripted:b", "--limit", "1"]
    argv += ["--no-progress", "--no-cache"]
    sys.setprofile(profile)
    try:
        status = main(argv)
    finally:
        sys.setprofile(None)
    assert status == 0
    assert not climbs, "calls up the layers: " + "; ".join(sorted(set(climbs)))
    firsts = list(dict.fromkeys(m.split(".")[1] for m in entered if m.count(".") >= 1))
    order = [firsts.index(name) for name in ("cli", "commands", "plan", "api")]
    assert order == sorted(order), firsts  # first entered in the order of the layers
    assert "lexbench.run.evaluate" in entered


@pytest.mark.parametrize("module", ["lexbench.plan", "lexbench.api"])
def test_the_planner_and_api_import_no_command(module):
    from test_structure import import_graph

    above = [
        t for t in import_graph()[module] if t.startswith(("lexbench.commands", "lexbench.cli"))
    ]
    assert not above, f"{module} imports {above}"
