"""What a measurement script writes: measurements/records/<name>.json, whatever its folder.

Every time, memory or score the README and docs/ quote is read from one of these records
(measurements/figures.toml says which record field each quoted figure is, and
tests/docs/test_docs_figures.py checks that the page says what the record says). A record
holds the figures (`results`) and how they were made: the command line, the date, the CPU,
the load average before and after, whether lexbench's caches were cold or warm, and the
commit measured.

    record = Recorder("quick_checks", caches="cold, then warm")   # at the start
    ...measure...
    record.write({"lambda": {"wall_s": 267.0, "cpu_s": 72.0}})    # at the end

`status` is "measured" for a record a script wrote; "carried from docs, to re-measure" marks
a record typed in from the figures the docs quoted before records existed (their provenance
is the docs' text); `python measurements/measure_all.py` replaces those.
"""

from __future__ import annotations

import datetime as _datetime
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MEASUREMENTS = ROOT / "measurements"
RECORDS = MEASUREMENTS / "records"
#: The folders of scripts, by what they measure: time, memory, CPU, throughput and cost; and
#: whether results agree or are right (the Results page among them). A record is named by
#: its script's name alone, so a name is used in one folder only.
FOLDERS = ("performance", "studies")
MEASURED = "measured"
CARRIED = "carried from docs, to re-measure"


def script_path(name: str) -> Path:
    """The script measurements/<folder>/<name>.py (the one folder that holds that name)."""
    candidates = (MEASUREMENTS / folder / f"{name}.py" for folder in FOLDERS)
    found = [path for path in candidates if path.is_file()]
    if len(found) != 1:
        folders = " or ".join(f"measurements/{folder}/" for folder in FOLDERS)
        raise FileNotFoundError(f"{name}.py: {len(found)} scripts of that name in {folders}")
    return found[0]


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo; the platform's processor elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit() -> str:
    """The commit measured, with "+changes" when the work tree differs from it."""

    def git(*arguments: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(ROOT), *arguments], capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def source_digest(sources: list[str]) -> str:
    """sha256 over the Python files (path and bytes) under `sources`, repository-relative: a
    record measured on other code than the work tree's has another digest
    (tests/docs/test_docs_figures.py reports it as stale)."""
    digest = hashlib.sha256()
    for source in sorted(sources):
        root = ROOT / source
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in files:
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def load_average() -> float:
    return round(os.getloadavg()[0], 1)


class Recorder:
    """Notes the start of a measurement (its command, load, date) and writes its record."""

    def __init__(
        self,
        script: str,
        *,
        caches: str,
        sources: tuple[str, ...] = ("src/lexbench",),
        argv: list[str] | None = None,
    ) -> None:
        self.script = script
        self.path = script_path(script).relative_to(ROOT).as_posix()
        self.caches = caches
        self.sources = list(sources)
        arguments = sys.argv[1:] if argv is None else argv
        self.command = shlex.join(["python", self.path, *arguments])
        self.started = _datetime.datetime.now(_datetime.UTC)
        self.load_before = load_average()

    def write(
        self,
        results: dict[str, Any],
        *,
        path: Path | None = None,
        status: str = MEASURED,
        load_after: float | None = None,
    ) -> Path:
        """Write the record; `status` CARRIED where some of `results` were kept from a
        record typed in from the docs (a script that re-measures part of its record);
        `load_after` where the measurement ended before the record is written (a record
        summarised again from the measurement's output)."""
        record = {
            "script": self.path,
            "command": self.command,
            "status": status,
            "date": self.started.strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "load": {
                "before": self.load_before,
                "after": load_average() if load_after is None else load_after,
            },
            "caches": self.caches,
            "commit": commit(),
            "sources": self.sources,
            "source_digest": source_digest(self.sources),
            "results": results,
        }
        target = path or RECORDS / f"{self.script}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(
            f"record written: {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}"
        )
        return target


def read_record(name: str) -> dict[str, Any]:
    return json.loads((RECORDS / f"{name}.json").read_text())
