"""Time the generation of a whole SetLexSem grid (paper: 324,800 prompts; target: under 60 s).

    .venv/bin/python measurements/performance/setlexsem_generate.py
        [--grid paper|lexbench|small|FILE] [--output FILE]

Prints, separately: loading the resources (web2 words, wordfreq deciles, WordNet hyponym
pools; the pools are cached on disk after the first run, a cold build walks WordNet through
NLTK in about 30 s), then planning (drawing and validating every cell) and writing every
prompt, then the total, with the counts, the cells left out and the size of the file.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))


def main() -> int:
    parser = argparse.ArgumentParser(description="Time SetLexSem grid generation.")
    parser.add_argument("--grid", default="paper", help="paper (default), small or a grid file")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="where to write the JSONL (default: a temporary file, deleted)",
    )
    args = parser.parse_args()

    started = time.perf_counter()
    from lexbench.benchmarks.setlexsem.benchmark import write_items
    from lexbench.benchmarks.setlexsem.deciles import decile_table
    from lexbench.benchmarks.setlexsem.grid_read import resolve_grid
    from lexbench.benchmarks.setlexsem.hyponym_pools import load_hyponym_pools
    from lexbench.lexicon.words import web2_words

    grid = resolve_grid(args.grid)
    web2_words()
    for study in grid.studies:
        if "deciles" in study.token_types:
            for length in sorted(n for n in study.token_lengths if n is not None):
                decile_table(study.decile_scope, length)
    if any("deceptive" in s.token_types for s in grid.studies):
        load_hyponym_pools()
    loaded = time.perf_counter()

    with tempfile.TemporaryDirectory() as scratch:
        output = args.output or Path(scratch) / "setlexsem.jsonl"
        meta = write_items(output, grid)
        written = time.perf_counter()
        size = output.stat().st_size

    print(
        f"grid {args.grid}: {meta['prompts']} prompts, {meta['configurations']} configurations "
        f"x {grid.prompts_per_config}; {size / 1e6:.1f} MB; sha256 {meta['content_sha256'][:16]}"
    )
    for study, counts in meta["per_study"].items():
        left_out = sum(1 for cell in meta["skipped_cells"] if cell["study"] == study)
        print(
            f"  {study}: {counts['configurations']} configurations, {counts['prompts']} prompts, "
            f"{left_out} cells left out"
        )
    print(f"load resources: {loaded - started:.2f} s")
    print(
        f"generate + write: {written - loaded:.2f} s "
        f"({meta['prompts'] / max(written - loaded, 1e-9):,.0f} prompts/s)"
    )
    print(f"total: {written - started:.2f} s (target < 60 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
