"""SCAN through its lm-evaluation-harness export and through lexbench, on the same model:
how often lm-eval's acc@1 (one greedy token, matched by the strict prefix rule) agrees with
lexbench's (the rank of each answer's first token id), item by item.

    .venv/bin/python measurements/studies/export_scan_agreement.py [--limit 449] [--device cpu|cuda]

Both sides use the de-quantised packaged SmolLM2-135M (float32). lexbench runs with the
response cache off. The two can differ only where the rules differ (see docs/exporting.md):
a one- or two-character first token, or a longer prefix that is not the word's first token.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=449)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import lm_eval
    from lm_eval.tasks import TaskManager

    from lexbench import api
    from lexbench.export.lm_eval import write_lm_eval_task
    from lexbench.export.rows import export_set
    from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf
    from lexbench.run.store import read_run

    weights, _ = dequantised_cache(packaged_smollm2_gguf(), "float32")
    with tempfile.TemporaryDirectory() as work:
        task = write_lm_eval_task(f"{work}/task", export_set("scan", {"limit": args.limit}))
        started = time.perf_counter()
        harness = lm_eval.simple_evaluate(
            model="hf",
            model_args=f"pretrained={weights},dtype=float32",
            tasks=["lexbench_scan"],
            task_manager=TaskManager(include_path=str(task), include_defaults=False),
            batch_size=64,
            device=args.device,
            log_samples=True,
        )
        harness_seconds = time.perf_counter() - started
        theirs = {s["doc"]["id"]: bool(s["acc"]) for s in harness["samples"]["lexbench_scan"]}
        tokens = {s["doc"]["id"]: s["resps"][0][0] for s in harness["samples"]["lexbench_scan"]}

        started = time.perf_counter()
        run = api.run(
            "scan",
            "smollm2-135m",
            model_options={"batch_size": 64, "device": args.device},
            limit=args.limit,
            out=f"{work}/runs",
            use_cache=False,
            progress=False,
        )
        lexbench_seconds = time.perf_counter() - started
        _, samples, _ = read_run(run.folder.path)
        ours = {s["id"]: bool(s["correct"]) for s in samples}

    differ = sorted(k for k in ours if ours[k] != theirs.get(k))
    print(
        f"items: {len(ours)}; acc@1 lm-eval {sum(theirs.values())}/{len(theirs)}, lexbench "
        f"{sum(ours.values())}/{len(ours)}; verdicts differ on {len(differ)}"
    )
    print(f"wall: lm-eval {harness_seconds:.1f} s, lexbench {lexbench_seconds:.1f} s")
    for key in differ:
        print(f"  {key}: lm-eval token {tokens[key]!r} -> {theirs[key]}, lexbench {ours[key]}")


if __name__ == "__main__":
    main()
