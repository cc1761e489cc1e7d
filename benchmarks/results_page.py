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

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("smollm2-135m", "gemma3-270m", "glove")
PAGE = ROOT / "docs" / "results.md"
FIGURE = ROOT / "docs" / "img" / "results-leaderboard.png"
# Measured with `--limit 1` on the development machine (2 shared CPU cores, warm model
# cache, cold response cache): seconds per item-per-stratum, all benchmarks and models.
SECONDS_PER_LIMIT_UNIT = 600.0
SECONDS_FIXED = 300.0  # loading the three models, WordNet, the data


def estimate_seconds(limit: int | None) -> float:
    """A rough wall time: fixed cost plus a cost proportional to the slice (--full is
    priced as --limit 1000, an upper bound of the strata's sizes)."""
    return SECONDS_FIXED + SECONDS_PER_LIMIT_UNIT * (limit or 1000)


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

    names = sorted(rows)
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 1.1 + 0.9 * len(names)), squeeze=False)
    for axis, name in zip(axes[:, 0], names):
        table = sorted(rows[name], key=lambda r: r.model)
        for y, row in enumerate(table):
            axis.errorbar(
                row.estimate,
                y,
                xerr=[[row.estimate - row.low], [row.high - row.estimate]],
                fmt="o",
                capsize=3,
            )
        axis.set_yticks(range(len(table)), [r.model for r in table])
        axis.set_xlim(-0.02, 1.02)
        axis.set_ylim(-0.6, len(table) - 0.4)
        axis.set_title(f"{name}: {table[0].metric if table else ''}", fontsize=9, loc="left")
        axis.tick_params(labelsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_page(out: Path, limit: int | None, seconds: float | None, stdout: str) -> None:
    from lexbench.report.leaderboard import leaderboards, to_markdown
    from lexbench.report.runs import discover, load_runs

    folders = [f for f in discover([out]) if "report" not in f.relative_to(out).parts]
    runs = load_runs(folders)
    tables = leaderboards(runs)
    board = to_markdown(tables).replace(str(out.resolve()) + "/", "").replace(str(out) + "/", "")
    figure(tables, FIGURE)
    skipped = [line for line in stdout.splitlines() if line.startswith("skipped ")]
    comparisons = sorted(out.glob("*/compare/*.md"))
    load = os.getloadavg()
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
        f"{load[0]:.2f} at the end, "
        + (f"{seconds / 60:.0f} min of wall time" if seconds else "wall time not measured")
        + f", {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Models: "
        "`smollm2-135m` (SmolLM2-135M-Instruct, Q4_1, chat model), `gemma3-270m` (Gemma 3 270M",
        "base, Q4_K_M, no chat template: LAMBDA's instruction prompt gets prose back, scored as",
        "format failures as the paper scores them), `glove` (GloVe 6B 50d, analogy queries).",
        "",
        "## Leaderboard (95% intervals)",
        "",
        re.sub(r"^# Leaderboard\n+", "", board),
        "",
        f"![Headline metric per model with its 95% interval]({FIGURE.relative_to(PAGE.parent)})",
        "",
    ]
    if skipped:
        made += ["Not run (the reason `lexbench run all` gave):", ""]
        made += [f"* {line.removeprefix('skipped ')}" for line in skipped] + [""]
    made += ["## Paired tests between the models", ""]
    for path in comparisons:
        text = path.read_text(encoding="utf-8")
        made += [f"### {path.parent.parent.name}", "", re.sub(r"(?m)^#", "###", text), ""]
    PAGE.write_text("\n".join(made).rstrip() + "\n", encoding="utf-8")
    print(f"wrote {PAGE} and {FIGURE}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--limit", type=int, default=20, help="items per stratum (default 20)")
    size.add_argument("--full", action="store_true", help="every item (hours on a CPU)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs-results")
    parser.add_argument("--cache", type=Path, default=None, help="response cache file")
    parser.add_argument("--estimate", action="store_true", help="print the cost and stop")
    parser.add_argument("--page-only", action="store_true", help="rebuild the page only")
    args = parser.parse_args()
    limit = None if args.full else args.limit
    cost = estimate_seconds(limit)
    print(
        f"plan: {', '.join(MODELS)} x every `run all` benchmark, "
        f"{'whole' if limit is None else f'--limit {limit}'}; expected cost about "
        f"{cost / 3600:.1f} h on 2 CPU cores with a cold response cache (minutes when warm)"
    )
    if args.estimate:
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    stdout_file = args.out / "run-all.stdout.txt"
    if args.page_only:
        stdout = stdout_file.read_text(encoding="utf-8") if stdout_file.is_file() else ""
        write_page(args.out, limit, None, stdout)
        return 0
    seconds, stdout = run_suite(args.out, limit, args.cache)
    (args.out / "timing.json").write_text(json.dumps({"seconds": seconds, "limit": limit}))
    write_page(args.out, limit, seconds, stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
