"""Agreement of LAMBDA's error taxonomy with hand labels: per class with Wilson intervals,
and the confusion matrix (Markdown, to stdout).

    .venv/bin/python benchmarks/lambda_taxonomy_validate.py --set A
    .venv/bin/python benchmarks/lambda_taxonomy_validate.py \
        --labels tests/fixtures/lambda/taxonomy_labels.jsonl

`--labels` defaults to tests/fixtures/lambda/taxonomy_validation.jsonl (sets A and B, see
benchmarks/lambda_taxonomy_collect.py); `--set` keeps the rows of one set or split (repeat
it for several). Needs the prepared WordNet; uses the packaged GloVe when installed, as runs do.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_LABELS = ROOT / "tests" / "fixtures" / "lambda" / "taxonomy_validation.jsonl"


def main(argv: list[str] | None = None) -> int:
    from lexbench.benchmarks.lambda_.drift import drift_finder
    from lexbench.benchmarks.lambda_.validation import (
        Agreement,
        classify_rows,
        load_labelled,
        render_agreement,
    )
    from lexbench.lexicon.wordnet import load_index

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", default=str(DEFAULT_LABELS))
    parser.add_argument("--set", action="append", dest="sets", help="A, B, development, ...")
    args = parser.parse_args(argv)
    meta, rows = load_labelled(args.labels)
    if args.sets:
        known = sorted({r.part for r in rows})
        unknown = sorted(set(args.sets) - set(known))
        if unknown:
            parser.error(f"--set {', '.join(unknown)}: the file has {', '.join(known)}")
        rows = [r for r in rows if r.part in args.sets]
    index = load_index(progress=False)
    drift = drift_finder(index)
    agreement = Agreement(
        labels=tuple(r.label for r in rows), predicted=tuple(classify_rows(rows, index, drift))
    )
    if meta:
        print(f"labelled by {meta['labelled_by']} on {meta['labelled_on']}\n")
    where = ", ".join(args.sets) if args.sets else "all rows"
    print(render_agreement(agreement, f"{Path(args.labels).name}: {where}; {drift.signals}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
