"""`lexbench cache check|repair|clear`: look after the response cache.

lexbench cache check  [--cache FILE]   integrity check; exit 1 when damaged
lexbench cache repair [--cache FILE]   move a damaged file aside, rebuild from what reads
lexbench cache clear  [--cache FILE] --yes   delete every cached response
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def _path(args: argparse.Namespace) -> Path:
    from lexbench.run.cache import default_cache_path

    return Path(args.cache) if args.cache else default_cache_path()


def _check(args: argparse.Namespace) -> int:
    from lexbench.run.cache_repair import check_cache

    path = _path(args)
    checked = check_cache(path)
    print(checked.line)
    if not checked.healthy:
        print(f"repair it with: lexbench cache repair --cache {path}  (or run with --no-cache)")
        return 1
    return 0


def _repair(args: argparse.Namespace) -> int:
    from lexbench.run.cache_repair import check_cache, repair_cache

    path = _path(args)
    checked = check_cache(path)
    if checked.healthy and not args.force:
        print(f"{checked.line}; nothing to repair (--force rebuilds it anyway)")
        return 0
    repair = repair_cache(path)
    dropped = (
        f"; dropped {repair.dropped} stored answer(s) that were not valid answers"
        if repair.dropped
        else ""
    )
    print(
        f"moved the damaged cache to {repair.aside} and rebuilt {path} with the "
        f"{repair.kept} responses that could be read{dropped}; the rest are asked again on "
        f"the next run (delete {repair.aside} once you no longer need it)"
    )
    if repair.leftovers:
        print(
            f"its write-ahead log could not be folded into it (damaged) and stays beside it: "
            f"{', '.join(str(p) for p in repair.leftovers)}"
        )
    return 0


def _clear(args: argparse.Namespace) -> int:
    from lexbench.run.cache_repair import refuse_a_folder, sidecar_files

    path = _path(args)
    refuse_a_folder(path)
    if not args.yes:
        raise ValueError(f"this deletes every cached response in {path}; add --yes to confirm")
    removed = [p for p in sidecar_files(path) if p.exists()]
    for part in removed:
        part.unlink()
    print(f"removed {path}" if removed else f"{path}: no cache to remove")
    return 0


def register(cli: Any) -> None:
    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser: argparse.ArgumentParser = cli.command(
        "cache", "check, repair or clear the response cache", usage
    )
    verbs = parser.add_subparsers(dest="cache_command", metavar="ACTION")
    for name, handler, text in (
        ("check", _check, "check the cache file's integrity (exit 1 when it is damaged)"),
        (
            "repair",
            _repair,
            "move a damaged cache aside and rebuild it from the responses that can still be read",
        ),
        ("clear", _clear, "delete every cached response (asks for --yes)"),
    ):
        sub = verbs.add_parser(name, help=text, description=text)
        sub.set_defaults(handler=handler)
        sub.add_argument(
            "--cache",
            type=Path,
            default=None,
            help="the cache file (default: ~/.cache/lexbench/responses/responses.sqlite)",
        )
        if name == "repair":
            sub.add_argument(
                "--force",
                action="store_true",
                help="rebuild even when the check finds nothing wrong",
            )
        if name == "clear":
            sub.add_argument("--yes", action="store_true", help="confirm the deletion")
