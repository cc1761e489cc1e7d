"""`lexbench human ...`: human baselines, in the browser or on a CSV sheet.

    lexbench human serve lambda --sample paper --study studies/lambda [--port 8765]
    lexbench human serve ekar --data DIR --language en --study studies/ekar-en
    lexbench human results studies/lambda [--out runs]
    lexbench human lambda-export -o sheet.csv          # offline: a sheet with opaque ids
    lexbench human lambda-score sheet.csv --annotator alice
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.common import positive_int, terminal_text
from lexbench.lexicon.wordnet import PAPER_RELATIONS, RELATIONS

BENCHMARKS = ("lambda", "ekar", "scan", "setlexsem")


def _add_lambda_dataset(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("LAMBDA dataset (the items a sample is drawn from)")
    group.add_argument("--items", type=Path, default=None,
                       help="a JSONL file from `lexbench generate lambda` (default: generate "
                            "the paper's dataset now)")
    group.add_argument("--profile", choices=["strict", "listing"], default="strict")
    group.add_argument("--seed", type=int, default=42, help="generation seed (default 42)")
    group.add_argument("--per-relation", type=positive_int, default=1000,
                       help="items generated per relation (default 1000)")
    group.add_argument("--relations", nargs="+", default=list(PAPER_RELATIONS), metavar="RELATION",
                       choices=list(RELATIONS))
    group.add_argument("--wordnet", default=None,
                       help="a WordNet 3.0 database directory (default: found automatically)")


# ------------------------------------------------------------------------------ serve


def _serve(args: argparse.Namespace) -> int:
    from lexbench.human.app import serve
    from lexbench.human.sampling import open_or_create, parse_sample

    from lexbench.human.store import check_annotator

    sample = parse_sample(args.sample)
    for name in args.annotators or ():
        check_annotator(name)
    study_dir = args.study or Path("studies") / args.benchmark
    options: dict[str, Any] = {}
    if args.benchmark == "lambda":
        options = {"items": args.items, "profile": args.profile, "seed": args.seed,
                   "per_relation": args.per_relation, "relations": args.relations,
                   "wordnet": args.wordnet}
    elif args.benchmark == "ekar":
        options = {"data": args.data, "language": args.language, "split": args.split,
                   "revision": args.data_revision}
    elif args.benchmark == "scan":
        options = {"data": args.data}
    else:
        options = {"items": args.items, "grid": args.grid, "wordnet": args.wordnet}
    study, created = open_or_create(study_dir, args.benchmark, sample=sample,
                                    sample_seed=args.sample_seed, options=options,
                                    definitions=args.definitions, order=args.order)
    done = {name: study.progress(name) for name in study.annotators()}
    state = "created" if created else "resumed"
    total = len(study.items())
    print(f"study {study_dir} {state}: {args.benchmark}, {total} items")
    for name, progress in done.items():
        print(f"  {name}: {progress.done} of {progress.total} answered")
    print(f"open http://127.0.0.1:{args.port}/ (each annotator enters a name; Ctrl-C stops "
          f"the server, every answer is already saved)")
    try:
        serve(study, port=args.port, wordnet=args.wordnet, annotators=args.annotators)
    finally:
        study.close()
    return 0


# ------------------------------------------------------------------------------ results


def _results(args: argparse.Namespace) -> int:
    from lexbench.human.results import study_results

    results = study_results(args.study, out=args.out, wordnet=args.wordnet,
                            crowd=not args.no_crowd)
    print(terminal_text(results.report))
    print(f"summary: {Path(args.study) / 'results.md'} and results.json")
    return 0


# ------------------------------------------------------------------------------ sheets


def _human_export(args: argparse.Namespace) -> int:
    from lexbench.human.sampling import load_items
    from lexbench.human.sheets import export_lambda_sheet

    options = {"items": args.items, "profile": args.profile, "seed": args.seed,
               "per_relation": args.per_relation, "relations": args.relations,
               "wordnet": args.wordnet}
    items, _ = load_items("lambda", options)
    sheet, key, rows = export_lambda_sheet(items, args.output, per_relation=args.sample,
                                           seed=args.sample_seed)
    print(f"wrote {rows} items to {sheet} (fill the 'answer' column; a dictionary may be "
          f"consulted, as in the paper) and the answer key to {key} -- keep the key away from "
          f"the annotator")
    return 0


def _human_score(args: argparse.Namespace) -> int:
    from lexbench.human.sheets import score_lambda_sheet

    annotator = args.annotator or Path(args.sheet).stem
    evaluation = score_lambda_sheet(args.sheet, annotator=annotator, key=args.key, out=args.out,
                                    wordnet=args.wordnet)
    print(terminal_text(evaluation.report))
    print(f"run folder: {evaluation.folder.path}")
    return 0


def register(cli: Any) -> None:
    serve = cli.benchmark_command(
        "human", "serve", "run a human study in the browser (127.0.0.1), answers saved at once",
        _serve)
    serve.add_argument("benchmark", choices=BENCHMARKS)
    serve.add_argument("--sample", default="paper",
                       help="paper (LAMBDA: 100 per relation; E-KAR: 100 problems) or N "
                            "(LAMBDA: N per relation; others: N items)")
    serve.add_argument("--sample-seed", type=int, default=0)
    serve.add_argument("--order", choices=["same", "per-annotator"], default="same",
                       help="the order items come in: the study's own for every annotator "
                            "(default), or each annotator's own random order, the same again "
                            "after a reload (set when the study is created)")
    serve.add_argument("--study", type=Path, default=None,
                       help="the study directory (default studies/BENCHMARK); an existing "
                            "study is resumed")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--annotators", nargs="+", default=None, metavar="NAME",
                       help="only these names may annotate (default: any name)")
    serve.add_argument("--definitions", action=argparse.BooleanOptionalAction, default=None,
                       help="offer the WordNet definitions panel (default: LAMBDA and SCAN yes, "
                            "E-KAR and SetLexSem no)")
    _add_lambda_dataset(serve)
    other = serve.add_argument_group("E-KAR, SCAN and SetLexSem data")
    other.add_argument("--data", type=Path, default=None,
                       help="E-KAR: a folder with train/validation/test.json; SCAN: the CSV")
    other.add_argument("--language", choices=["en", "zh"], default="en", help="E-KAR language")
    other.add_argument("--split", choices=["train", "validation", "test"], default="validation",
                       help="E-KAR split (default validation)")
    other.add_argument("--data-revision", default="v1.1", help="E-KAR Hub revision")
    other.add_argument("--grid", default="small", help="SetLexSem grid (default small)")

    results = cli.benchmark_command(
        "human", "results",
        "score a study: a run folder per annotator (model human:NAME), agreement, crowd vote",
        _results)
    results.add_argument("study", type=Path, help="a study directory")
    results.add_argument("--out", type=Path, default=Path("runs"),
                         help="root of the run folders (default ./runs)")
    results.add_argument("--wordnet", default=None)
    results.add_argument("--no-crowd", action="store_true", help="no majority-vote run")

    export = cli.benchmark_command("human", "lambda-export",
                                   "export a LAMBDA sheet for an offline study (opaque ids)",
                                   _human_export)
    _add_lambda_dataset(export)
    export.add_argument("--sample", type=positive_int, default=100, help="items per relation")
    export.add_argument("--sample-seed", type=int, default=0)
    export.add_argument("-o", "--output", required=True, type=Path, help="CSV sheet to write")
    score = cli.benchmark_command("human", "lambda-score",
                                  "score a filled LAMBDA sheet into a run folder", _human_score)
    score.add_argument("sheet", type=Path)
    score.add_argument("--key", type=Path, default=None, help="answer key (default SHEET.key.jsonl)")
    score.add_argument("--annotator", default=None,
                       help="the annotator's name: the run's model is human:NAME (default: the "
                            "sheet's file name)")
    score.add_argument("--out", type=Path, default=Path("runs"))
    score.add_argument("--wordnet", default=None)
