"""LAMBDA speed: generation time (cold and warm index), scoring time and evaluation throughput.

    .venv/bin/python measurements/performance/lambda_speed.py [--items 192] [--skip-cold]
        [--scoring-only]

Prints:
* cold: building the WordNet relation index from scratch (in a temporary cache) + 3,000 items;
* warm: reading the cached index + 3,000 items (target: under 5 s);
* scoring, in a fresh process: opening the drift finder (reading the cached WordNet sense
  table; GloVe is opened lazily, on the first cosine test) and the error taxonomy of 3,000 items
  (the default dataset, one output each from the fake OpenAI server's reply function, as
  measurements/performance/openai_throughput.py answers them) (targets: under 3 s each), with the
  verdict counts and the machine's load average;
* evaluation: items/s of lexbench's batched path against the naive loop that calls
  `model.generate` once per prompt, on the same items, with identical greedy settings;
  the predictions of both are compared item by item.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def time_generation(cache_root: str | None) -> float:
    """Seconds for `lexbench generate lambda` (3,000 items) in a fresh process."""
    env = dict(os.environ)
    if cache_root:
        env["LEXBENCH_CACHE"] = cache_root
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "lexbench.cli",
                "generate",
                "lambda",
                "-o",
                f"{out}/items.jsonl",
            ],
            check=True,
            env=env,
            capture_output=True,
        )
        return time.perf_counter() - started


# Run in a fresh process so that reading the sense table and GloVe's vocabulary are counted.
SCORING_DRIVER = r"""
import json, os, sys, time
from collections import Counter
sys.path.insert(0, sys.argv[1])
from fake_openai_server import default_reply, split_tokens
from lexbench.benchmarks.lambda_.benchmark import parse_and_score
from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
from lexbench.benchmarks.lambda_.prompts import prompt_text
from lexbench.lexicon.wordnet.index_cache import load_index
index = load_index(progress=False)
items = generate_items(index, LambdaConfig(per_relation=1000))
outputs = ["".join(split_tokens(default_reply(prompt_text(item)))[:2]) for item in items]
started = time.perf_counter()
from lexbench.benchmarks.lambda_.drift import drift_finder
drift = drift_finder(index)
opened = time.perf_counter()
verdicts = [parse_and_score(output, item, index, drift) for item, output in zip(items, outputs)]
done = time.perf_counter()
print(json.dumps({"items": len(items), "open": opened - started, "taxonomy": done - opened,
                  "classes": Counter(v.error_class for v in verdicts),
                  "load": os.getloadavg()[0]}))
"""


def time_scoring() -> dict:
    """Drift-finder start-up and taxonomy seconds on 3,000 items, in a fresh process."""
    tests = str(Path(__file__).resolve().parents[2] / "tests")
    done = subprocess.run(
        [sys.executable, "-c", SCORING_DRIVER, tests], check=True, capture_output=True, text=True
    )
    import json

    return json.loads(done.stdout.strip().splitlines()[-1])


def naive_loop(model, prompts: list[str], max_new_tokens: int) -> list[str]:
    """One prompt at a time through transformers' generate: what a quick script does."""
    import torch

    outputs = []
    for prompt in prompts:
        ids = model.tokenizer(prompt, return_tensors="pt")
        with torch.inference_mode():
            generated = model.model.generate(
                **ids,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=model.tokenizer.pad_token_id,
            )
        outputs.append(
            model.tokenizer.decode(
                generated[0, ids["input_ids"].shape[1] :], skip_special_tokens=True
            )
        )
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=192, help="items for the throughput runs")
    parser.add_argument("--skip-cold", action="store_true", help="skip the index rebuild")
    parser.add_argument(
        "--scoring-only",
        action="store_true",
        help="only the scoring figures (no generation timing, no model)",
    )
    args = parser.parse_args()

    scoring = time_scoring()
    print(
        f"scoring {scoring['items']:,} items (fresh process, load average "
        f"{scoring['load']:.1f} on {os.cpu_count()} cores):"
    )
    print(f"  drift finder start-up (WordNet sense table): {scoring['open']:.2f} s (target < 3 s)")
    print(
        f"  error taxonomy: {scoring['taxonomy']:.2f} s, "
        f"{1000 * scoring['taxonomy'] / scoring['items']:.2f} ms per item (target < 3 s; "
        f"GloVe's lazy opening included)"
    )
    print(f"  verdicts: {dict(sorted(scoring['classes'].items()))}")
    if args.scoring_only:
        return

    from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
    from lexbench.benchmarks.lambda_.prompts import decoding_for, prompt_text
    from lexbench.lexicon.wordnet.index_cache import load_index
    from lexbench.types import Request

    load_index(progress=False)  # make sure the warm cache exists
    if not args.skip_cold:
        with tempfile.TemporaryDirectory() as cold_root:
            # Prepared WordNet files are copied in too, so "cold" measures the index build only.
            cold = time_generation(cold_root)
        print(f"generation, cold index (WordNet copied + index built): {cold:.1f} s")
    warm = time_generation(None)
    print(
        f"generation, warm index, 3,000 items (process start included): {warm:.2f} s  "
        f"(target < 5 s)"
    )

    from lexbench.models.hf import HFCausalLM

    model = HFCausalLM.from_spec("smollm2-135m")
    index = load_index(progress=False)
    per_relation = max(1, args.items // 3)
    items = generate_items(index, LambdaConfig(per_relation=per_relation))
    prompts = [prompt_text(item, "completion") for item in items]
    decoding = decoding_for("paper")
    requests = [
        Request(id=item.id, kind="generate", prompt=p, decoding=decoding)
        for item, p in zip(items, prompts)
    ]
    model.generate(requests[:8])  # warm-up: first-call allocations are not throughput

    started = time.perf_counter()
    batched = [r.text for r in model.generate(requests)]
    batched_seconds = time.perf_counter() - started
    started = time.perf_counter()
    naive = naive_loop(model, prompts, decoding.max_new_tokens)
    naive_seconds = time.perf_counter() - started

    agree = sum(1 for a, b in zip(batched, naive) if a.strip() == b.strip())
    print(f"evaluation on {len(items)} items (paper protocol, greedy, 2 new tokens):")
    print(
        f"  lexbench batched : {len(items) / batched_seconds:7.1f} items/s ({batched_seconds:.1f} s)"
    )
    print(f"  naive loop       : {len(items) / naive_seconds:7.1f} items/s ({naive_seconds:.1f} s)")
    print(f"  speed-up         : {naive_seconds / batched_seconds:.1f}x")
    print(f"  same outputs     : {agree}/{len(items)}")
    for item, a, b in zip(items, batched, naive):
        if a.strip() != b.strip():
            print(f"    differs {item.id}: batched {a!r} vs naive {b!r}")


if __name__ == "__main__":
    main()
