"""`--no-published`, shared by `report`, `leaderboard` and `compare`: leave out the papers'
rows (docs/published-results.md) that they show beside comparable runs by default."""

from __future__ import annotations

import argparse


def add_published_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-published",
        dest="published",
        action="store_false",
        help="leave out the papers' published rows (shown by default beside runs whose "
        "configuration matches the paper's protocol, marked 'published, not re-run')",
    )
