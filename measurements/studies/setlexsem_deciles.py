"""SetLexSem's frequency deciles (Table 7) on the authors' scale and on the scale-free anchor.

    .venv/bin/python measurements/studies/setlexsem_deciles.py

Prints, for the 65,097 web2 words wordfreq ranks:

1. the decile sizes (all words, three-letter, five-letter) with the paper grid's anchoring
   (`global_books_scale`: wordfreq shares x Google Books' 2008 tokens, the authors' rarest
   count 1) and with the scale-free one (`global`: the rarest ranked word counts 1);
2. Table 7's N per decile (length-5/length-3 configuration pairs) from the planned deciles
   study of each anchoring, beside the paper's;
3. where wordfreq's floor lands on the authors' scale, and how Table 7's N moves with the
   corpus size and the rarest count (the anchors' sensitivity), from the pool sizes with
   the generator's own feasibility rule (`require_pairs`).
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from lexbench.benchmarks.setlexsem.builtin import PAPER_K, PAPER_SIZES
from lexbench.benchmarks.setlexsem.deciles import (
    BOOKS_SCALE,
    GOOGLE_BOOKS_2008_TOKENS,
    books_scale_deciles,
    decile_table,
)
from lexbench.benchmarks.setlexsem.generate import ItemGenerator
from lexbench.benchmarks.setlexsem.grid_read import resolve_grid
from lexbench.benchmarks.setlexsem.sets import InfeasibleCell, require_pairs
from lexbench.lexicon.words import DecileTable, english_frequencies, web2_words

PAPER_TABLE7_N = (0, 96, 128, 128, 128, 128, 128, 128, 96)
# Configurations of one decile, length and size: 4 operations x 4 k x 2 methods.
PER_SIZE = 4 * len(PAPER_K) * 2


def planned_table7(scope: str) -> list[int]:
    """Table 7's N per decile 1..9 from the paper grid's deciles study planned in `scope`."""
    grid = resolve_grid("paper")
    study = next(s for s in grid.studies if s.name == "deciles")
    planned, _ = ItemGenerator(replace(grid, studies=(replace(study, decile_scope=scope),))).plan()
    lengths: dict[tuple[object, ...], set[int]] = defaultdict(set)
    for cell in planned:
        key = (cell.set_config["decile"], cell.set_config["m"], *cell.prompt_config.values())
        lengths[key].add(cell.set_config["token_length"])
    return [sum(1 for k, v in lengths.items() if k[0] == d and v == {3, 5}) for d in range(1, 10)]


def table7_from_sizes(table: DecileTable, needed: int) -> list[int]:
    """Table 7's N per decile from pool sizes alone (a size counts when both lengths fill it)."""
    out = []
    for decile in range(1, 10):
        band = table.decile(decile)
        pools = [sum(1 for w in band if len(w) == length) for length in (3, 5)]
        sizes = 0
        for m in PAPER_SIZES:
            try:
                for size in pools:
                    require_pairs(size, m, needed, "")
            except InfeasibleCell:
                continue
            sizes += 1
        out.append(PER_SIZE * sizes)
    return out


def sizes(table: DecileTable, length: int | None = None) -> str:
    return " ".join(
        f"{sum(1 for w in b if length is None or len(w) == length):,}" for b in table.bands
    )


def main() -> int:
    grid = resolve_grid("paper")
    needed = grid.prompts_per_config + max(PAPER_K)
    for scope in (BOOKS_SCALE, "global"):
        table = decile_table(scope)
        print(f"{scope}: decile sizes 1-10 over {table.ranked:,} ranked words")
        print(f"  all words:   {sizes(table)}")
        print(f"  three-letter: {sizes(table, 3)}")
        print(f"  five-letter:  {sizes(table, 5)}")
        print(f"  Table 7 N (planned): {planned_table7(scope)}")
    print(f"the paper's Table 7 N: {list(PAPER_TABLE7_N)}")

    frequencies = english_frequencies()
    known = {w: frequencies[w] for w in web2_words() if frequencies.get(w, 0.0) > 0.0}
    rarest, commonest = min(known.values()), max(known.values())
    floor = math.log(rarest * GOOGLE_BOOKS_2008_TOKENS) / math.log(
        commonest * GOOGLE_BOOKS_2008_TOKENS
    )
    print(
        f"\nwordfreq's rarest ranked share {rarest:.3g} x {GOOGLE_BOOKS_2008_TOKENS:,} tokens = "
        f"a count of {rarest * GOOGLE_BOOKS_2008_TOKENS:.0f}; its commonest ({commonest:.3g}) "
        f"{commonest * GOOGLE_BOOKS_2008_TOKENS:.3g}: the floor sits at {floor:.3f} of the "
        f"authors' scale (decile {int(floor * 10) + 1}; deciles 1-{int(floor * 10)} hold no word)"
    )
    print("\nTable 7 N by corpus size and the authors' rarest count (pool sizes):")
    for total in (5e9, 1e10, GOOGLE_BOOKS_2008_TOKENS, 5e10):
        for rarest_count in (1.0, 2.0, 10.0):
            table = books_scale_deciles(web2_words(), known, total, rarest_count)
            print(
                f"  {total:9.3g} tokens, rarest count {rarest_count:4g}: "
                f"{table7_from_sizes(table, needed)}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
