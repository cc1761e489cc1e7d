"""LAMBDA from a WN-LMF file at the scale of a whole wordnet: the CPU and peak memory of
`lexbench generate lambda --wordnet-lmf FILE` (the default 3,000 items), the first command
(which builds the relation index and caches it) and the later ones (which read it), beside the
native WordNet 3.0 command; and whether the item files are byte-identical.

    .venv/bin/python measurements/performance/lambda_lmf_scale.py [--lmf FILE] [--runs 3]

Without --lmf, the prepared WordNet 3.0 is written as WN-LMF first (72 MB, by
tests/fixtures/wordnet_lmf/write_wordnet_lmf.py) into a temporary folder. The WN-LMF index is
built in a temporary cache (so the first command is truly cold); the native command reads
the user's cache (warm). Each command is a fresh process; CPU is user + system, from
`os.wait4`, with the load average beside it (the target: a later command at most 2 s of CPU).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def command(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, peak resident MB) of one `lexbench` command in a fresh process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lexbench.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    errors = process.stderr.read().decode() if process.stderr else ""
    if status != 0:
        raise SystemExit(f"lexbench {' '.join(args)} failed:\n{errors}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lmf", default=None, help="a WN-LMF file (default: WordNet 3.0 written)")
    parser.add_argument("--runs", type=int, default=3, help="later commands to time")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        lmf = Path(options.lmf) if options.lmf else work / "wn30.xml"
        if options.lmf is None:
            # In a process of its own: Linux counts a parent's peak memory in a child's
            # `ru_maxrss` (kept across fork and exec), so this process stays small.
            converter = ROOT / "tests" / "fixtures" / "wordnet_lmf" / "write_wordnet_lmf.py"
            subprocess.run([sys.executable, str(converter), str(lmf)], check=True)
        print(f"WN-LMF file: {lmf} ({lmf.stat().st_size / 1e6:.1f} MB)")
        user = dict(os.environ)
        cold = {**user, "LEXBENCH_CACHE": str(work / "cache")}
        rows = []
        lmf_out, native_out = work / "lmf.jsonl", work / "native.jsonl"
        lmf_args = ["generate", "lambda", "--wordnet-lmf", str(lmf), "-o", str(lmf_out)]
        rows.append(("WN-LMF, first (builds the index)", *command(lmf_args, cold)))
        for run in range(options.runs):
            rows.append((f"WN-LMF, later #{run + 1} (reads it)", *command(lmf_args, cold)))
        native_args = ["generate", "lambda", "-o", str(native_out)]
        command(native_args, user)  # the user's native index built, if it was not
        for run in range(options.runs):
            rows.append((f"native WordNet 3.0, warm #{run + 1}", *command(native_args, user)))
        print(f"\n{'command (3,000 items)':40} {'CPU s':>7} {'peak MB':>8}")
        for name, cpu, peak in rows:
            print(f"{name:40} {cpu:7.2f} {peak:8.0f}")
        same = lmf_out.read_bytes() == native_out.read_bytes()
        print(f"\nitem files byte-identical: {same}")
        print(f"load average (1, 5, 15 min): {os.getloadavg()}, CPUs: {os.cpu_count()}")


if __name__ == "__main__":
    main()
