"""Agreement of LAMBDA's error taxonomy with hand labels: per class with Wilson intervals,
and the confusion matrix (Markdown, to stdout).

    .venv/bin/python measurements/studies/lambda_taxonomy_validate.py --set A
    .venv/bin/python measurements/studies/lambda_taxonomy_validate.py \
        --labels tests/fixtures/lambda/taxonomy_labels.jsonl

`--labels` defaults to tests/fixtures/lambda/taxonomy_validation.jsonl (sets A and B, see
measurements/studies/lambda_taxonomy_collect.py); `--set` keeps the rows of one set or split (repeat
it for several). Needs the prepared WordNet; uses the packaged GloVe when installed, as runs do.
`--random-words N` adds a check that reads no labels: N random common words (wordfreq ranks
1,000-20,000 that are WordNet lemmas) given as answers to the file's items, and how many
the taxonomy files as semantic drift (seeded: `--seed`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_LABELS = ROOT / "tests" / "fixtures" / "lambda" / "taxonomy_validation.jsonl"


def main(argv: list[str] | None = None) -> int:
    from lexbench.benchmarks.lambda_.drift import drift_finder
    from lexbench.benchmarks.lambda_.validation import (
        Agreement,
        classify_rows,
        common_words,
        load_labelled,
        random_answer_check,
        render_agreement,
    )
    from lexbench.lexicon.wordnet.index_cache import load_index

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", default=str(DEFAULT_LABELS))
    parser.add_argument("--set", action="append", dest="sets", help="A, B, development, ...")
    parser.add_argument("--random-words", type=int, default=0, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
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
    if args.random_words:
        check = random_answer_check(
            rows, common_words(index), index, drift, pairs=args.random_words, seed=args.seed
        )
        rate = check.rate
        print(
            f"random common words as answers (seed {args.seed}): {check.drift} of "
            f"{check.pairs} filed as semantic drift = {rate.estimate:.1%} "
            f"[{rate.low:.1%}, {rate.high:.1%}]"
        )
        for query, word, why in check.examples:
            print(f"  {query} -> {word} ({why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
