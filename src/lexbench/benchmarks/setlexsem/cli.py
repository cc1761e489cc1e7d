"""`lexbench generate setlexsem` and `lexbench run setlexsem`."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from lexbench.commands.arguments import add_limit_argument
from lexbench.commands.numbers import NEW_TOKENS, NON_NEGATIVE, PROBABILITY_MASS, SEED, TEMPERATURE

GRID_HELP = (
    "paper (the paper's design: 6,048 configurations x 50 prompts), lexbench (the "
    "paper's studies plus lexbench's own, reported apart), small (a quick check), or a "
    "grid file (.toml, or .py defining GRID)"
)


def _add_grid_argument(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--grid", default=default, help=f"{GRID_HELP} (default: {default})")
    parser.add_argument(
        "--wordnet",
        "--data",
        dest="wordnet",
        default=None,
        help="a WordNet 3.0 database directory, the data of the word sets "
        "(default: found automatically)",
    )


def _add_decoding_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("decoding (overrides the grid's; recorded in every row)")
    group.add_argument(
        "--temperature",
        type=TEMPERATURE,
        default=None,
        help="0 = greedy (default); the paper used 0.25 with --top-k 20 --top-p 0.25",
    )
    group.add_argument("--top-p", type=PROBABILITY_MASS, default=None)
    group.add_argument("--top-k", type=NON_NEGATIVE, default=None, help="0: off")
    group.add_argument(
        "--max-new-tokens",
        type=NEW_TOKENS,
        default=None,
        help="budget for the answer-only methods (the base prompts; default 256)",
    )
    group.add_argument(
        "--reasoning-max-new-tokens",
        type=NEW_TOKENS,
        default=None,
        help="budget for the methods that think first (CoT and self-reflection; default 1024)",
    )
    group.add_argument(
        "--stop-at-answer",
        action="store_true",
        help="stop generating at </answer> (saves time; the tag then counts as closed)",
    )
    group.add_argument("--decoding-seed", type=SEED, default=None, help="sampling seed")


def _add_select_argument(parser: argparse.ArgumentParser) -> None:
    from lexbench.benchmarks.setlexsem.files import SELECTABLE

    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="FIELD=V1,V2",
        help="keep only the configurations matching (repeatable; fields: "
        f"{', '.join(SELECTABLE)}), e.g. --select study=deceptive "
        "--select k=0 --select m=2,4",
    )


def _decoding_overrides(args: argparse.Namespace) -> dict[str, Any]:
    overrides = {
        "temperature": args.temperature,
        "top_p": args.top_p,
        "top_k": args.top_k,
        "max_new_tokens": args.max_new_tokens,
        "reasoning_max_new_tokens": args.reasoning_max_new_tokens,
        "seed": args.decoding_seed,
    }
    if args.stop_at_answer:
        overrides["stop"] = ["</answer>"]
    return {k: v for k, v in overrides.items() if v is not None}


def _generate(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.setlexsem.benchmark import write_items
    from lexbench.benchmarks.setlexsem.grid_read import resolve_grid

    grid = resolve_grid(args.grid)
    overrides = _decoding_overrides(args)
    if overrides:
        grid = grid.with_decoding(**overrides)
    started = time.perf_counter()
    meta = write_items(args.output, grid, args.wordnet)
    seconds = time.perf_counter() - started
    print(
        f"wrote {meta['prompts']} prompts ({meta['configurations']} configurations x "
        f"{grid.prompts_per_config}) to {args.output} in {seconds:.1f}s "
        f"(sha256 {meta['content_sha256'][:16]}…) and {args.output}.manifest.json"
    )
    skipped: dict[str, int] = {}
    for cell in meta["skipped_cells"]:
        skipped[cell["study"]] = skipped.get(cell["study"], 0) + 1
    print("| study | configurations | prompts | cells left out (pool too small) |")
    print("|---|---:|---:|---:|")
    for study, counts in meta["per_study"].items():
        print(
            f"| {study} | {counts['configurations']} | {counts['prompts']} | "
            f"{skipped.get(study, 0)} |"
        )
    print("(a configuration shared by two studies is generated once and counted in both)")
    if meta["skipped_cells"]:
        reasons: dict[str, int] = {}
        for cell in meta["skipped_cells"]:
            reasons[cell["reason"]] = reasons.get(cell["reason"], 0) + 1
        print(f"{len(meta['skipped_cells'])} cells left out (listed in the manifest):")
        for reason, count in sorted(reasons.items()):
            print(f"  {count} x {reason}")
    return 0


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The builder options of `lexbench run setlexsem` (its slice and WordNet are shared);
    plain JSON values, as config.json records them for `lexbench rescore`."""
    return {
        "grid": str(args.grid),
        "items": None if args.items is None else str(args.items),
        "select": list(args.select or ()),
        "decoding": _decoding_overrides(args) or None,
        "parser": args.parser,
    }


def _export(args: argparse.Namespace) -> int:
    import tempfile

    from lexbench.benchmarks.setlexsem.benchmark import read_items, write_items
    from lexbench.benchmarks.setlexsem.export import write_setlexsem_hf_dataset
    from lexbench.run.files import read_manifest

    if args.format != "hf":  # lm-eval, inspect: the shared exporters, lexbench's scorer
        from lexbench.export.formats import export

        options = {"items": args.items} if args.items is not None else {"grid": args.grid}
        options.update(wordnet=args.wordnet, select=args.select or None)
        print(export("setlexsem", options, args.format, args.output))
        return 0
    if args.items is not None:
        items = read_items(args.items)
        meta = read_manifest(args.items, "lexbench generate setlexsem")
    else:
        with tempfile.TemporaryDirectory() as work:
            meta = write_items(f"{work}/items.jsonl", args.grid, args.wordnet)
            items = read_items(f"{work}/items.jsonl")
    if args.select:  # the same configurations the lm-eval and inspect exports keep
        from lexbench.benchmarks.setlexsem.files import parse_selection, select_items

        items = select_items(items, parse_selection(args.select))
        meta = {**meta, "select": list(args.select)}
    out = write_setlexsem_hf_dataset(args.output, items, meta)
    print(
        f"wrote {len(items)} rows to {out} (split 'test'); load them with\n"
        f"  datasets.load_dataset({str(out)!r}, split='test')"
    )
    return 0


def register(cli: Any) -> None:
    generate = cli.benchmark_command(
        "generate",
        "setlexsem",
        "generate SetLexSem prompts from a grid (JSONL + manifest)",
        _generate,
    )
    _add_grid_argument(generate, default="paper")
    _add_decoding_arguments(generate)
    generate.add_argument("-o", "--output", required=True, type=Path, help="output JSONL file")

    export = cli.benchmark_command(
        "export",
        "setlexsem",
        "export SetLexSem prompts as a Hugging Face dataset, an lm-eval or an inspect_ai task",
        _export,
    )
    _add_grid_argument(export, default="small")
    export.add_argument(
        "--items",
        type=Path,
        default=None,
        help="a JSONL file from `lexbench generate setlexsem` (default: --grid)",
    )
    from lexbench.export.formats import FORMAT_HELP, FORMATS

    export.add_argument("--format", choices=FORMATS, default="hf", help=FORMAT_HELP)
    _add_select_argument(export)  # lm-eval and inspect exports
    export.add_argument("-o", "--output", required=True, type=Path, help="output folder")

    from lexbench.commands.requests import RunCommand

    run = cli.run_command("setlexsem", "evaluate a model on SetLexSem", RunCommand(_run_options))
    _add_grid_argument(run, default="paper")
    run.add_argument(
        "--items",
        type=Path,
        default=None,
        help="a JSONL file from `lexbench generate setlexsem` (default: generate from --grid now)",
    )
    add_limit_argument(run, "configuration")
    _add_select_argument(run)
    run.add_argument(
        "--parser",
        choices=["paper", "lexbench"],
        default="paper",
        help="how answers are read for the tables: paper (default) = the authors' "
        "parse_lm_response and is_correct, quirks included; lexbench = lexbench's lenient "
        "reading (number words, 1.0, 'A ∪ B = {...}', none/nothing, any case). Every "
        "answer is read both ways and the report counts the items they judge differently",
    )
    _add_decoding_arguments(run)
