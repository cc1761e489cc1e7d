"""What `--sets K` costs: LAMBDA on the packaged SmolLM2-135M at a small --limit, with K
fresh sets, then again with a larger K (only the new sets should be sent).

    .venv/bin/python measurements/performance/robustness_cost.py [--limit 5] [--sets 5] [--more 2]

Each call runs `lexbench run lambda --sets K --limit N` in a fresh process, with a fresh
response cache and run root (both in a temporary folder), and prints, per call: wall time,
and per set the requests, how many came from the cache, how many were sent, and the
runner's seconds (read from the spread file the call writes).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def call(root: Path, sets: int, limit: int) -> tuple[float, dict]:
    command = [
        sys.executable,
        "-m",
        "lexbench.cli",
        "run",
        "lambda",
        "--sets",
        str(sets),
        "--limit",
        str(limit),
        "--out",
        str(root / "runs"),
        "--cache",
        str(root / "responses.sqlite"),
        "--no-progress",
    ]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    (spread,) = (root / "runs" / "lambda").glob("*/robustness/sets-*.json")
    return seconds, json.loads(spread.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=5, help="items per relation in each set")
    parser.add_argument("--sets", type=int, default=5, help="K fresh sets in the first call")
    parser.add_argument("--more", type=int, default=2, help="sets added by the second call")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        for k in (args.sets, args.sets + args.more):
            seconds, spread = call(root, k, args.limit)
            cost = spread["cost"]
            print(
                f"\n--sets {k} --limit {args.limit}: {seconds:.1f}s wall (fresh process: "
                f"model load, WordNet index, {k + 1} runs)"
            )
            print("| set | requests | from cache | sent | runner seconds |")
            print("|---|---:|---:|---:|---:|")
            for row in cost:
                print(
                    f"| {row['label']} | {row['requests']} | {row['cached']} | {row['sent']} "
                    f"| {row['seconds']:.1f} |"
                )
            total = {k2: sum(r[k2] for r in cost) for k2 in ("requests", "cached", "sent")}
            print(
                f"| total | {total['requests']} | {total['cached']} | {total['sent']} | "
                f"{sum(r['seconds'] for r in cost):.1f} |"
            )
            overall = spread["summary"]["overall"]
            print(
                f"accuracy over fresh sets: mean {100 * overall['mean']:.1f}%, SD "
                f"{100 * overall['sd']:.1f} pp; published {100 * overall['published']:.1f}% "
                f"(rank {overall['rank']} of {overall['of']})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
