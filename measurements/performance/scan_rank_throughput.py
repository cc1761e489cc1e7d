"""Rank throughput on SCAN prompts: one forward pass (the `rank` path) against generating one
token with top-k output (transformers `generate`, max_new_tokens=1, output_scores=True).

Both paths see the same prompts, batches (sorted by length, left-padded) and model; the
script also checks that they agree on the top-10 tokens of every prompt.

    .venv/bin/python measurements/performance/scan_rank_throughput.py --items 256 --batch-size 32
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "scan" / "SCAN_dataset.csv"


def generate_top_k(model, prompts: list[str], top_k: int, batch_size: int) -> list[list[int]]:
    """Top-k next-token ids via generate(max_new_tokens=1, output_scores=True), batched the
    way the rank path batches: sorted by length (longest first), left-padded."""
    import torch
    from transformers import GenerationConfig

    tokenizer = model.tokenizer
    encoded = [tokenizer(p, add_special_tokens=True)["input_ids"] for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: (-len(encoded[i]), i))
    config = GenerationConfig(
        max_new_tokens=1,
        do_sample=False,
        output_scores=True,
        return_dict_in_generate=True,
        pad_token_id=tokenizer.pad_token_id,
    )
    out: list[list[int] | None] = [None] * len(prompts)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        width = max(len(encoded[i]) for i in batch)
        ids = torch.full((len(batch), width), tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, index in enumerate(batch):
            ids[row, width - len(encoded[index]) :] = torch.tensor(encoded[index])
            mask[row, width - len(encoded[index]) :] = 1
        with torch.inference_mode():
            generated = model.model.generate(
                ids.to(model.device), attention_mask=mask.to(model.device), generation_config=config
            )
            logprobs = torch.log_softmax(generated.scores[0].float(), dim=-1)
            top = torch.topk(logprobs, k=top_k, dim=-1).indices.tolist()
        for row, index in enumerate(batch):
            out[index] = top[row]
    return [r for r in out if r is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="SCAN_dataset.csv")
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--items", type=int, default=256, help="SCAN prompts per timing")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default=None, help="default float32 on CPU, bfloat16 on GPU")
    parser.add_argument("--shots", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="timings per path (best is kept)")
    args = parser.parse_args()

    import torch

    from lexbench.benchmarks.analogies.sets import choose_shots, query_prompt
    from lexbench.benchmarks.scan.benchmark import load_scan
    from lexbench.models.hf import HFCausalLM, HFOptions
    from lexbench.types import Request

    dtype = args.dtype or (
        "bfloat16" if torch.cuda.is_available() and args.device != "cpu" else "float32"
    )
    model = HFCausalLM.from_spec(
        args.model,
        HFOptions(
            batch_size=args.batch_size, dtype=dtype, device=args.device, threads=args.threads
        ),
    )
    items = load_scan(args.data)
    chosen = (items * (args.items // len(items) + 1))[: args.items]
    prompts = [
        query_prompt(item, "causal", choose_shots(item, items, args.shots, 0)) for item in chosen
    ]
    requests = [Request(id=str(i), kind="rank", prompt=p, top_k=10) for i, p in enumerate(prompts)]
    model.rank(requests[: args.batch_size])  # warm-up both paths
    generate_top_k(model, prompts[: args.batch_size], 10, args.batch_size)

    def timed(run) -> tuple[float, object]:
        if model.device.startswith("cuda"):
            torch.cuda.synchronize()
        started = time.perf_counter()
        result = run()
        if model.device.startswith("cuda"):
            torch.cuda.synchronize()
        return time.perf_counter() - started, result

    # Interleaved repeats, best of each: a shared machine's load then hits both paths alike.
    rank_seconds = generate_seconds = float("inf")
    ranked: list = []
    generated: list = []
    for _ in range(args.repeats):
        seconds, ranked = timed(lambda: model.rank(requests))
        rank_seconds = min(rank_seconds, seconds)
        seconds, generated = timed(lambda: generate_top_k(model, prompts, 10, args.batch_size))
        generate_seconds = min(generate_seconds, seconds)
    same = sum([t.token_id for t in r.ranked] == g for r, g in zip(ranked, generated))
    same_top1 = sum(r.ranked[0].token_id == g[0] for r, g in zip(ranked, generated))
    print(
        f"model {model.name} on {model.device} ({dtype}), torch threads "
        f"{torch.get_num_threads()}, {len(prompts)} SCAN prompts ({args.shots}-shot), "
        f"batch size {args.batch_size}, best of {args.repeats} interleaved"
    )
    print(
        f"rank (one forward pass, logits_to_keep=1): {len(prompts) / rank_seconds:8.1f} items/s "
        f"({rank_seconds:.2f} s)"
    )
    print(
        f"generate (max_new_tokens=1, output_scores): {len(prompts) / generate_seconds:8.1f} items/s "
        f"({generate_seconds:.2f} s)"
    )
    print(
        f"speed-up of rank: {generate_seconds / rank_seconds:.2f}x; identical top-10 lists: "
        f"{same}/{len(prompts)}; identical top-1: {same_top1}/{len(prompts)}"
    )


if __name__ == "__main__":
    main()
