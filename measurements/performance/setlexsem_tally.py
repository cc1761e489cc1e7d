"""The cost of SetLexSem's streaming tally at the paper grid's size: microseconds per `add`,
the tally's own memory, and the time `finish()` takes.

    .venv/bin/python measurements/performance/setlexsem_tally.py [--configurations 6496]
        [--prompts 50]

Items: the first `--configurations` cells of the paper grid's cross product (main, deciles,
deceptive, in grid order; the paper grid keeps 6,496 of its 6,784 cells), `--prompts` items
each (324,800 by default), made one configuration at a time and dropped after its prompts,
as a streaming run drops them. Scores: the real `SetLexSemBenchmark.score` on nine kinds
of answer (right, wrong, empty, unreadable, made-up member, failed request, untagged,
`set()`, two answers) to the `small` grid's items, drawn by a seeded random.Random; the
tally reads only their details, so any score fits any item.

Three passes over the same stream: (1) timed, no tracing: seconds per `add` over the whole
stream (item construction outside the clock); (2) under tracemalloc: the memory the tally
holds after the last `add` (what it keeps, the items' hyperparameter strings included) and
the peak; (3) `finish()`: its seconds and tracemalloc's peak during it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))

from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark, generate_items
from lexbench.benchmarks.setlexsem.grid_read import resolve_grid
from lexbench.benchmarks.setlexsem.items import SetLexSemItem, config_id
from lexbench.benchmarks.setlexsem.sets import OPERATIONS
from lexbench.types import Response, Score

PYTHON_OPERATOR = {
    "union": lambda a, b: a | b,
    "intersection": lambda a, b: a & b,
    "difference": lambda a, b: a - b,
    "symmetric_difference": lambda a, b: a ^ b,
}
assert set(PYTHON_OPERATOR) == set(OPERATIONS)


def score_pool() -> list[Score]:
    from test_setlexsem_tally import _output  # the golden test's nine kinds of answer

    items = generate_items("small")
    bench = SetLexSemBenchmark(dataset=items)
    pool = []
    for index, item in enumerate(items):
        text = _output(item, index % 9)
        response = (
            Response(request_id=item.id, error="timeout")
            if text is None
            else Response(request_id=item.id, text=text)
        )
        pool.append(bench.score(item, [response]))
    return pool


def configurations(limit: int) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    count = 0
    for study in resolve_grid("paper").studies:
        for set_config in study.set_configs():
            for prompt_config in study.prompt_configs():
                if count == limit:
                    return
                count += 1
                yield study.name, set_config, prompt_config


def config_items(
    study: str, set_config: dict[str, Any], prompt_config: dict[str, Any], prompts: int
) -> list[SetLexSemItem]:
    m = set_config["m"]
    name = config_id(set_config, prompt_config)
    items = []
    for index in range(prompts):
        a = tuple(range(index, index + m))
        b = tuple(range(index + m // 2, index + m // 2 + m))
        answer = tuple(sorted(PYTHON_OPERATOR[prompt_config["operation"]](set(a), set(b))))
        items.append(
            SetLexSemItem(
                id=f"{name}/{index:02d}",
                config_id=name,
                studies=(study,),
                prompt_index=index,
                seed=index,
                set_a=a,
                set_b=b,
                answer=answer,
                demonstrations=(),
                hypernym_a=None,
                hypernym_b=None,
                swapped=0,
                decoding={},
                prompt="",
                **set_config,
                **prompt_config,
            )
        )
    return items


def feed(tally: Any, pool: list[Score], limit: int, prompts: int, clock: bool) -> tuple[int, float]:
    rng = random.Random(26)
    added, seconds = 0, 0.0
    for study, set_config, prompt_config in configurations(limit):
        items = config_items(study, set_config, prompt_config, prompts)
        scores = [pool[rng.randrange(len(pool))] for _ in items]
        started = time.perf_counter() if clock else 0.0
        for item, score in zip(items, scores):
            tally.add(item, score)
        if clock:
            seconds += time.perf_counter() - started
        added += len(items)
    return added, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configurations", type=int, default=6496)
    parser.add_argument("--prompts", type=int, default=50)
    args = parser.parse_args()
    pool = score_pool()
    bench = SetLexSemBenchmark(dataset=[])

    added, seconds = feed(bench.tally(), pool, args.configurations, args.prompts, clock=True)
    print(f"items: {added:,} in {args.configurations:,} configurations")
    print(f"add: {1e6 * seconds / added:.2f} µs per item ({seconds:.2f} s in all, untraced)")

    tracemalloc.start()
    tally = bench.tally()
    feed(tally, pool, args.configurations, args.prompts, clock=False)
    held, peak = tracemalloc.get_traced_memory()
    print(f"tally holds: {held / 2**20:.1f} MiB after the last add (peak {peak / 2**20:.1f})")
    tracemalloc.reset_peak()
    started = time.perf_counter()
    results = tally.finish()
    finished = time.perf_counter() - started
    _, finish_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"finish: {finished:.2f} s (traced), peak {finish_peak / 2**20:.1f} MiB; "
        f"{len(results['configurations']):,} configurations, "
        f"{results['overall']['prompts']:,} scored prompts"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
