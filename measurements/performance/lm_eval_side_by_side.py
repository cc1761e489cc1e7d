"""The same LAMBDA prompts through lm-evaluation-harness and through lexbench, in one run.

    .venv/bin/python measurements/performance/lm_eval_side_by_side.py [--per-relation 1000]
        [--prompt-style paper|completion] [--harness-batch-size 64] [--device cpu|cuda]

Both sides use the same de-quantised SmolLM2-135M weights (float32, on the same device),
the same prompts (exported by `lexbench export lambda --format lm-eval`), greedy decoding and
2 new tokens; lm_eval through its HF backend (`simple_evaluate`, `model="hf"`), lexbench
through `api.run_lambda` with the response cache off. Wall times include loading the model
and the items on each side. Predictions are compared item by item on the raw output text;
every difference is printed with the model's top-2 logit gap at the first differing step (a
near-tie that batch composition can flip is the usual cause).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

# recording.py, shared by both folders of scripts, sits one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recording import RECORDS, Recorder


def top2_gap(model, prompt: str, prefix_tokens: list[int]) -> float:
    """Logit gap between the two best next tokens after prompt + prefix_tokens (unpadded)."""
    import torch

    ids = model.tokenizer(prompt, add_special_tokens=True)["input_ids"] + prefix_tokens
    with torch.inference_mode():
        logits = model.model(input_ids=torch.tensor([ids], device=model.device)).logits[0, -1]
    best = torch.topk(logits, 2).values
    return float(best[0] - best[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-relation", type=int, default=1000)
    parser.add_argument("--prompt-style", choices=["paper", "completion"], default="paper")
    parser.add_argument(
        "--harness-batch-size",
        default="64",
        help="lm_eval's batch size (its own default is 1; 64 matches lexbench's)",
    )
    parser.add_argument(
        "--lexbench-batch-size",
        type=int,
        default=64,
        help="lexbench's batch size (its default, 64)",
    )
    parser.add_argument(
        "--device", default="cpu", help="torch device for both sides: cpu (default) or cuda"
    )
    parser.add_argument("--record", type=Path, default=None, help="write the record here")
    args = parser.parse_args()
    recorder = Recorder("lm_eval_side_by_side", caches="warm (model de-quantised, index built)")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import lm_eval
    from lm_eval.tasks import TaskManager

    from lexbench import api
    from lexbench.benchmarks.lambda_.export import LM_EVAL_TASK, write_lm_eval_lambda_task
    from lexbench.lexicon.wordnet.index_cache import load_index
    from lexbench.models.hf import HFOptions
    from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf
    from lexbench.run.store import read_run
    from lexbench.text import first_word

    load_index(progress=False)  # built once, before either side is timed
    weights, _ = dequantised_cache(packaged_smollm2_gguf(), "float32")
    batch = (
        int(args.harness_batch_size)
        if args.harness_batch_size.isdigit()
        else args.harness_batch_size
    )

    with tempfile.TemporaryDirectory() as work:
        task = write_lm_eval_lambda_task(
            f"{work}/task",
            {"per_relation": args.per_relation, "prompt_style": args.prompt_style},
        )
        started = time.perf_counter()
        harness = lm_eval.simple_evaluate(
            model="hf",
            model_args=f"pretrained={weights},dtype=float32",
            tasks=[LM_EVAL_TASK],
            task_manager=TaskManager(include_path=str(task), include_defaults=False),
            batch_size=batch,
            device=args.device,
            log_samples=True,
        )
        harness_seconds = time.perf_counter() - started
        theirs = {s["doc"]["id"]: s["resps"][0][0] for s in harness["samples"][LM_EVAL_TASK]}

        started = time.perf_counter()
        run = api.run(
            "lambda",
            "smollm2-135m",
            per_relation=args.per_relation,
            prompt_style=args.prompt_style,
            use_cache=False,
            model_options={"batch_size": args.lexbench_batch_size, "device": args.device},
            out=f"{work}/runs",
            progress=False,
        )
        lexbench_seconds = time.perf_counter() - started
        _, samples, _ = read_run(run.folder.path)

    ours = {s["id"]: s["output"] for s in samples}
    prompts = {s["id"]: s["prompt"] for s in samples}
    same_text = sum(1 for k in ours if ours[k] == theirs.get(k))
    same_answer = sum(1 for k in ours if first_word(ours[k]) == first_word(theirs.get(k, "")))
    print(
        f"items: {len(ours)} (prompt style {args.prompt_style}, greedy, 2 new tokens, float32, "
        f"device {args.device})"
    )
    print(
        f"lm-evaluation-harness {lm_eval.__version__ if hasattr(lm_eval, '__version__') else ''}"
        f" (hf backend, batch size {args.harness_batch_size}): {harness_seconds:7.1f} s, "
        f"accuracy {harness['results'][LM_EVAL_TASK]['acc,none']:.4f}"
    )
    print(
        f"lexbench (hf backend, batch size {args.lexbench_batch_size})"
        f"                 : {lexbench_seconds:7.1f} s, "
        f"accuracy {run.results['overall']['accuracy']:.4f}"
    )
    print(f"speed-up (lm_eval time / lexbench time): {harness_seconds / lexbench_seconds:.2f}x")
    print(
        f"identical raw outputs: {same_text}/{len(ours)}; identical parsed answers: "
        f"{same_answer}/{len(ours)}"
    )
    # One row per device, prompt style and lm_eval batch size, kept beside the others.
    path = args.record or RECORDS / "lm_eval_side_by_side.json"
    rows = json.loads(path.read_text())["results"] if path.is_file() else {}
    rows[f"{args.device}/{args.prompt_style}/{args.harness_batch_size}"] = {
        "items": len(ours),
        "lm_eval_s": round(harness_seconds, 1),
        "lexbench_s": round(lexbench_seconds, 1),
        "speedup": round(harness_seconds / lexbench_seconds, 2),
        "same_text": same_text,
        "lm_eval_version": getattr(lm_eval, "__version__", ""),
    }
    recorder.write(rows, path=path)
    differing = [k for k in ours if ours[k] != theirs.get(k)]
    if differing:
        from lexbench.models.hf import HFCausalLM

        model = HFCausalLM.from_spec("smollm2-135m", HFOptions(device=args.device))
        for key in differing:
            a, b = ours[key], theirs.get(key, "")
            common = os.path.commonprefix([a, b])  # noqa: RUF071 - strings, char by char
            prefix = (
                model.tokenizer(common, add_special_tokens=False)["input_ids"] if common else []
            )
            gap = top2_gap(model, prompts[key], prefix)
            print(
                f"  {key}: lexbench {a!r} vs lm_eval {b!r}; top-2 logit gap at the split "
                f"{gap:.4f} (a near-tie flips under different padding/batch arithmetic)"
            )


if __name__ == "__main__":
    main()
