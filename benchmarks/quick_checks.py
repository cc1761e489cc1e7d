"""Time every quick check the documentation gives, on the packaged SmolLM2-135M, from empty
caches, and print a Markdown table (the figures in docs/performance.md come from here).

    python benchmarks/quick_checks.py                 # every check
    python benchmarks/quick_checks.py --only all      # one of them

LEXBENCH_CACHE points to a new temporary folder, so the first step pays lexbench's one-time
setup (the packaged model de-quantised, WordNet's relation index and sense table built),
timed on its own row; each check then runs with a response cache of its own that starts
empty, so no answer is reused between checks. The machine is shared: the load average
(runnable processes; 2 = both cores of a 2-core machine busy) is printed beside each time.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODEL = ["--model", "smollm2-135m"]

#: (name, the command as the docs give it, after `lexbench`).
CHECKS: list[tuple[str, list[str]]] = [
    ("lambda", ["run", "lambda", *MODEL, "--limit", "100"]),
    # The small grid's base prompts (144), stopped at </answer>: its CoT prompts (128 more, at
    # up to 96 tokens each) are what made `--grid small --limit 1` run for many minutes.
    (
        "setlexsem",
        [
            *("run", "setlexsem", *MODEL, "--grid", "small", "--limit", "1"),
            *("--select", "method=baseline_allow_empty", "--stop-at-answer"),
        ],
    ),
    ("scan", ["run", "scan", *MODEL, "--limit", "1"]),
    ("all", ["run", "all", *MODEL, "--limit", "5"]),
]

#: What builds lexbench's one-time caches (model, WordNet) before the checks are timed.
SETUP = ["run", "lambda", *MODEL, "--limit", "1", "--no-cache"]


def _run(arguments: list[str], work: Path, name: str) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, exit status, what `run all` skipped). CPU seconds (user
    + system of the child) hardly move with the machine's load; wall seconds do."""
    command = [sys.executable, "-m", "lexbench", *arguments, "--out", str(work / "runs")]
    command += ["--no-progress"]
    if "--no-cache" not in arguments:
        command += ["--cache", str(work / f"{name}.sqlite")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    skipped = ", ".join(
        line.split()[1].rstrip(":")
        for line in done.stdout.splitlines()
        if line.startswith("skipped ")
    )
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return seconds, cpu, done.returncode, skipped


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=[name for name, _ in CHECKS], default=None)
    parser.add_argument("--keep", type=Path, default=None, help="work here, and keep it")
    args = parser.parse_args()
    holder = None if args.keep else tempfile.TemporaryDirectory(prefix="lexbench-quick-")
    work = args.keep or Path(holder.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    os.environ["LEXBENCH_CACHE"] = str(work / "cache")
    rows = []
    load = _load()
    seconds, cpu, status, _ = _run(SETUP, work, "setup")
    rows.append(("one-time setup", SETUP, seconds, cpu, status, load, _load(), ""))
    for name, arguments in CHECKS:
        if args.only and name not in args.only:
            continue
        load = _load()
        seconds, cpu, status, skipped = _run(arguments, work, name)
        rows.append((name, arguments, seconds, cpu, status, load, _load(), skipped))
        print(f"{name}: {seconds:.0f} s wall, {cpu:.0f} s CPU (exit {status})", file=sys.stderr)
    print("| check | command | wall time | CPU time | exit | load before / after | skipped |")
    print("|---|---|---:|---:|---:|---|---|")
    for name, arguments, seconds, cpu, status, before, after, skipped in rows:
        print(
            f"| {name} | `lexbench {shlex.join(arguments)}` | {_duration(seconds)} | "
            f"{_duration(cpu)} | {status} | {before} / {after} | {skipped} |"
        )
    if holder is not None:
        holder.cleanup()
    return 0 if all(row[4] == 0 for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
