"""SetLexSem's own work per item, in microseconds of CPU: reading an item line, its hash
line, its request, scoring an answer and writing its sample row (issue 26).

    .venv/bin/python measurements/performance/setlexsem_item_cost.py [--items FILE] [--count 20000]
        [--every N] [--against REF] [--repeat 3]

Items: the first `--count` lines of `--items` (default: the paper grid's first 20,000
prompts that measurements/performance/setlexsem_scale.py writes, generated here when missing), or
with `--every N` every Nth line (the whole paper grid's file with `--every 16`: all four token
types, where its first 20,000 prompts are number sets only). Each
stage runs over every item `--repeat` times and the fastest pass is kept (the machine is
shared, so the slower passes measure the neighbours). `--against REF` measures the same
stages with the code of git REF (its `src/`, exported to a temporary folder) in a second
process on the same items, and prints both columns: before (REF) and after (this tree).

Stages, each as a run does it:
  read         `read_items`: the JSON line decoded and the item built, ids checked; every
               item kept in a list (whose growth the garbage collector pays for)
  read streamed  `iter_items`, each item dropped once made (a streaming run's reading)
  hash line    `item_line(item)` encoded and fed to sha256 (the dataset hash)
  request      `SetLexSemBenchmark.requests(item)`
  score fake   `score` of the fake server's reply (no answer tag: both readings fail)
  score tagged `score` of the gold answer in an answer tag (both readings succeed)
  sample row   `sample(...)` and its samples.jsonl line (`dumps_strict`, sorted keys)
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import itertools
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ITEMS = Path("/tmp/lexbench-setlexsem-scale/first-20000.jsonl")
STAGES = ("read", "hash line", "request", "score fake", "score tagged", "sample row")
# Not summed: another way to read (the items are not kept), for a streaming run.
EXTRA = ("read streamed",)


def ensure_items(path: Path, count: int) -> Path:
    """`path` if it exists, else the paper grid's first `count` prompts written there."""
    if path.is_file():
        return path
    from lexbench.benchmarks.setlexsem.files import item_line
    from lexbench.benchmarks.setlexsem.generate import ItemGenerator
    from lexbench.benchmarks.setlexsem.grid_read import resolve_grid

    print(f"writing the paper grid's first {count:,} prompts to {path} ...", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for item in itertools.islice(ItemGenerator(resolve_grid("paper")).items(), count):
            out.write(item_line(item))
    return path


def fastest(repeat: int, stage: Callable[[], object], count: int) -> float:
    """Microseconds of CPU per item for the fastest of `repeat` passes."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        stage()
        best = min(best, time.process_time() - started)
    return 1e6 * best / count


def measure(items_path: Path, count: int, repeat: int, every: int = 1) -> dict[str, float]:
    """The stages on the first `count` items of `items_path` (every `every`th line), with
    the code on sys.path."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_openai_server import default_reply
    from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark, read_items
    from lexbench.benchmarks.setlexsem.files import item_line
    from lexbench.run.jsonio import dumps_strict
    from lexbench.types import Response

    with tempfile.TemporaryDirectory() as folder:
        sliced = Path(folder) / "items.jsonl"
        with open(items_path, "rb") as reader, open(sliced, "wb") as writer:
            writer.writelines(itertools.islice(reader, 0, count * every, every))
        items = read_items(sliced)
        count = len(items)
        figures = {"read": fastest(repeat, lambda: read_items(sliced), count)}
        try:  # the streaming reader (issue 26); code from before it has none
            from lexbench.benchmarks.setlexsem.files import iter_items
        except ImportError:
            figures["read streamed"] = float("nan")
        else:
            figures["read streamed"] = fastest(
                repeat, lambda: collections.deque(iter_items(sliced), maxlen=0), count
            )

    def hash_lines() -> None:
        digest = hashlib.sha256()
        for item in items:
            digest.update(item_line(item).encode("utf-8"))

    benchmark = SetLexSemBenchmark(dataset=items)
    fake = [Response(i.id, text=default_reply(i.prompt), generated_tokens=4) for i in items]
    tagged = [
        Response(i.id, text="<answer>{" + ", ".join(map(str, i.answer)) + "}</answer>")
        for i in items
    ]
    requests = [benchmark.requests(i) for i in items]
    scores = [benchmark.score(i, [r]) for i, r in zip(items, fake)]

    def score_all(responses: list[Response]) -> None:
        for item, response in zip(items, responses):
            benchmark.score(item, [response])

    def sample_rows() -> None:
        for item, request, response, score in zip(items, requests, fake, scores):
            row = benchmark.sample(item, request, [response], score)
            dumps_strict(dict(row), ensure_ascii=False, sort_keys=True)

    figures["hash line"] = fastest(repeat, hash_lines, count)
    figures["request"] = fastest(repeat, lambda: [benchmark.requests(i) for i in items], count)
    figures["score fake"] = fastest(repeat, lambda: score_all(fake), count)
    figures["score tagged"] = fastest(repeat, lambda: score_all(tagged), count)
    figures["sample row"] = fastest(repeat, sample_rows, count)
    figures["items"] = count
    return figures


def measure_ref(
    ref: str, items_path: Path, count: int, repeat: int, every: int
) -> dict[str, float]:
    """`measure` with git REF's src/, in its own process."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True
        ).stdout
        archive_path = Path(folder) / "src.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(folder, filter="data")
        worker = ["--worker", "--items", str(items_path), "--count", str(count)]
        worker += ["--every", str(every)]
        result = subprocess.run(
            [sys.executable, __file__, *worker, "--repeat", str(repeat)],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(folder) / "src")},
        )
    figures: dict[str, float] = json.loads(result.stdout)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=Path, default=DEFAULT_ITEMS)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--against", metavar="REF")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:  # one column, for --against: the code is whatever PYTHONPATH holds
        print(json.dumps(measure(args.items, args.count, args.repeat, args.every)))
        return 0
    items = ensure_items(args.items, args.count)
    before = (
        measure_ref(args.against, items, args.count, args.repeat, args.every)
        if args.against
        else None
    )
    after = measure(items, args.count, args.repeat, args.every)
    which = "first" if args.every == 1 else f"every {args.every}th line:"
    print(f"\nSetLexSem per-item CPU, {which} {int(after['items']):,} prompts of {items}")
    print(f"(fastest of {args.repeat} passes, time.process_time)\n")
    if before is None:
        print("| stage | µs per item |\n|---|---:|")
        for stage in STAGES:
            print(f"| {stage} | {after[stage]:.1f} |")
        print(f"| **all** | **{sum(after[s] for s in STAGES):.1f}** |")
        for stage in EXTRA:
            print(f"| ({stage}) | {after[stage]:.1f} |")
        return 0
    print(f"| stage | before ({args.against}) | after | |\n|---|---:|---:|---:|")
    for stage in STAGES:
        ratio = before[stage] / after[stage]
        print(f"| {stage} | {before[stage]:.1f} | {after[stage]:.1f} | {ratio:.1f}x |")
    total_before = sum(before[s] for s in STAGES)
    total_after = sum(after[s] for s in STAGES)
    ratio = total_before / total_after
    print(f"| **all** | **{total_before:.1f}** | **{total_after:.1f}** | {ratio:.1f}x |")
    for stage in EXTRA:
        print(f"| ({stage}) | {before[stage]:.1f} | {after[stage]:.1f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
