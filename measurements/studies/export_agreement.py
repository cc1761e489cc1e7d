"""Per-item agreement of the exported tasks with lexbench, on the packaged SmolLM2: every
benchmark exported for lm-eval and inspect_ai, run by each tool itself (offline, greedy, in
lexbench's prompt mode), and by lexbench on the same items; prints the table benchmark x
tool x N equal / N (the Exporting page quotes it) and every differing item.

    python measurements/studies/export_agreement.py > measurements/studies/export_agreement.md

The slices are those of tests/export/test_export_real_model.py (a stratum or two per
benchmark). The model loads once per tool and prompt mode; the de-quantised SmolLM2 folder
and WordNet index come from the user cache (warm when the tests have run).
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SLICES = {
    "lambda": {"per_relation": 2, "progress": False},
    "scan": {"limit": 1},
    "google": {"limit_per_relation": 1},
    "ekar": {"data": str(FIXTURES / "ekar" / "english"), "split": "test"},
    "setlexsem": {
        "grid": "small",
        "select": ["operation=intersection", "m=2", "token_type=numbers", "token_length=2"],
        "limit": 2,
    },
    "sat": {"data": str(FIXTURES / "export" / "sat_mini.jsonl")},
}
NO_INSPECT = {"sat"}  # inspect_ai has no log-likelihood request; SAT has no generation


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> int:
    from lexbench.export.agreement import export_slices, inspect_in_process, lm_eval_in_process
    from lexbench.export.tool_runs import transformers_folder
    from lexbench.export.verify import Agreement, lexbench_verdicts
    from lexbench.models.registry import load_model

    started = datetime.now(UTC)
    load_before = os.getloadavg()
    model_folder = transformers_folder("smollm2-135m")
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="export-agreement-") as work:
        folders = export_slices(SLICES, Path(work), skip={"inspect": NO_INSPECT})
        by_tool = {
            fmt: {b: f for (b, kind), f in folders.items() if kind == fmt}
            for fmt in ("lm-eval", "inspect")
        }
        clock = time.perf_counter()
        theirs = {"lm-eval": lm_eval_in_process(by_tool["lm-eval"], model_folder)}
        seconds["lm-eval"] = time.perf_counter() - clock
        clock = time.perf_counter()
        theirs["inspect"] = inspect_in_process(
            by_tool["inspect"], model_folder, Path(work) / "logs"
        )
        seconds["inspect_ai"] = time.perf_counter() - clock
        clock = time.perf_counter()
        model = load_model("smollm2-135m")
        agreements = []
        for (benchmark, fmt), folder in sorted(folders.items()):
            ours = lexbench_verdicts(folder, model, Path(work) / "runs", graded=fmt == "inspect")
            tool = "lm-eval" if fmt == "lm-eval" else "inspect_ai"
            agreements.append(Agreement(benchmark, tool, theirs[fmt][benchmark], ours))
        seconds["lexbench"] = time.perf_counter() - clock
    load_after = os.getloadavg()

    print("# Exported tasks against lexbench, item by item (packaged SmolLM2-135M, CPU)\n")
    print(f"- date: {started:%Y-%m-%d %H:%M} UTC; machine: {_cpu()}, {os.cpu_count()} cores")
    print(
        f"- load average (1 min) before {load_before[0]:.1f}, after {load_after[0]:.1f} "
        "(a machine shared with other jobs)"
    )
    print(f"- python {sys.version.split()[0]}; model folder and WordNet index cached (warm)")
    print("- wall seconds: " + ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items()))
    print("\n| benchmark | tool | equal / items | graded value compared |")
    print("| --- | --- | ---: | --- |")
    for agreement in agreements:
        graded = "yes (MRR, value)" if agreement.tool == "inspect_ai" else "verdict only"
        print(
            f"| {agreement.benchmark} | {agreement.tool} | "
            f"{agreement.equal} / {len(agreement.item_ids)} | {graded} |"
        )
    differing = [line for a in agreements if a.differing for line in a.lines()]
    print("\nDiffering items:" if differing else "\nNo item differs.")
    for line in differing:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
