"""LAMBDA's human study, as its paper's annotator did it: two support pairs and the query,
one word, with a dictionary at hand; 100 random items per relation, in one mixed order so
that runs of one relation cannot give the relation away.

The draw is the one the CSV sheet (`lexbench human lambda-export`) always made, so a sheet
and a web study with the same seed ask the same items.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.human.tasks import StudyTask, dataset_config


def sample_lambda(items: Sequence[Any], per_relation: int, seed: int = 0) -> list[Any]:
    """`per_relation` random items of each relation, shuffled together."""
    rng = random.Random(f"lambda-human:{seed}")
    chosen: list[Any] = []
    for relation in dict.fromkeys(i.relation for i in items):
        pool = [i for i in items if i.relation == relation]
        chosen.extend(rng.sample(pool, min(per_relation, len(pool))))
    rng.shuffle(chosen)
    return chosen


def add_dataset_arguments(parser: argparse.ArgumentParser, *, with_wordnet: bool = True) -> None:
    """Which LAMBDA items a study or sheet draws from (a generated file, or generated now);
    `with_wordnet=False` where the command has its own `--wordnet`."""
    from lexbench.benchmarks.lambda_.items import MAX_PER_RELATION
    from lexbench.commands.numbers import SEED, count
    from lexbench.lexicon.wordnet.index import PAPER_RELATIONS, RELATIONS

    group = parser.add_argument_group("LAMBDA dataset (the items a sample is drawn from)")
    group.add_argument(
        "--items",
        type=Path,
        default=None,
        help="a JSONL file from `lexbench generate lambda` (default: generate "
        "the paper's dataset now)",
    )
    group.add_argument("--profile", choices=["strict", "listing"], default="strict")
    group.add_argument("--seed", type=SEED, default=42, help="generation seed (default 42)")
    group.add_argument(
        "--per-relation",
        type=count(1, MAX_PER_RELATION),
        default=1000,
        help="items generated per relation (default 1000)",
    )
    group.add_argument(
        "--relations",
        nargs="+",
        default=list(PAPER_RELATIONS),
        metavar="RELATION",
        choices=list(RELATIONS),
    )
    if with_wordnet:
        group.add_argument(
            "--wordnet",
            default=None,
            help="a WordNet 3.0 database directory (default: found automatically)",
        )


def dataset_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "items": args.items,
        "profile": args.profile,
        "seed": args.seed,
        "per_relation": args.per_relation,
        "relations": args.relations,
        "wordnet": args.wordnet,
    }


def load_lambda_items(options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    from lexbench.benchmarks.lambda_.items import (
        LambdaConfig,
        dumps_items,
        generate_items,
        manifest,
        read_items,
    )

    if options.get("items"):
        from lexbench.run.files import read_manifest

        meta = read_manifest(options["items"], "lexbench generate lambda")
        return read_items(options["items"]), {
            "file": str(options["items"]),
            "content_sha256": meta.get("content_sha256"),
            "config": meta.get("config"),
        }
    from lexbench.lexicon.wordnet.index import PAPER_RELATIONS, relations_for
    from lexbench.lexicon.wordnet.index_cache import load_index

    config = LambdaConfig(
        profile=options.get("profile", "strict"),
        seed=options.get("seed", 42),
        per_relation=options.get("per_relation", 1000),
        relations=tuple(options.get("relations") or PAPER_RELATIONS),
    )
    index = load_index(
        options.get("wordnet"), relations=relations_for(config.relations), progress=False
    )
    items = generate_items(index, config)
    meta = manifest(items, config, index, dumps_items(items))
    return items, {
        "config": meta["config"],
        "content_sha256": meta["content_sha256"],
        "wordnet_fingerprint": meta["wordnet_fingerprint"],
    }


@dataclass(frozen=True)
class LambdaTask(StudyTask):
    name: str = "lambda"
    page_title: str = "LAMBDA: complete the word analogy"
    definitions: bool = True  # the paper's annotator could look words up
    paper_sample: int | None = 100
    sample_unit: str = "items per relation"

    def from_json(self, row: Mapping[str, Any]) -> Any:
        from lexbench.benchmarks.lambda_.items import LambdaItem

        return LambdaItem.from_dict(row)

    def benchmark(
        self,
        items: Sequence[Any],
        spec: Mapping[str, Any],
        stage: str,
        *,
        index: Any = None,
        model: Any = None,
    ) -> Any:
        from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark

        return LambdaBenchmark(
            dataset=list(items),
            index=index,
            protocol="paper",
            prompt_style="paper",
            dataset_config=dataset_config(spec),
        )

    def display(self, item: Any, stage: str) -> dict[str, Any]:
        return {
            "kind": "pairs",
            "pairs": [list(pair) for pair in item.support],
            "query": item.query,
        }

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_dataset_arguments(parser, with_wordnet=False)

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        return dataset_options(args)

    def load_items(self, options: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        return load_lambda_items(options)

    def draw(self, items: Sequence[Any], count: int, seed: int = 0) -> list[Any]:
        return sample_lambda(items, count, seed)

    def scoring_index(self, wordnet: str | None) -> Any:
        from lexbench.lexicon.wordnet.index_cache import load_index

        return load_index(wordnet, progress=False)  # the error taxonomy needs it
