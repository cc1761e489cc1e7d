"""The Results page (docs/results.md): both packaged models (SmolLM2-135M-Instruct,
Gemma 3 270M base) and GloVe 6B 50d on every benchmark of `lexbench run all`, each under
its paper's protocol, on a named slice (`--limit N`: the first N items of each stratum)
or whole (`--full`); the leaderboard with 95% intervals, the paired tests between the
models, and one figure.

    .venv/bin/python benchmarks/results_page.py [--limit 20 | --full] [--out runs-results]
    .venv/bin/python benchmarks/results_page.py --estimate     # the plan and its cost only

Restartable: every answer goes through lexbench's response cache (the user cache, or
`--cache FILE`) as it arrives, so after a crash or Ctrl-C the same command sends only what
is missing, and a finished run costs a few seconds to redo. The page is written from the
run folders under `--out`, so `--page-only` rebuilds it without running anything.

The run is one command, `lexbench run all --model smollm2-135m,gemma3-270m,glove`, in a
fresh process (the models are loaded once each); benchmarks a model cannot answer (GloVe
generates no text) are listed as skipped, with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("smollm2-135m", "gemma3-270m", "glove")
PAGE = ROOT / "docs" / "results.md"
FIGURE = ROOT / "docs" / "img" / "results-leaderboard.png"


def estimate(out: Path, limit: int | None) -> str:
    """The expected cost, scaled from this script's last finished run (OUT/timing.json) in
    proportion to the slice; --full is priced as --limit 1000, above every stratum's size."""
    timing = out / "timing.json"
    if not timing.is_file():
        return (
            "not measured yet for the whole suite: run --limit 1 first (minutes; its wall "
            "time goes to OUT/timing.json and later estimates scale from it). Measured so "
            "far: LAMBDA, 6 items, 25-30 s per model on 2 shared cores at load ~4"
        )
    last = json.loads(timing.read_text(encoding="utf-8"))
    scale = (limit or 1000) / (last["limit"] or 1000)
    return (
        f"about {last['seconds'] * scale / 60:.0f} min with a cold response cache (the last "
        f"run, --limit {last['limit']}, took {last['seconds'] / 60:.1f} min; a warm cache "
        f"makes a rerun minutes)"
    )


def run_suite(out: Path, limit: int | None, cache: Path | None) -> tuple[float, str]:
    """`lexbench run all` over the three models; returns (wall seconds, its stdout)."""
    command = [sys.executable, "-m", "lexbench.cli", "run", "all", "--model", ",".join(MODELS)]
    command += ["--out", str(out), "--report", str(out / "report"), "--allow-failures"]
    command += ["--no-progress"] + (["--limit", str(limit)] if limit else [])
    command += ["--cache", str(cache)] if cache else []
    print("running:", " ".join(command[2:]), flush=True)
    started = time.perf_counter()
    done = subprocess.run(command, text=True, stdout=subprocess.PIPE)
    seconds = time.perf_counter() - started
    (out / "run-all.stdout.txt").write_text(done.stdout, encoding="utf-8")
    if done.returncode != 0:
        raise SystemExit(f"lexbench run all exited {done.returncode}; see {out}/run-all.stdout.txt")
    return seconds, done.stdout


def figure(rows: dict[str, list], path: Path) -> None:
    """Each benchmark's headline metric per model, with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def model_of(row: Any) -> str:  # the model alone: the run's settings are the page's
        return str(row.model).split(" (", 1)[0]

    names = sorted(rows)
    models = sorted({model_of(row) for table in rows.values() for row in table})
    colour = {model: f"C{i}" for i, model in enumerate(models)}  # one colour per model
    fig, axes = plt.subplots(len(names), 1, figsize=(6, 1.1 + 0.9 * len(names)), squeeze=False)
    for axis, name in zip(axes[:, 0], names):
        table = sorted(rows[name], key=model_of)
        for y, row in enumerate(table):
            axis.errorbar(
                row.estimate,
                y,
                xerr=[[max(0.0, row.estimate - row.low)], [max(0.0, row.high - row.estimate)]],
                fmt="o",
                capsize=3,
                color=colour[model_of(row)],
            )
        axis.set_yticks(range(len(table)), [model_of(r) for r in table])
        axis.set_xlim(-0.02, 1.02)
        axis.set_ylim(-0.6, len(table) - 0.4)
        axis.set_title(f"{name}: {table[0].metric if table else ''}", fontsize=9, loc="left")
        axis.tick_params(labelsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def skip_reasons(lines: list[str]) -> list[str]:
    """`skipped BENCH (MODEL): REASON` lines as one line per benchmark and reason, the
    models named together; a failed download is said in a few words (the full message,
    with the URL, is in the run's output)."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for line in lines:
        head, _, reason = line.removeprefix("skipped ").partition(": ")
        benchmark, _, model = head.partition(" (")
        if reason.startswith("could not download"):
            reason = "its data is downloaded on first use, and this machine is offline"
        grouped.setdefault((benchmark, reason), []).append(model.rstrip(")"))
    return [
        f"{benchmark} ({', '.join(models)}): {reason}"
        for (benchmark, reason), models in grouped.items()
    ]


def write_page(out: Path, limit: int | None, timing: dict, stdout: str, page: Path = PAGE) -> None:
    """The page from the run folders under `out`; `timing` is the run's OUT/timing.json
    (wall seconds, the load at its end, when it ended), so --page-only says the same."""
    from lexbench.report.leaderboard import leaderboards, to_markdown
    from lexbench.report.runs import discover, load_runs

    folders = [f for f in discover([out]) if "report" not in f.relative_to(out).parts]
    runs = load_runs(folders)
    tables = leaderboards(runs)
    board = to_markdown(tables).replace(str(out.resolve()) + "/", "").replace(str(out) + "/", "")
    figure_path = page.parent / "img" / FIGURE.name
    figure(tables, figure_path)
    skipped = [line for line in stdout.splitlines() if line.startswith("skipped ")]
    comparisons = sorted(out.glob("*/compare/*.md"))
    seconds = timing.get("seconds")
    made = [
        "# Results",
        "",
        "The first cross-model comparison lexbench shows: the two packaged models and GloVe on",
        "every benchmark of `lexbench run all`, each under its paper's protocol"
        + (f", on a slice: the first {limit} items of each stratum." if limit else ", whole."),
        "",
        "How this page was made: `.venv/bin/python benchmarks/results_page.py"
        + (f" --limit {limit}`" if limit else " --full`")
        + f" on {platform.machine()}, {os.cpu_count()} CPU cores, load average "
        f"{timing.get('load_end', float('nan')):.2f} at the end, "
        + (f"{seconds / 60:.0f} min of wall time" if seconds else "wall time not measured")
        + f", {timing.get('ended', 'date not recorded')}. Models: "
        "`smollm2-135m` (SmolLM2-135M-Instruct, Q4_1, chat model), `gemma3-270m` (Gemma 3 270M",
        "base, Q4_K_M, no chat template: LAMBDA's instruction prompt gets prose back, scored as",
        "format failures as the paper scores them), `glove` (GloVe 6B 50d, analogy queries).",
        "",
        "## Leaderboard (95% intervals)",
        "",
        re.sub(r"(?m)^## ", "### ", re.sub(r"^# Leaderboard\n+", "", board)),
        "",
        f"![Headline metric per model with its 95% interval](img/{FIGURE.name})",
        "",
    ]
    made += [
        "Both language models score 0 on LAMBDA and SetLexSem here: under those papers'",
        "instruction prompts they answer with prose or with no readable set, which the papers",
        "score as wrong (each run's report counts these as format failures). LAMBDA's",
        "completion prompt (`--prompt-style completion`, the demo's) is what SmolLM2 answers.",
        "",
    ]
    if skipped:
        made += ["Not run (the reasons `lexbench run all` gave, shortened):", ""]
        made += [f"* {reason}" for reason in skip_reasons(skipped)] + [""]
    made += ["## Paired tests between the models", ""]
    for path in comparisons:
        text = path.read_text(encoding="utf-8")
        made += [f"### {path.parent.parent.name}", "", re.sub(r"(?m)^#", "###", text), ""]
    page.write_text("\n".join(made).rstrip() + "\n", encoding="utf-8")
    print(f"wrote {page} and {figure_path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--limit", type=int, default=20, help="items per stratum (default 20)")
    size.add_argument("--full", action="store_true", help="every item (hours on a CPU)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs-results")
    parser.add_argument("--cache", type=Path, default=None, help="response cache file")
    parser.add_argument("--estimate", action="store_true", help="print the cost and stop")
    parser.add_argument("--page-only", action="store_true", help="rebuild the page only")
    parser.add_argument("--page", type=Path, default=PAGE, help="where the page goes")
    args = parser.parse_args()
    limit = None if args.full else args.limit
    print(
        f"plan: {', '.join(MODELS)} x every `run all` benchmark, "
        f"{'whole' if limit is None else f'--limit {limit}'}; expected cost: "
        f"{estimate(args.out, limit)}",
        flush=True,
    )
    if args.estimate:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    stdout_file = args.out / "run-all.stdout.txt"
    timing_file = args.out / "timing.json"
    if args.page_only:
        stdout = stdout_file.read_text(encoding="utf-8") if stdout_file.is_file() else ""
        timing = json.loads(timing_file.read_text()) if timing_file.is_file() else {}
        write_page(args.out, limit, timing, stdout, args.page)
        return 0
    seconds, stdout = run_suite(args.out, limit, args.cache)
    timing = {
        "seconds": seconds,
        "limit": limit,
        "load_end": os.getloadavg()[0],
        "ended": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
    }
    timing_file.write_text(json.dumps(timing), encoding="utf-8")
    write_page(args.out, limit, timing, stdout, args.page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
