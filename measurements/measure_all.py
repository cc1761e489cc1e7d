"""Re-measure the figures the README and docs/ quote: run the measurement scripts that
write measurements/records/*.json, one after another, each with the command line its record
names; then `pytest tests/docs/test_docs_figures.py` says which quoted figures now differ.

    python measurements/measure_all.py --list              # the scripts, their cost, their records' state
    python measurements/measure_all.py                     # every one (about 50 min on 2 idle cores)
    python measurements/measure_all.py --only quick_checks setlexsem_scale

Run it on an idle machine (the records keep the load average; a figure measured at load 6
is not one a reader gets): nothing else running, `make setup-test` done. Each script
rewrites its record (date, CPU, load, cache state, commit); the pages are then brought in
line by hand, since the words around a figure may have to change with it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recording import RECORDS, ROOT, read_record, script_path


@dataclass(frozen=True)
class Measurement:
    name: str  # the script measurements/<folder>/<name>.py, its record records/<name>.json
    runs: tuple[tuple[str, ...], ...]  # the script's arguments, once per run
    cost: str  # what it costs, on 2 idle cores


MEASUREMENTS = (
    Measurement(
        "quick_checks",
        ((),),
        "about 25 min: five quick checks (3,000 + 300 LAMBDA items, SetLexSem's 144 prompts, "
        "SCAN, `run all --limit 5`) each cold then warm, and the one-time setup's steps",
    ),
    Measurement(
        "setlexsem_scale",
        (("--sizes", "20000", "100000", "302400", "--spread", "3"),),
        "about 4 min and 1 GB of /tmp: the paper grid generated once, then 4 runs against "
        "the fake server",
    ),
    Measurement(
        "fresh_clone",
        ((),),
        "about 20 min with pip's cache warm (40 min cold: llama-cpp-python compiles): "
        "`make demo` then `make test` in a fresh clone of HEAD",
    ),
    Measurement(
        "suite_time",
        ((),),
        "about 12 min: the test suite on every core (`--serial` adds about 20 min more)",
    ),
    Measurement(
        "results_page",
        ((),),
        "about 40 min on 2 cores shared at load 7 (a fresh response cache): LAMBDA's first "
        "100 items per relation on SmolLM2 and Gemma in both prompt styles, then `run all` over "
        "SmolLM2, Gemma and GloVe with --limit 20 (SetLexSem --limit 2); writes "
        "docs/results.md and its figure from the record",
    ),
    Measurement(
        "thread_contention",
        (("--limit", "10", "--rounds", "2"),),
        "about 15 min on 2 busy cores: 12 processes of the packaged SmolLM2 on 30 LAMBDA "
        "items, torch's wait before and after, alone and beside two spinning processes",
    ),
    Measurement(
        "lm_eval_side_by_side",
        (("--prompt-style", "paper"), ("--prompt-style", "completion")),
        "about 10 min on 2 CPU cores (3,000 LAMBDA prompts through lm_eval and lexbench, "
        "both prompt styles); the H100 rows: `--device cuda` (and `--harness-batch-size 1`) "
        "on a GPU machine",
    ),
)


def state(name: str) -> str:
    if not (RECORDS / f"{name}.json").is_file():
        return "no record"
    record = read_record(name)
    return f"{record['status']}, {record.get('date') or 'date unknown'}, load {record['load']}"


def main() -> int:
    names = [measurement.name for measurement in MEASUREMENTS]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=names, default=names, metavar="NAME")
    parser.add_argument("--list", action="store_true", help="list the scripts and stop")
    args = parser.parse_args()
    chosen = [m for m in MEASUREMENTS if m.name in args.only]
    for measurement in chosen:
        script = script_path(measurement.name).relative_to(ROOT)
        print(f"{measurement.name}: {measurement.cost}\n    script: {script}")
        print(f"    record: {state(measurement.name)}")
    if args.list:
        return 0
    failed = []
    for measurement in chosen:
        print(f"\n== {measurement.name}, expected: {measurement.cost}", flush=True)
        for arguments in measurement.runs:
            script = script_path(measurement.name).relative_to(ROOT)
            command = [sys.executable, str(script), *arguments]
            print(f"== {' '.join(command[1:])}", flush=True)
            started = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, check=False)
            seconds = time.perf_counter() - started
            print(f"== {measurement.name}: exit {done.returncode} after {seconds:.0f} s")
            if done.returncode != 0:
                failed.append(measurement.name)
    if failed:
        print(f"failed: {', '.join(failed)} (their records may be partial)", file=sys.stderr)
    print("now: python -m pytest tests/docs/test_docs_figures.py (the pages against the records)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
