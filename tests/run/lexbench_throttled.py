"""`lexbench` as typed, with the model's real work slowed down: a busy machine on demand.

    python tests/run/lexbench_throttled.py FACTOR run setlexsem --model smollm2-135m ...

Every transformer block's forward pass runs as always, then its thread sleeps FACTOR - 1
times as long as the pass took, so each pass takes FACTOR times its time: what a model gets
on a machine where it has 1/FACTOR of a core (the issue's SetLexSem quick check sat silent
for 18 minutes at load 4-35). Nothing else is touched: the answers, the progress the model
reports (per block, per token) and lexbench's own work are the real ones, only later.

The hooks are torch's global module hooks, installed right after lexbench first imports
torch (`hf_threads.prepare_torch`, wrapped here before lexbench's modules import it).
"""

from __future__ import annotations

import sys
import time
from typing import Any

BLOCK_SUFFIXES = ("DecoderLayer", "EncoderLayer", "Block")


def install(torch: Any, factor: float) -> None:
    started: dict[int, float] = {}

    def before(module: Any, inputs: Any) -> None:
        if type(module).__name__.endswith(BLOCK_SUFFIXES):
            started[id(module)] = time.perf_counter()

    def after(module: Any, inputs: Any, output: Any) -> None:
        began = started.pop(id(module), None)
        if began is not None:
            time.sleep((factor - 1.0) * (time.perf_counter() - began))

    torch.nn.modules.module.register_module_forward_pre_hook(before)
    torch.nn.modules.module.register_module_forward_hook(after)


def main() -> int:
    factor = float(sys.argv[1])
    import lexbench.models.hf_threads as hf_threads

    prepare = hf_threads.prepare_torch
    installed: list[bool] = []

    def prepare_and_throttle(threads: int | None = None) -> Any:
        torch = prepare(threads)
        if not installed:
            install(torch, factor)
            installed.append(True)
        return torch

    hf_threads.prepare_torch = prepare_and_throttle  # type: ignore[assignment]
    from lexbench.cli import main as lexbench

    sys.argv = ["lexbench", *sys.argv[2:]]  # a process of its own, as the command is
    return lexbench()


if __name__ == "__main__":
    sys.exit(main())
