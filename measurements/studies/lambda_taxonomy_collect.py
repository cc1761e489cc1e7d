"""Collect fresh wrong answers of the packaged SmolLM2-135M for validating LAMBDA's error taxonomy.

    .venv/bin/python measurements/studies/lambda_taxonomy_collect.py [-o /tmp/fresh.jsonl]
        [--start 500] [--per-relation 45] [--rows 260]        # sets A and B
    .venv/bin/python measurements/studies/lambda_taxonomy_collect.py --start 700 --per-relation 35 \
        --rows 180 --one-set C --avoid taxonomy_validation.jsonl   # set C

Issue 24 item 7: the agreement figure must come from answers no rule has seen. This script
takes items of the default dataset (strict profile, seed 42) at positions `--start` onwards
in each relation (the label and pin files use only positions 0-99), drops every item whose
query is a query of taxonomy_labels.jsonl, taxonomy_pins.jsonl or a file `--avoid` adds
(all under tests/fixtures/lambda/), or repeats an earlier chosen item's query, and asks
SmolLM2-135M under three decoding settings:

* `completion-greedy-2`: completion prompt, greedy, 2 new tokens (the paper's budget);
* `completion-t0.8-word`: completion prompt, sampling T = 0.8 (top-p 1, seed 0) until the
  first whole word (at most 8 tokens);
* `chat-greedy-word`: the paper prompt as the user turn of the model's chat template,
  greedy, until the first whole word (at most 8 tokens).

Every wrong answer (by R(E) membership alone; the taxonomy is NOT run) becomes a row, one per
distinct (item, answer); rows are shuffled with `random.Random(SPLIT_SEED)` after sorting,
the first `--rows` kept, and each is put in set A or B by a second seeded shuffle (half each),
or all in the one set `--one-set` names. The rows carry no label: they are labelled by hand
from the paper's class definitions before the classifier sees them
(tests/fixtures/lambda/taxonomy_validation.jsonl holds A and B, taxonomy_validation_c.jsonl C).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "lambda"
SPLIT_SEED = 2024
SETTINGS = ("completion-greedy-2", "completion-t0.8-word", "chat-greedy-word")


AVOID = ("taxonomy_labels.jsonl", "taxonomy_pins.jsonl")


def used_queries(files: tuple[str, ...] = AVOID) -> set[str]:
    """Every query the label or pin `files` name (the pins' fixture part names the labels')."""
    used: set[str] = set()
    for name in files:
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "query" in row:
                used.add(row["query"])
    return used


def requests_for(items, setting: str):
    from lexbench.benchmarks.lambda_.prompts import Sampling, decoding_for, prompt_text
    from lexbench.types import Request

    out = []
    for item in items:
        if setting == "completion-greedy-2":
            out.append(
                Request(
                    id=item.id,
                    kind="generate",
                    prompt=prompt_text(item, "completion"),
                    decoding=decoding_for("paper"),
                )
            )
        elif setting == "completion-t0.8-word":
            sampling = Sampling(temperature=0.8, top_p=1.0, seed=0)
            out.append(
                Request(
                    id=item.id,
                    kind="generate",
                    prompt=prompt_text(item, "completion"),
                    decoding=decoding_for("word", sampling),
                )
            )
        elif setting == "chat-greedy-word":
            out.append(
                Request(
                    id=item.id,
                    kind="generate",
                    messages=(("user", prompt_text(item, "paper")),),
                    chat=True,
                    decoding=decoding_for("word"),
                )
            )
        else:
            raise ValueError(f"unknown setting {setting!r}; choose from {', '.join(SETTINGS)}")
    return out


def choose_items(index, start: int, per_relation: int, avoid: tuple[str, ...] = AVOID):
    from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items

    used = used_queries(avoid)
    items = generate_items(index, LambdaConfig(per_relation=start + 4 * per_relation))
    chosen, seen = [], set(used)
    for relation in ("synonym", "antonym", "derivation"):
        in_relation = [i for i in items if i.relation == relation][start:]
        taken = 0
        for item in in_relation:
            if taken == per_relation:
                break
            if item.query in seen:
                continue
            seen.add(item.query)
            chosen.append(item)
            taken += 1
        if taken < per_relation:
            raise SystemExit(f"{relation}: only {taken} items with unused queries")
    return chosen


def collect(
    start: int,
    per_relation: int,
    rows_wanted: int,
    one_set: str = "",
    avoid: tuple[str, ...] = AVOID,
) -> list[dict]:
    from lexbench.lexicon.wordnet.index_cache import load_index
    from lexbench.models.hf import HFCausalLM
    from lexbench.text import normalise, words

    index = load_index(progress=False)
    items = choose_items(index, start, per_relation, avoid)
    model = HFCausalLM.from_spec("smollm2-135m")
    found: dict[tuple[str, str], dict] = {}
    for setting in SETTINGS:
        responses = model.generate(requests_for(items, setting))
        for item, response in zip(items, responses):
            if response.error:
                raise SystemExit(f"{item.id} ({setting}): {response.error}")
            said = words(response.text)
            candidates = sorted({normalise(c) for c in item.candidates})
            if any(said[: len(c.split())] == c.split() for c in candidates if c):
                continue  # right: not an error to file
            answer = said[0] if said else ""
            key = (item.id, answer)
            if key in found:
                found[key]["settings"].append(setting)
                continue
            found[key] = {
                "id": item.id,
                "relation": item.relation,
                "query": item.query,
                "support": [list(pair) for pair in item.support],
                "candidates": list(item.candidates),
                "output": response.text,
                "answer": answer,
                "settings": [setting],
            }
    rows = sorted(found.values(), key=lambda r: (r["id"], r["answer"]))
    random.Random(SPLIT_SEED).shuffle(rows)
    rows = rows[:rows_wanted]
    order = list(range(len(rows)))
    random.Random(SPLIT_SEED + 1).shuffle(order)
    for rank, position in enumerate(order):
        rows[position]["set"] = one_set or ("A" if rank < len(rows) // 2 else "B")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", default="/tmp/lambda_taxonomy_fresh.jsonl")
    parser.add_argument("--start", type=int, default=500)
    parser.add_argument("--per-relation", type=int, default=45)
    parser.add_argument("--rows", type=int, default=260)
    parser.add_argument("--one-set", default="", help="put every row in this set (no A/B split)")
    parser.add_argument("--avoid", action="append", default=[], help="another fixture file")
    args = parser.parse_args(argv)
    avoid = AVOID + tuple(args.avoid)
    rows = collect(args.start, args.per_relation, args.rows, args.one_set, avoid)
    Path(args.output).write_text(
        "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows),
        encoding="utf-8",
    )
    sets = {s: sum(r["set"] == s for r in rows) for s in sorted({r["set"] for r in rows})}
    print(f"wrote {len(rows)} unlabelled wrong answers to {args.output} (sets {sets})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
