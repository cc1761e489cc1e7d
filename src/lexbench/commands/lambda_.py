"""`lexbench generate|run|human lambda` and `lexbench rescore`."""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path
from typing import Any

from lexbench.commands.common import (
    add_model_arguments,
    add_run_arguments,
    model_options,
    positive_int,
    run_and_report,
)
from lexbench.lexicon.wordnet import PAPER_RELATIONS, RELATIONS


def _add_dataset_arguments(parser: argparse.ArgumentParser, *, per_relation_default: int) -> None:
    group = parser.add_argument_group("dataset")
    group.add_argument("--profile", choices=["strict", "listing"], default="strict",
                       help="strict: the paper's text (default); listing: its generation script")
    group.add_argument("--seed", type=int, default=42, help="PRNG seed (default 42, the paper's)")
    group.add_argument("--per-relation", type=positive_int, default=per_relation_default,
                       help=f"items per relation (default {per_relation_default})")
    group.add_argument("--relations", nargs="+", default=list(PAPER_RELATIONS),
                       metavar="RELATION",
                       help=f"relations to include (default: {' '.join(PAPER_RELATIONS)}; "
                            f"also: {' '.join(r for r in RELATIONS if r not in PAPER_RELATIONS)})")
    group.add_argument("--wordnet", default=None,
                       help="a WordNet 3.0 database directory (default: found automatically)")


def _generate(args: argparse.Namespace) -> int:
    from lexbench import api
    from lexbench.benchmarks.lambda_analysis import dataset_statistics, dataset_tables

    items = api.generate_lambda(profile=args.profile, seed=args.seed,
                                per_relation=args.per_relation, relations=args.relations,
                                output=args.output, wordnet=args.wordnet)
    manifest = json.loads(Path(f"{args.output}.manifest.json").read_text())
    print(f"wrote {len(items)} items to {args.output} (sha256 {manifest['content_sha256'][:16]}…)"
          f" and {args.output}.manifest.json")
    print(dataset_tables(dataset_statistics(items)))
    return 0


def _run(args: argparse.Namespace) -> int:
    from lexbench import api

    run_and_report(args, lambda cache: api.run_lambda(
        args.model, limit=args.limit, protocol=args.protocol, prompt_style=args.prompt_style,
        profile=args.profile, seed=args.seed, per_relation=args.per_relation,
        relations=args.relations, items=args.items, model_options=model_options(args),
        out=args.out, cache=cache, use_cache=cache is not None, wordnet=args.wordnet,
        progress=not args.no_progress))
    return 0


def _rescore(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.lambda_ import LambdaItem, rescore
    from lexbench.benchmarks.lambda_analysis import report_markdown, summarize
    from lexbench.lexicon.wordnet import load_index
    from lexbench.run.store import RunFolder, read_run, write_json

    config, samples, old_results = read_run(args.run)
    if config.get("benchmark", {}).get("name") != "lambda":
        raise ValueError(f"{args.run} is not a LAMBDA run; rescore supports LAMBDA runs")
    index = load_index(args.wordnet, progress=False)
    scores = rescore(samples, index)
    items = [LambdaItem.from_dict(row) for row in samples]
    results = summarize(items, scores)
    if "run" in old_results:
        results["run"] = old_results["run"]
    changed = sum(1 for row, s in zip(samples, scores) if row.get("correct") != s.correct)
    folder = RunFolder(Path(args.run))
    if args.write:
        from lexbench.run.store import write_samples

        rows = [{**row, "answer": s.answer, "correct": s.correct, "error_class": s.error_class}
                for row, s in zip(samples, scores)]
        write_samples(folder.samples_path, rows)
        write_json(folder.results_path, results)
        folder.report_path.write_text(report_markdown(results), encoding="utf-8")
    print(report_markdown(results))
    print(f"{changed} of {len(samples)} verdicts changed"
          + ("; run folder updated" if args.write else " (use --write to update the run folder)"))
    return 0


def _human_export(args: argparse.Namespace) -> int:
    from lexbench import api

    items = api.generate_lambda(profile=args.profile, seed=args.seed,
                                per_relation=args.per_relation, relations=args.relations,
                                wordnet=args.wordnet) if args.items is None else \
        __import__("lexbench.benchmarks.lambda_", fromlist=["read_items"]).read_items(args.items)
    rng = random.Random(f"lambda-human:{args.sample_seed}")
    chosen: list[Any] = []
    for relation in dict.fromkeys(i.relation for i in items):
        pool = [i for i in items if i.relation == relation]
        chosen.extend(rng.sample(pool, min(args.sample, len(pool))))
    rng.shuffle(chosen)  # mixed order, so the annotator cannot infer the relation from runs
    with open(args.output, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "pair_1", "pair_2", "query", "answer"])
        for item in chosen:
            (a, b), (c, d) = item.support
            writer.writerow([item.id, f"{a} : {b}", f"{c} : {d}", f"{item.query} :", ""])
    key_path = Path(f"{args.output}.key.jsonl")
    key_path.write_text("".join(json.dumps(i.to_dict(), sort_keys=True) + "\n" for i in chosen))
    print(f"wrote {len(chosen)} items to {args.output} (fill the 'answer' column; a dictionary "
          f"may be consulted, as in the paper) and the answer key to {key_path}")
    return 0


def _human_score(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.lambda_ import LambdaItem, rescore
    from lexbench.benchmarks.lambda_analysis import report_markdown, summarize
    from lexbench.lexicon.wordnet import load_index
    from lexbench.run.store import read_jsonl

    key_path = Path(args.key or f"{args.sheet}.key.jsonl")
    key = {row["id"]: row for row in read_jsonl(key_path)}
    with open(args.sheet, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or "answer" not in rows[0] or "id" not in rows[0]:
        raise ValueError(f"{args.sheet}: expected a CSV with 'id' and 'answer' columns")
    unknown = [r["id"] for r in rows if r["id"] not in key]
    if unknown:
        raise ValueError(f"{args.sheet}: ids not in the answer key {key_path}: {unknown[:5]}")
    samples = [{**key[r["id"]], "output": r["answer"] or ""} for r in rows]
    scores = rescore(samples, load_index(args.wordnet, progress=False))
    results = summarize([LambdaItem.from_dict(s) for s in samples], scores)
    print(report_markdown(results, title="LAMBDA human baseline"))
    return 0


def _items_and_manifest(args: argparse.Namespace) -> tuple[list[Any], dict[str, Any]]:
    """Items from --items FILE (with its manifest) or generated from the dataset options."""
    from lexbench.benchmarks.lambda_ import LambdaConfig, dumps_items, manifest, read_items
    from lexbench.lexicon.wordnet import load_index

    if args.items is not None:
        from lexbench.run.store import read_manifest

        return read_items(args.items), read_manifest(args.items, "lexbench generate lambda")
    from lexbench.benchmarks.lambda_ import generate_items

    config = LambdaConfig(profile=args.profile, seed=args.seed, per_relation=args.per_relation,
                          relations=tuple(args.relations))
    index = load_index(args.wordnet)
    items = generate_items(index, config)
    return items, manifest(items, config, index, dumps_items(items))


def _export(args: argparse.Namespace) -> int:
    from lexbench.export import write_lambda_hf_dataset, write_lm_eval_lambda_task

    items, meta = _items_and_manifest(args)
    if args.format == "hf":
        out = write_lambda_hf_dataset(args.output, items, meta, args.prompt_style)
        print(f"wrote {len(items)} rows to {out}/data/test.parquet and the dataset card "
              f"{out}/README.md; load with datasets.load_dataset('parquet', "
              f"data_files='{out}/data/test.parquet')")
    else:
        out = write_lm_eval_lambda_task(args.output, items, meta, args.prompt_style)
        print(f"wrote the lm-evaluation-harness task to {out}; run it with\n  lm_eval "
              f"--include_path {out} --tasks lexbench_lambda --model hf --model_args "
              f"pretrained=MODEL")
    return 0


def register(cli: Any) -> None:
    generate = cli.benchmark_command("generate", "lambda", "generate LAMBDA items (JSONL + manifest)",
                                     _generate)
    _add_dataset_arguments(generate, per_relation_default=1000)
    generate.add_argument("-o", "--output", required=True, type=Path, help="output JSONL file")

    run = cli.benchmark_command("run", "lambda", "evaluate a model on LAMBDA", _run)
    _add_dataset_arguments(run, per_relation_default=1000)
    run.add_argument("--items", type=Path, default=None,
                     help="a JSONL file from `lexbench generate lambda` (default: generate now)")
    run.add_argument("--limit", type=positive_int, default=None,
                     help="evaluate the first N items of each relation")
    run.add_argument("--protocol", choices=["paper", "word"], default="paper",
                     help="paper: max_new_tokens=2 as published; word: decode until the first "
                          "whole word is complete")
    run.add_argument("--prompt-style", choices=["paper", "completion"], default="paper",
                     help="paper: pairs, query, then the answer-only guard; completion: guard "
                          "first so the prompt ends at 'E :' (better for base LMs)")
    add_model_arguments(run)
    add_run_arguments(run)

    rescore_parser = cli.command("rescore", "score a run folder's raw outputs again", _rescore)
    rescore_parser.add_argument("run", type=Path, help="a LAMBDA run folder")
    rescore_parser.add_argument("--write", action="store_true", help="update the run folder")
    rescore_parser.add_argument("--wordnet", default=None)

    export = cli.benchmark_command("human", "lambda-export",
                                   "export a human-baseline sheet (100 random items per relation)",
                                   _human_export)
    _add_dataset_arguments(export, per_relation_default=1000)
    export.add_argument("--items", type=Path, default=None, help="sample from this JSONL file")
    export.add_argument("--sample", type=positive_int, default=100, help="items per relation")
    export.add_argument("--sample-seed", type=int, default=0)
    export.add_argument("-o", "--output", required=True, type=Path, help="CSV sheet to write")
    score = cli.benchmark_command("human", "lambda-score", "score a filled human-baseline sheet",
                                  _human_score)
    score.add_argument("sheet", type=Path)
    score.add_argument("--key", type=Path, default=None, help="answer key (default SHEET.key.jsonl)")
    score.add_argument("--wordnet", default=None)

    export = cli.benchmark_command("export", "lambda",
                                   "export LAMBDA as a Hugging Face dataset or an lm-eval task",
                                   _export)
    _add_dataset_arguments(export, per_relation_default=1000)
    export.add_argument("--items", type=Path, default=None,
                        help="a JSONL file from `lexbench generate lambda` (default: generate now)")
    export.add_argument("--format", choices=["hf", "lm-eval"], required=True)
    export.add_argument("--prompt-style", choices=["paper", "completion"], default="paper")
    export.add_argument("-o", "--output", required=True, type=Path, help="output folder")
