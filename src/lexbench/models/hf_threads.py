"""torch's CPU threads, set so that they hold up when other processes share the cores.

torch's CPU wheels run their parallel regions on GNU OpenMP (libgomp). Unless told
otherwise, an idle libgomp thread spins for about 3 ms before it sleeps, at the end of
every region and while it waits for the next. A decoding step of a small model is
hundreds of short regions, so a process with 2 threads keeps both cores busy spinning
between them; when other processes want the cores, each spin is stolen from them and
from the thread this one waits for. Measured with `measurements/performance/thread_contention.py`
(docs/performance.md, "Threads beside other processes"; 2 cores): on a quiet machine the
passive wait costs what the spin does, and beside a busy neighbour the spin doubles the CPU
per item of LAMBDA on SmolLM2 (2.08 times its cost alone) while the passive wait's stays put
(0.92 times) at half the wall time; on a machine already at load 7-11 the spin cost 5.5
times the passive wait's CPU. One thread saved little CPU and cost wall time, so the count
is left at the cores there are.

So, before torch is first imported, and only for what the user has not set:

* the wait policy is passive (`OMP_WAIT_POLICY=PASSIVE`; `KMP_BLOCKTIME=0` for a torch
  built on Intel's OpenMP): a waiting thread sleeps at once. Any of `OMP_WAIT_POLICY`,
  `GOMP_SPINCOUNT` or `KMP_BLOCKTIME` set by the user means they chose, and none is set.
* torch gets as many threads as cores this process may run on: its CPU affinity
  (`os.sched_getaffinity`: `taskset`, a container's cpuset), capped by a cgroup CPU quota
  (`docker --cpus`), not the machine's count. `--threads N` wins, and so do
  `OMP_NUM_THREADS` and `MKL_NUM_THREADS` (torch reads those itself).

The variables are set in `os.environ`, so a tool lexbench starts (lm-eval, inspect) waits
passively too. When torch was imported before lexbench's first model (by the caller's own
code), libgomp has read its settings already; only the thread count applies then.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

#: Set by the user, any of these is their choice of how waiting threads behave.
WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")
#: What lexbench sets when the user set none of them.
PASSIVE_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "KMP_BLOCKTIME": "0"}
#: Thread counts torch takes from the environment itself.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def cgroup_cpu_limit(root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The cores a cgroup v2 CPU quota allows (`cpu.max`: "200000 100000" is 2), rounded
    up; None when there is no quota ("max") or no such file.

    >>> cgroup_cpu_limit(Path("/nonexistent")) is None
    True
    """
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    try:
        return max(1, math.ceil(int(quota) / int(period)))
    except (ValueError, ZeroDivisionError):
        return None


def available_cores(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """Cores this process may run on: its CPU affinity, capped by a cgroup CPU quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    limit = cgroup_cpu_limit(cgroup)
    return max(1, min(cores, limit) if limit else cores)


def quiet_waits(environ: MutableMapping[str, str] = os.environ) -> dict[str, str]:
    """Set the passive wait policy in `environ` where the user chose none; what was set.

    >>> quiet_waits({})
    {'OMP_WAIT_POLICY': 'PASSIVE', 'KMP_BLOCKTIME': '0'}
    >>> quiet_waits({"GOMP_SPINCOUNT": "300000"})   # the user's choice stands
    {}
    """
    if any(name in environ for name in WAIT_VARIABLES):
        return {}
    environ.update(PASSIVE_WAIT)
    return dict(PASSIVE_WAIT)


def thread_count(
    requested: int | None, environ: MutableMapping[str, str] = os.environ
) -> int | None:
    """The threads lexbench gives torch: `requested` (`--threads`) when given; None (torch's
    own choice) when the user set OMP_NUM_THREADS or MKL_NUM_THREADS; else the cores there
    are (`available_cores`).

    >>> thread_count(3), thread_count(None, {"OMP_NUM_THREADS": "1"})
    (3, None)
    """
    if requested:
        return requested
    if any(environ.get(name) for name in THREAD_VARIABLES):
        return None
    return available_cores()


def prepare_torch(threads: int | None = None) -> Any:
    """torch, imported with the passive wait policy (when this is its first import) and
    `thread_count(threads)` threads; returns the module."""
    if "torch" not in sys.modules:
        quiet_waits()
    import torch

    count = thread_count(threads)
    if count is not None and torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return torch
