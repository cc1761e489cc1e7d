"""Time to identify local weights by content: a first run hashes every byte, a second run
finds each file's digest remembered (lexbench.models.weights_identity).

    .venv/bin/python measurements/performance/weights_hashing.py [--megabytes 500]

Writes a file of random bytes of that size into a temporary model folder (with a
LEXBENCH_CACHE of its own, so the user's memo is untouched), then times `folder_sha256` on
it three ways: first (hashed), second (remembered), and after one byte was changed in place
with the mtime set back (hashed again: the ctime gave it away).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["LEXBENCH_CACHE"] = str(Path(scratch) / "cache")
        from lexbench.models.weights_identity import folder_sha256

        folder = Path(scratch) / "model"
        folder.mkdir()
        weights = folder / "model.safetensors"
        with open(weights, "wb") as handle:
            for _ in range(args.megabytes):
                handle.write(os.urandom(1 << 20))
        (folder / "config.json").write_text("{}")
        timings = {}
        for label in ("first (hashed)", "second (remembered)", "changed in place (hashed)"):
            if label.startswith("changed"):
                stat = weights.stat()
                with open(weights, "r+b") as handle:
                    handle.seek(1000)
                    byte = handle.read(1)
                    handle.seek(1000)
                    handle.write(bytes([byte[0] ^ 1]))
                os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            started = time.perf_counter()
            folder_sha256(folder)
            timings[label] = time.perf_counter() - started
        for label, seconds in timings.items():
            print(f"{args.megabytes} MB, {label}: {seconds * 1000:.1f} ms")
        print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
