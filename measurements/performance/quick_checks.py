"""Time every quick check the documentation gives, on the packaged SmolLM2-135M, on a first
run (cold caches) and a later one (warm), print a Markdown table and write the record
measurements/records/quick_checks.json (the figures README.md and docs/ quote come from it).

    python measurements/performance/quick_checks.py                   # every check, cold and warm
    python measurements/performance/quick_checks.py --only demo all   # some of them

Cold: the check runs with `LEXBENCH_CACHE` a new empty folder, so it pays lexbench's
one-time setup (the packaged model de-quantised, WordNet's relation index and sense table
built) as a first-time user does. Before the warm checks, each setup step is timed on its
own into one shared cache (the record's `setup`); every warm check then finds the model and
WordNet prepared. Every check, cold or warm, has a response cache of its own that starts
empty, so no answer is reused: a later *different* command, not the same one repeated
(which would answer from the cache). Wall time moves with the machine's load; CPU time
(user + system of the command) moves less (docs/performance.md, "Threads beside other
processes", says how much), so both are recorded, with the load average
(runnable processes; 2 = both cores of a 2-core machine busy) before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# recording.py, shared by both folders of scripts, sits one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recording import CARRIED, MEASURED, RECORDS, Recorder, load_average

MODEL = ["--model", "smollm2-135m"]

#: (name, the command as the docs give it, after `lexbench`).
CHECKS: list[tuple[str, list[str]]] = [
    # What `make demo` runs once set up: all 3,000 LAMBDA items.
    ("demo", ["run", "lambda", *MODEL, "--prompt-style", "completion"]),
    # Getting started's first run.
    ("lambda", ["run", "lambda", *MODEL, "--prompt-style", "completion", "--limit", "100"]),
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

#: lexbench's one-time setup, step by step, each in a process of its own (the warm checks'
#: shared cache is built by these), then the two WordNet tables read back as a later command
#: does. Each step prints the seconds of its own work (without the interpreter's start).
_INDEX = "from lexbench.lexicon.wordnet.index_cache import load_index; load_index(progress=False)"
_SENSES = (
    "from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet\n"
    "from lexbench.lexicon.wordnet.senses import load_sense_table\n"
    "d = locate_wordnet(allow_install=False); load_sense_table(d, fingerprint(d))"
)
_MODEL = "from lexbench.models.hf import HFCausalLM; HFCausalLM.from_spec('smollm2-135m')"
SETUP_STEPS: list[tuple[str, str]] = [
    ("wordnet_index", _INDEX),
    ("sense_table", _SENSES),
    ("model", _MODEL),
]
READ_STEPS: list[tuple[str, str]] = [("wordnet_index_read", _INDEX), ("sense_table_read", _SENSES)]


def _step(code: str) -> str:
    return (
        "import time\nstarted = time.perf_counter()\n"
        + code
        + ("\nprint(time.perf_counter() - started)")
    )


def _timed(command: list[str], environment: dict[str, str]) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds of the child, exit status, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return seconds, cpu, done.returncode, done.stdout


def _scores(runs: Path) -> tuple[float, dict[str, Any]]:
    """The request phase's seconds summed over the runs' results.json, and each run's
    overall block (where its benchmark reports one), by benchmark."""
    request_seconds = 0.0
    scores: dict[str, Any] = {}
    for path in sorted(runs.rglob("results.json")):
        results = json.loads(path.read_text())
        request_seconds += float(results.get("run", {}).get("seconds", 0.0))
        overall = results.get("overall")
        if isinstance(overall, dict):
            scores[path.relative_to(runs).parts[0]] = overall
    return round(request_seconds, 1), scores


def run_check(arguments: list[str], work: Path, cache_root: Path) -> dict[str, Any]:
    environment = {**os.environ, "LEXBENCH_CACHE": str(cache_root)}
    runs = work / "runs"
    command = [sys.executable, "-m", "lexbench", *arguments, "--out", str(runs), "--no-progress"]
    command += ["--cache", str(work / "responses.sqlite")]
    load_before = load_average()
    seconds, cpu, status, stdout = _timed(command, environment)
    skipped = [
        line.split()[1].rstrip(":") for line in stdout.splitlines() if line.startswith("skipped ")
    ]
    request_seconds, scores = _scores(runs)
    return {
        "command": "lexbench " + shlex.join(arguments),
        "status": MEASURED,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "wall_s": round(seconds, 1),
        "cpu_s": round(cpu, 1),
        "requests_s": request_seconds,
        "exit": status,
        "load_before": load_before,
        "load_after": load_average(),
        "skipped": skipped,
        "scores": scores,
    }


def duration(seconds: float) -> str:
    """As the docs write a duration: "1 min 34 s", "28 s"."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def merged(results: dict[str, Any], path: Path) -> dict[str, Any]:
    """The record's results with these checks' replaced: `--only` re-measures some checks
    and keeps the others' figures (each check carries its own load and command)."""
    if not path.is_file():
        return results
    kept: dict[str, Any] = json.loads(path.read_text())["results"]
    for state, checks in results.items():
        kept[state] = {**kept.get(state, {}), **checks}
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=[name for name, _ in CHECKS], default=None)
    parser.add_argument("--states", nargs="+", choices=["cold", "warm"], default=["cold", "warm"])
    parser.add_argument("--keep", type=Path, default=None, help="work here, and keep it")
    parser.add_argument("--record", type=Path, default=None, help="write the record here")
    args = parser.parse_args()
    recorder = Recorder("quick_checks", caches="cold (empty LEXBENCH_CACHE), then warm")
    holder = None if args.keep else tempfile.TemporaryDirectory(prefix="lexbench-quick-")
    work = args.keep or Path(holder.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    checks = [(name, arguments) for name, arguments in CHECKS if name in (args.only or [name])]
    results: dict[str, Any] = {}
    if "cold" in args.states:
        results["cold"] = {}
        for name, arguments in checks:
            folder = work / "cold" / name
            check = run_check(arguments, folder, folder / "lexbench-cache")
            results["cold"][name] = check
            print(
                f"cold {name}: {check['wall_s']:.0f} s wall, {check['cpu_s']:.0f} s CPU",
                file=sys.stderr,
            )
    if "warm" in args.states:
        shared = work / "warm-cache"
        environment = {**os.environ, "LEXBENCH_CACHE": str(shared)}
        results["setup"] = {}
        for step, code in SETUP_STEPS + READ_STEPS:
            seconds, cpu, status, out = _timed([sys.executable, "-c", _step(code)], environment)
            results["setup"][step] = {
                "status": MEASURED,
                "wall_s": round(seconds, 1),
                "cpu_s": round(cpu, 1),
                "inner_s": round(float(out.split()[-1]), 2) if status == 0 else None,
                "exit": status,
            }
        built = [results["setup"][step] for step, _ in SETUP_STEPS]
        results["setup"]["all"] = {
            "status": MEASURED,
            "wall_s": round(sum(step["wall_s"] for step in built), 1),
            "cpu_s": round(sum(step["cpu_s"] for step in built), 1),
            "exit": max(step["exit"] for step in built),
        }
        results["warm"] = {}
        for name, arguments in checks:
            check = run_check(arguments, work / "warm" / name, shared)
            results["warm"][name] = check
            print(
                f"warm {name}: {check['wall_s']:.0f} s wall, {check['cpu_s']:.0f} s CPU",
                file=sys.stderr,
            )
    print("| check | caches | wall time | CPU time | requests | exit | load before / after |")
    print("|---|---|---:|---:|---:|---:|---|")
    for state in ("cold", "warm"):
        for name, check in results.get(state, {}).items():
            print(
                f"| {name} | {state} | {duration(check['wall_s'])} | {duration(check['cpu_s'])} | "
                f"{duration(check['requests_s'])} | {check['exit']} | "
                f"{check['load_before']} / {check['load_after']} |"
            )
    for step, figures in results.get("setup", {}).items():
        print(f"setup {step}: {figures['wall_s']} s wall, {figures['cpu_s']} s CPU")
    kept = merged(results, args.record or RECORDS / "quick_checks.json")
    carried = any(
        check.get("status") == CARRIED for state in kept.values() for check in state.values()
    )
    recorder.write(kept, path=args.record, status=CARRIED if carried else MEASURED)
    if holder is not None:
        holder.cleanup()
    checked = [c for state in ("cold", "warm") for c in results.get(state, {}).values()]
    steps = list(results.get("setup", {}).values())
    return 0 if all(c["exit"] == 0 for c in checked + steps) else 1


if __name__ == "__main__":
    sys.exit(main())
