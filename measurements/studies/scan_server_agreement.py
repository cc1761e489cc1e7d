"""SCAN through an OpenAI-compatible server beside the in-process backend, same items.

Serves the packaged SmolLM2 GGUF with llama-cpp-python (127.0.0.1, `--n_batch 1`), runs
SCAN through `--model openai:...` (token strings from `top_logprobs`) and in process
(`smollm2-135m`, token ids), and prints MRR@10 for both and where they agree. Two things
differ by design: llama.cpp computes on the Q4_1 blocks while transformers runs the
de-quantised float32 copy; the server's tokens are matched by string (the server's own first
token of " " + word, learned by an echo request) where the in-process backend compares
first-token ids, which agree for every SCAN target word.

    .venv/bin/python measurements/studies/scan_server_agreement.py [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from fake_openai_server import LlamaServer
from lexbench import api
from lexbench.models.hf_files import packaged_smollm2_gguf
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions


def samples(run) -> dict[str, dict]:
    rows = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    return {r["id"]: r for r in rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--limit", type=int, default=None, help="first N analogies (default all 449)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LlamaServer(packaged_smollm2_gguf()) as server:
        served = OpenAIModel(
            "smollm2-135m", OpenAIOptions(base_url=server.url, max_concurrency=2, timeout=300)
        )
        started = time.perf_counter()
        through_server = api.run(
            "scan",
            served,
            limit=args.limit,
            out=Path(tmp) / "runs",
            use_cache=False,
            progress=False,
        )
        server_seconds = time.perf_counter() - started
        started = time.perf_counter()
        in_process = api.run(
            "scan",
            "smollm2-135m",
            limit=args.limit,
            out=Path(tmp) / "runs",
            use_cache=False,
            progress=False,
        )
        local_seconds = time.perf_counter() - started
        a, b = samples(through_server), samples(in_process)
    same_rr = sum(a[k]["value"] == b[k]["value"] for k in a)
    same_top = sum(
        (a[k]["ranked"][0][1] if a[k]["ranked"] else None)
        == (b[k]["ranked"][0][1] if b[k]["ranked"] else None)
        for k in a
    )
    print(f"items: {len(a)}")
    for label, run, seconds in (
        ("server (llama.cpp, Q4_1, token strings)", through_server, server_seconds),
        ("in process (transformers, float32, token ids)", in_process, local_seconds),
    ):
        mrr = run.results["overall"]["mrr"]
        print(
            f"{label:48s} MRR@10 {mrr['estimate']:.4f} ± {mrr['se']:.4f}  "
            f"acc@1 {run.results['overall']['acc_at_1']['estimate']:.4f}  ({seconds:.1f} s)"
        )
    print(f"same reciprocal rank: {same_rr}/{len(a)}; same top token: {same_top}/{len(a)}")
    differ = [k for k in a if a[k]["value"] != b[k]["value"]]
    for k in differ[:10]:
        print(
            f"  {k}: server rank {a[k]['rank']} ({a[k]['ranked'][:3]}) vs in-process rank "
            f"{b[k]['rank']} ({[t[:2] for t in b[k]['ranked'][:3]]}); targets {a[k]['targets']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
