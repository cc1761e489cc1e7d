"""Time the authors' SetLexSem answer reading (`--parser paper`) against a transcription of
their regex on outputs full of unclosed `<answer>` tags, where the regex is quadratic.

    .venv/bin/python measurements/performance/setlexsem_paper_parse_speed.py [--tags 2000 4000 8000]

For each count of tags, prints the seconds lexbench's one-pass reading takes and the seconds
`re.findall(r"(?<=<answer>)(.*?)(?=</answer>)", text, re.DOTALL)` (the authors' first step)
takes on the same text, and checks that both find the same spans.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from lexbench.benchmarks.setlexsem.paper_parse import paper_read, tagged_spans

AUTHORS_SPAN = re.compile(r"(?<=<answer>)(.*?)(?=</answer>)", re.DOTALL)


def seconds(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description="Time the paper answer reading.")
    parser.add_argument("--tags", type=int, nargs="+", default=[2000, 4000, 8000])
    args = parser.parse_args()
    print("| unclosed tags | lexbench paper_read (s) | authors' regex findall (s) |")
    print("|---:|---:|---:|")
    for count in args.tags:
        text = "<answer>" * count + "1"
        if tagged_spans(text) != AUTHORS_SPAN.findall(text):
            raise SystemExit(f"spans differ at {count} tags")
        ours = seconds(paper_read, text)
        theirs = seconds(AUTHORS_SPAN.findall, text)
        print(f"| {count} | {ours:.4f} | {theirs:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
