"""CPU and wall time per item of the packaged SmolLM2 answering LAMBDA (completion prompt),
alone and beside a busy neighbour, with torch's threads as lexbench sets them now and as
they were before (libgomp's default wait), forced through the environment; writes
measurements/records/thread_contention.json.

    python measurements/performance/thread_contention.py              # 100 items a relation, 3 rounds
    python measurements/performance/thread_contention.py --limit 50 --rounds 2

Each measurement is a process of its own (libgomp reads its settings when torch is first
imported) that loads the model as lexbench does (`HFCausalLM.from_spec`, so lexbench's
thread settings apply), builds the LAMBDA slice, and times `model.generate` over it:
CPU = the process's user + system time over the call (every thread's), wall = its
elapsed time, each divided by the items. Settings:

* `before`: `GOMP_SPINCOUNT=300000`, which is libgomp's own default spin (about 3 ms) when
  no wait policy is set, so lexbench leaves the wait alone (a user's choice) and the
  process waits as every run did before: what a run got until this change;
* `after`: nothing set; lexbench sets the passive wait and its thread count;
* `one_thread`: `--threads 1` (an option a user has), for comparison.

Neighbour: `none`, or `busy`: two Python processes spinning (`while True: pass`), one per
core of a 2-core machine, started before and stopped after that round's measurements.
The order is interleaved (each round: no neighbour, then busy; each setting in turn), so a
change in other people's load touches every condition alike; the load average (runnable
processes, 2 = both cores busy) is kept beside every measurement. Every process must give
the same answers (a digest of the texts), whatever its threads.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# recording.py, shared by both folders of scripts, sits one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recording import Recorder, load_average

ROOT = Path(__file__).resolve().parents[2]
SETTINGS: dict[str, dict[str, str]] = {
    "before": {"GOMP_SPINCOUNT": "300000"},
    "after": {},
    "one_thread": {},
}
#: What the environment must not carry into a measurement (it would choose for it).
CLEARED = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "OMP_NUM_THREADS")


def child(limit: int, threads: int | None) -> None:
    """One measurement, in this process: print a JSON line."""
    from lexbench.benchmarks.lambda_.benchmark import build_lambda
    from lexbench.models.hf import HFCausalLM, HFOptions

    model = HFCausalLM.from_spec("smollm2-135m", HFOptions(threads=threads))
    benchmark = build_lambda(model, limit=limit, prompt_style="completion", progress=False)
    requests = [r for item in benchmark.items() for r in benchmark.requests(item)]
    import torch

    cpu, wall = time.process_time(), time.perf_counter()
    answers = model.generate(requests)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    texts = hashlib.sha256("\n".join(a.text for a in answers).encode()).hexdigest()[:16]
    print(
        json.dumps(
            {
                "items": len(requests),
                "cpu_s": cpu,
                "wall_s": wall,
                "threads": torch.get_num_threads(),
                "wait_policy": os.environ.get("OMP_WAIT_POLICY", "(libgomp default)"),
                "answers_sha": texts,
            }
        )
    )


def measure(setting: str, limit: int) -> dict[str, Any]:
    environment = {k: v for k, v in os.environ.items() if k not in CLEARED}
    environment.update(SETTINGS[setting])
    environment["PYTHONPATH"] = str(ROOT / "src")
    command = [sys.executable, __file__, "--child", str(limit)]
    if setting == "one_thread":
        command += ["--threads", "1"]
    load_before = load_average()
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    items = found["items"]
    return {
        "cpu_ms_per_item": round(1000 * found["cpu_s"] / items, 1),
        "wall_ms_per_item": round(1000 * found["wall_s"] / items, 1),
        "items": items,
        "threads": found["threads"],
        "wait_policy": found["wait_policy"],
        "answers_sha": found["answers_sha"],
        "load_before": load_before,
        "load_after": load_average(),
    }


def neighbours(count: int) -> list[subprocess.Popen[bytes]]:
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    time.sleep(2.0)  # let them reach the run queue
    return spinners


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    cpu = [r["cpu_ms_per_item"] for r in runs]
    wall = [r["wall_ms_per_item"] for r in runs]
    loads = [x for r in runs for x in (r["load_before"], r["load_after"])]
    return {
        "cpu_ms_per_item": round(statistics.median(cpu), 1),
        "cpu_ms_range": [min(cpu), max(cpu)],
        "wall_ms_per_item": round(statistics.median(wall), 1),
        "wall_ms_range": [min(wall), max(wall)],
        "load_range": [min(loads), max(loads)],
        "threads": runs[0]["threads"],
        "wait_policy": runs[0]["wait_policy"],
        "runs": runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100, help="items per relation (3 relations)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS))
    parser.add_argument("--record", type=Path, default=None)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.threads)
        return 0
    recorder = Recorder("thread_contention", caches="warm (model de-quantised, WordNet indexed)")
    measure("after", 1)  # warm: the model de-quantised and WordNet's index built once
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        neighbour: {s: [] for s in args.settings} for neighbour in ("none", "busy")
    }
    for round_number in range(args.rounds):
        for neighbour in ("none", "busy"):
            spinners = neighbours(2) if neighbour == "busy" else []
            try:
                for setting in args.settings:
                    found = measure(setting, args.limit)
                    runs[neighbour][setting].append(found)
                    print(
                        f"round {round_number + 1} {neighbour:4} {setting:10} "
                        f"{found['cpu_ms_per_item']:7.1f} CPU-ms/item "
                        f"{found['wall_ms_per_item']:7.1f} wall-ms/item "
                        f"threads {found['threads']} load {found['load_before']}",
                        file=sys.stderr,
                        flush=True,
                    )
            finally:
                for spinner in spinners:
                    spinner.kill()
                    spinner.wait()
    answers = {r["answers_sha"] for by in runs.values() for rs in by.values() for r in rs}
    results: dict[str, Any] = {
        "items": args.limit * 3,
        "rounds": args.rounds,
        "same_answers": len(answers) == 1,
    }
    for neighbour, by_setting in runs.items():
        results[neighbour] = {s: summary(rs) for s, rs in by_setting.items()}
    for setting in args.settings:
        alone = results["none"][setting]["cpu_ms_per_item"]
        busy = results["busy"][setting]["cpu_ms_per_item"]
        results[f"{setting}_busy_over_none_cpu"] = round(busy / alone, 2)
    print("| neighbour | setting | CPU ms/item (median, range) | wall ms/item | load |")
    print("|---|---|---:|---:|---|")
    for neighbour in ("none", "busy"):
        for setting in args.settings:
            s = results[neighbour][setting]
            print(
                f"| {neighbour} | {setting} | {s['cpu_ms_per_item']} ({s['cpu_ms_range']}) | "
                f"{s['wall_ms_per_item']} ({s['wall_ms_range']}) | {s['load_range']} |"
            )
    recorder.write(results, path=args.record)
    return 0 if results["same_answers"] else 1


if __name__ == "__main__":
    sys.exit(main())
