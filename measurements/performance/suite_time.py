"""The test suite's wall time in this checkout, as `make test` runs it (`pytest -n auto`,
pytest-xdist on every core) and, with `--serial`, on one core as before; write
measurements/records/suite_time.json (docs/contributing.md quotes it).

    python measurements/performance/suite_time.py            # pytest -q -n auto
    python measurements/performance/suite_time.py --serial   # and pytest -q, for the comparison

Run it on an otherwise idle machine with the test extras installed (`make setup-test`) and
the user's lexbench cache warm (the model de-quantised, WordNet prepared): the figure is the
suite, not the one-time setup. The slowest tests are printed (`--durations=40`).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# recording.py, shared by both folders of scripts, sits one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recording import ROOT, Recorder, load_average

SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed).*?) in [\d.]+s", re.MULTILINE)


def suite(extra: list[str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    command += ["--durations=40"]
    load_before = load_average()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    print(done.stdout[-6000:])
    summary = SUMMARY.findall(done.stdout)
    return {
        "pytest_args": " ".join(extra),
        "wall_s": round(seconds, 1),
        "summary": summary[-1] if summary else None,
        "exit": done.returncode,
        "load_before": load_before,
        "load_after": load_average(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serial", action="store_true", help="also time the suite on one core")
    parser.add_argument("--record", type=Path, default=None, help="write the record here")
    args = parser.parse_args()
    recorder = Recorder(
        "suite_time",
        caches="warm (user cache prepared, test extras installed)",
        sources=("src/lexbench", "tests"),
    )
    results = {"parallel": suite(["-n", "auto", "--dist", "loadfile"])}
    if args.serial:
        results["serial"] = suite([])
    recorder.write(results, path=args.record)
    return max(result["exit"] for result in results.values())


if __name__ == "__main__":
    sys.exit(main())
