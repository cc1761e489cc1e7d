"""What committing answers to the response cache costs: one transaction per answer (how
streamed answers were committed before) against groups (`run.cache_writer.GroupedWriter`,
at most 256 answers or 0.25 s per transaction), and what claiming a chunk of requests for
sending costs (`ResponseCache.claim_for_sending`, once per chunk of 256).

    .venv/bin/python measurements/performance/cache_commits.py [--answers 5000] [--repeats 3]

Each figure is the median over `--repeats` fresh cache files in a temporary folder, in
microseconds of wall time per answer (per chunk for claims); answers are 200-character
generations, as LAMBDA's and SetLexSem's are.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from lexbench.run.cache import ResponseCache, request_key
from lexbench.run.cache_writer import GroupedWriter
from lexbench.run.send_claims import Owner
from lexbench.types import Request, Response

FINGERPRINT = {"backend": "benchmark", "model": "m"}


def entries(count: int, tag: str) -> list[tuple]:
    out = []
    for n in range(count):
        request = Request(id=f"{tag}{n}", kind="generate", prompt=f"{tag} prompt {n}")
        response = Response(request.id, text="y" * 200, generated_tokens=40)
        out.append((request_key(FINGERPRINT, request), FINGERPRINT, request, response))
    return out


def per_answer(path: Path, rows: list[tuple]) -> float:
    with ResponseCache(path) as cache:
        started = time.perf_counter()
        for row in rows:
            cache.put_many([row])
        return time.perf_counter() - started


def grouped(path: Path, rows: list[tuple]) -> float:
    with ResponseCache(path) as cache:
        started = time.perf_counter()
        with GroupedWriter(cache) as writer:
            for row in rows:
                writer.add(row)
        return time.perf_counter() - started


def claims(path: Path, rows: list[tuple]) -> float:
    owner = Owner.current()
    keys = [row[0] for row in rows]
    with ResponseCache(path) as cache:
        started = time.perf_counter()
        for start in range(0, len(keys), 256):
            cache.claim_for_sending(keys[start : start + 256], owner)
        elapsed = time.perf_counter() - started
        cache.release_claims(owner)
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    measured: dict[str, list[float]] = {"per answer": [], "grouped": [], "claims": []}
    with tempfile.TemporaryDirectory() as scratch:
        for repeat in range(args.repeats):
            rows = entries(args.answers, f"r{repeat}-")
            for name, measure in (("per answer", per_answer), ("grouped", grouped)):
                measured[name].append(measure(Path(scratch) / f"{name}-{repeat}.sqlite", rows))
            measured["claims"].append(claims(Path(scratch) / f"claims-{repeat}.sqlite", rows))
    chunks = -(-args.answers // 256)
    for name, seconds in measured.items():
        unit, count = ("chunk of 256", chunks) if name == "claims" else ("answer", args.answers)
        print(f"{name}: {statistics.median(seconds) / count * 1e6:.1f} µs per {unit}")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
