"""`make demo` and `make test` as a newcomer runs them: from a fresh clone, with pip's
cache as this machine has it (warm once anything was installed) and lexbench's cache empty;
write measurements/records/fresh_clone.json (the README quotes it).

    python measurements/performance/fresh_clone.py                 # make demo, then make test
    python measurements/performance/fresh_clone.py --targets demo

The clone is of the committed HEAD (uncommitted changes are not measured), into a new
temporary folder; `LEXBENCH_CACHE` is a new empty folder, so `make demo` pays the venv, the
packages from pip's cache, WordNet's index and sense table and the model's de-quantising.
shared/ (the papers and test data) is copied beside the clone, as CI lays it. The make logs
are kept as `$TMPDIR/lexbench-fresh-clone-make-TARGET.log`. `make test` runs in the same clone
after `make demo`, so its figure is what the test
extras (the llama-cpp-python build, from pip's cache once built), lint, docs and the suite
add. Per target: wall time, the CPU time of everything it ran, and, for the demo, the
request phase and the score its results.json holds; for the test, pytest's summary line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# recording.py, shared by both folders of scripts, sits one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recording import ROOT, Recorder, load_average, read_record

SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed).*?) in ([\d.]+)s", re.MULTILINE)


def make(target: str, clone: Path, environment: dict[str, str]) -> dict[str, Any]:
    load_before = load_average()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        ["make", target], cwd=clone, env=environment, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    (clone / f"make-{target}.log").write_text(done.stdout + done.stderr)
    # Kept after the clone is removed, for reading what failed.
    kept = Path(tempfile.gettempdir()) / f"lexbench-fresh-clone-make-{target}.log"
    kept.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        print(done.stdout[-1500:] + done.stderr[-1500:], file=sys.stderr)
    figures: dict[str, Any] = {
        "wall_s": round(seconds, 1),
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
        "exit": done.returncode,
        "load_before": load_before,
        "load_after": load_average(),
    }
    if target == "demo":
        results = sorted((clone / "runs").rglob("results.json"))
        if results:
            block = json.loads(results[-1].read_text())
            figures["requests_s"] = round(float(block.get("run", {}).get("seconds", 0.0)), 1)
            figures["overall"] = block.get("overall")
    if target == "test":
        summary = SUMMARY.findall(done.stdout)
        figures["pytest"] = summary[-1][0] if summary else None
        figures["pytest_s"] = float(summary[-1][1]) if summary else None
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", nargs="+", choices=["demo", "test"], default=["demo", "test"])
    parser.add_argument("--record", type=Path, default=None, help="write the record here")
    args = parser.parse_args()
    recorder = Recorder(
        "fresh_clone",
        caches="fresh clone; pip's cache warm, lexbench's empty",
        sources=("src/lexbench", "Makefile", "pyproject.toml"),
    )
    path = args.record or ROOT / "measurements" / "records" / "fresh_clone.json"
    results: dict[str, Any] = read_record("fresh_clone")["results"] if path.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="lexbench-clone-") as holder:
        clone = Path(holder) / "lexbench"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        shared = ROOT.parent / "shared"
        if shared.is_dir():  # as CI lays it: a copy of shared/ beside the clone
            shutil.copytree(shared, Path(holder) / "shared", symlinks=True)
        environment = {**os.environ, "LEXBENCH_CACHE": str(Path(holder) / "lexbench-cache")}
        environment.pop("VIRTUAL_ENV", None)
        for target in ("demo", "test"):
            if target in args.targets:
                results[target] = make(target, clone, environment)
                print(f"make {target}: {results[target]}")
    recorder.write(results, path=args.record)
    return 0 if all(results[t]["exit"] == 0 for t in args.targets) else 1


if __name__ == "__main__":
    sys.exit(main())
