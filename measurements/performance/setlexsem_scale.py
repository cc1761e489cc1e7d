"""SetLexSem's paper grid through a run, at growing sizes and by both paths: wall time, peak
memory and the client's CPU per prompt, in one process per run.

    .venv/bin/python measurements/performance/setlexsem_scale.py [--sizes 20000 100000 302400]
        [--paths items grid] [--spread 3] [--latency 0.01] [--concurrency 128]
        [--work DIR] [--profile]

The items path: the paper grid (`lexbench generate setlexsem --grid paper`, 302,400 prompts)
is generated once into `--work` (kept between runs); each size runs its first N prompts with
`lexbench run setlexsem --items FILE --model openai:fake-model`. The grid path (what a user
types first): `lexbench run setlexsem --grid paper`, the items generated inside the run, from
an empty lexbench cache (`LEXBENCH_CACHE` in `--work`, emptied before each grid run), so the
run also prepares WordNet and builds the deceptive study's hyponym pools, as on a fresh
machine. Both go against the fake OpenAI-compatible server (tests/fake_openai_server.py, its
own process, answering every request after `--latency` seconds), `--max-concurrency` prompts
in flight, from an empty response cache and run folder. A size larger than the grid runs the
whole grid; `--spread N` also runs the first N prompts of every configuration (`--limit N`)
on each path.

Figures per size, for the `lexbench run` process alone (the server's CPU is not counted):
the whole run's wall time (start-up, reading, requests, scoring, samples, tables, report,
figures), its peak resident memory (`ru_maxrss` of the child), and its user+system CPU
divided by the prompts. Targets (issue 26): peak at the paper grid <= 400 MB and at most
20% above the first size's; CPU <= 0.25 ms per prompt; the paper grid in under 3 minutes.
Issue 39: the grid path within the same 400 MB.
The server and the client share this machine's cores, so the load average is printed.

`--profile` writes a cProfile of each run beside its run folder (client.prof).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "measurements"))  # recording.py
sys.path.insert(0, str(Path(__file__).resolve().parent))  # openai_throughput.py beside it
from openai_throughput import start_server
from recording import Recorder

TARGET_PEAK_MB = 400
TARGET_GROWTH = 0.20
TARGET_CPU_MS = 0.25
TARGET_WALL_S = 180


def paper_grid(work: Path) -> Path:
    """The paper grid's items, generated once into `work`."""
    path = work / "paper.jsonl"
    if not path.is_file():
        print(f"generating the paper grid into {path} ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "lexbench",
                "generate",
                "setlexsem",
                "--grid",
                "paper",
                "-o",
                str(path),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path


def first_lines(source: Path, count: int, target: Path) -> int:
    """The first `count` lines of `source` into `target`; how many there were."""
    written = 0
    with open(source, "rb") as reader, open(target, "wb") as writer:
        for line in reader:
            if written == count:
                break
            writer.write(line)
            written += 1
    return written


def run_once(
    url: str,
    items: Path | None,
    folder: Path,
    concurrency: int,
    profile: bool,
    limit: int | None = None,
    cold_cache: Path | None = None,
) -> dict[str, Any]:
    """One `lexbench run setlexsem` process: `--items items`, or `--grid paper` when `items`
    is None; `cold_cache`: an emptied LEXBENCH_CACHE for it."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    prefix = [sys.executable]
    if profile:
        prefix += ["-m", "cProfile", "-o", str(folder / "client.prof")]
    command = [
        *prefix,
        "-m",
        "lexbench",
        "run",
        "setlexsem",
        *(["--grid", "paper"] if items is None else ["--items", str(items)]),
        "--model",
        "openai:fake-model",
        "--base-url",
        url,
        "--max-concurrency",
        str(concurrency),
        "--cache",
        str(folder / "cache.sqlite"),
        "--out",
        str(folder / "runs"),
        "--no-progress",
        "--allow-failures",
        *([] if limit is None else ["--limit", str(limit)]),
    ]
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    if cold_cache is not None:
        shutil.rmtree(cold_cache, ignore_errors=True)
        environment["LEXBENCH_CACHE"] = str(cold_cache)
    started = time.perf_counter()
    with open(folder / "stderr.txt", "wb") as errors:
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=errors, env=environment
        )
        trace: list[tuple[float, float]] = []  # (seconds, resident MB), polled
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            trace.append((time.perf_counter() - started, resident_mb(process.pid)))
            time.sleep(0.25)
    wall = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(
            f"the run failed ({status}): {(folder / 'stderr.txt').read_text()[-2000:]}"
        )
    return {
        "wall": wall,
        "peak_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
        "cpu": usage.ru_utime + usage.ru_stime,
        "trace": trace,
        "configurations": configurations_in(folder),
    }


def configurations_in(folder: Path) -> int:
    results = json.loads(next((folder / "runs").rglob("results.json")).read_text())
    return len(results["configurations"])


def samples_in(folder: Path) -> int:
    """How many prompts the run in `folder` answered (lines of its samples.jsonl)."""
    samples = next((folder / "runs").rglob("samples.jsonl"))
    with open(samples, "rb") as handle:
        return sum(1 for _ in handle)


def resident_mb(pid: int) -> float:
    """The process's resident memory now (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def shape(trace: list[tuple[float, float]]) -> str:
    """Resident memory at each tenth of the run: where the memory goes."""
    if not trace:
        return ""
    end = trace[-1][0]
    marks = []
    for tenth in range(1, 10):
        moment = end * tenth / 10
        marks.append(min(trace, key=lambda point: abs(point[0] - moment))[1])
    return "resident MB at each tenth: " + " ".join(f"{mb:.0f}" for mb in marks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000, 302_400])
    parser.add_argument(
        "--paths",
        nargs="+",
        choices=("items", "grid"),
        default=["items", "grid"],
        help="items: --items FILE at each size; grid: --grid paper, from an empty cache",
    )
    parser.add_argument("--latency", type=float, default=0.01)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lexbench-setlexsem-scale"))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--spread",
        type=int,
        default=3,
        help="also run the first N prompts of every configuration of the whole grid "
        "(--limit N: few prompts, all 6,048 configurations; 0: skip), on each path",
    )
    parser.add_argument("--record", type=Path, default=None, help="write the record here")
    args = parser.parse_args()
    recorder = Recorder("setlexsem_scale", caches="empty response cache and run folder per size")
    args.work.mkdir(parents=True, exist_ok=True)
    grid = paper_grid(args.work)
    server, url = start_server(args.latency)
    rows = []
    runs: list[tuple[str, Path | None, int | None]] = []
    if "items" in args.paths:
        for size in args.sizes:
            items = args.work / f"first-{size}.jsonl"
            runs.append((f"first {first_lines(grid, size, items):,}", items, None))
        if args.spread:
            runs.append((f"first {args.spread} of every configuration", grid, args.spread))
    if "grid" in args.paths:
        runs.append(("grid path: the whole grid", None, None))
        if args.spread:
            runs.append(
                (f"grid path: first {args.spread} of every configuration", None, args.spread)
            )
    cold = args.work / "cold-cache"
    try:
        for label, items, limit in runs:
            folder = args.work / f"run-{label.replace(' ', '-').replace(':', '')}"
            figures = run_once(
                url,
                items,
                folder,
                args.concurrency,
                args.profile,
                limit,
                cold_cache=cold if items is None else None,
            )
            count = samples_in(folder)
            load = os.getloadavg()[0]
            rows.append((count, figures, load, label))
            print(
                f"{label}: {count:,} prompts: {figures['wall']:6.1f} s, peak "
                f"{figures['peak_mb']:6.0f} MB, client CPU "
                f"{1000 * figures['cpu'] / count:.3f} ms/prompt (load {load:.1f})\n    "
                + shape(figures["trace"]),
                flush=True,
            )
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=30)
    print(
        f"\nSetLexSem paper grid's first prompts, fake server ({1000 * args.latency:g} ms, "
        f"{args.concurrency} in flight), one `lexbench run setlexsem` process each (`--items "
        "FILE`, or `--grid paper` from an empty cache on the grid path)\n"
    )
    print(
        "| prompts | configurations | whole run | peak memory | client CPU (user+sys) "
        "per prompt | load |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for count, figures, load, label in rows:
        print(
            f"| {label} ({count:,}) | {figures['configurations']:,} | {figures['wall']:.1f} s | "
            f"{figures['peak_mb']:,.0f} MB | {1000 * figures['cpu'] / count:.2f} ms | "
            f"{load:.1f} |"
        )
    on_grid = [row for row in rows if row[3].startswith("grid path")]
    rows = [row for row in rows if not row[3].startswith("grid path")]
    for count, figures, _, label in on_grid:
        print(
            f"\n{label}: peak {figures['peak_mb']:.0f} MB (target <= {TARGET_PEAK_MB}), "
            f"{count:,} prompts, wall {figures['wall']:.0f} s"
        )
    spread = [row for row in rows if "every" in row[3]]
    rows = [row for row in rows if "every" not in row[3]]
    if not rows:
        return 0
    first, last = rows[0][1], rows[-1][1]
    if spread:
        print(
            f"\nthe same {last['configurations']:,} configurations: {spread[0][0]:,} prompts "
            f"{spread[0][1]['peak_mb']:.0f} MB, {rows[-1][0]:,} prompts {last['peak_mb']:.0f} MB "
            f"({100 * (last['peak_mb'] / spread[0][1]['peak_mb'] - 1):+.0f}%)"
        )
    growth = last["peak_mb"] / first["peak_mb"] - 1
    recorded = {}
    for count, figures, load, label in [*rows, *spread, *on_grid]:
        key = f"spread_{args.spread}" if "every" in label else f"first_{count}"
        if label.startswith("grid path"):  # the grid path: `--grid paper`, no --items file
            key = f"grid_spread_{args.spread}" if "every" in label else "grid_whole"
        recorded[key] = {
            "prompts": count,
            "configurations": figures["configurations"],
            "wall_s": round(figures["wall"], 1),
            "peak_mb": round(figures["peak_mb"]),
            "cpu_ms_per_prompt": round(1000 * figures["cpu"] / count, 2),
            "load": round(load, 1),
        }
    recorder.write(recorded, path=args.record)
    print(
        f"\npeak at {rows[-1][0]:,}: {last['peak_mb']:.0f} MB (target <= {TARGET_PEAK_MB}), "
        f"{100 * growth:+.0f}% against {rows[0][0]:,} (target <= +{100 * TARGET_GROWTH:.0f}%); "
        f"CPU per prompt at most {max(1000 * f['cpu'] / c for c, f, _, _ in rows):.3f} ms "
        f"(target <= {TARGET_CPU_MS}); wall {last['wall']:.0f} s (target < {TARGET_WALL_S})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
