"""The Results page (docs/results.md): SmolLM2-135M-Instruct, Gemma 3 270M and GloVe 6B 50d
on every benchmark with data here, LAMBDA under both prompt styles, each cell with its 95%
interval, the paired tests between the models, what the models answered where they score
(near) 0, and the papers' published rows beside them with their comparability.

    python measurements/studies/results_page.py              # run, summarise, record, page
    python measurements/studies/results_page.py --estimate   # the commands and their cost only
    python measurements/studies/results_page.py --from-runs  # summarise OUT's run folders again
    python measurements/studies/results_page.py --page-only  # the page and figure from the record

Three steps, each restartable:

1. **Run** (`lexbench` commands in a subprocess, through the planner as a user types them):
   `run lambda` on the two language models (`--lambda-limit` items per relation, 0 for
   all 3,000), once with the paper's prompt and once with the completion prompt of the
   README's `make demo`; then `run all` over the three models on a slice (`--limit N`: the
   first N items of each stratum), SetLexSem last on a smaller one (`--setlexsem-limit`),
   sized so the whole takes about 40 minutes on 2 cores shared at load 5. Every
   answer goes to a response cache of this page's own (OUT/responses.sqlite) as it arrives,
   so a rerun after a crash sends only what is missing (and the record says the cache was
   warm: delete the file for a cold measurement). The wall time of each command, the load
   and the date go to OUT/timing.json.
2. **Summarise** the run folders (`results_summary.py`, `results_published.py`) into the
   record measurements/records/results_page.json (`recording.py`): every number the page shows.
3. **Render** the page and its figure from the record alone (`results_render.py`,
   `results_figure.py`); tests/docs/test_docs_figures.py checks that docs/results.md is the
   record rendered, tests/docs/test_results_page.py that the script makes the page's tables
   from run folders.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

# recording.py, shared by both folders of scripts, sits one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recording import RECORDS, ROOT, Recorder, commit, cpu_model, load_average

NAME = "results_page"
MODELS = ("smollm2-135m", "gemma3-270m", "glove")
LANGUAGE_MODELS = MODELS[:2]
#: `run all`'s benchmarks but LAMBDA (run in both prompt styles below) and SetLexSem (run on
#: a smaller slice: its prompts cost 10-50 times a ranking item's). BATS and E-KAR are asked
#: for so that the page gives lexbench's own reason when their data is absent.
SUITE = ("scan", "google", "bats", "ekar", "hypernyms")
PAGE = ROOT / "docs" / "results.md"
FIGURE = ROOT / "docs" / "img" / "results-leaderboard.png"
RECORD = RECORDS / f"{NAME}.json"
#: What the record's numbers depend on: lexbench, the example plugin, this script and its
#: summary (the renderer only lays them out).
SOURCES = (
    "src/lexbench",
    "examples/lexbench-hypernyms/src",
    "measurements/studies/results_page.py",
    "measurements/studies/results_summary.py",
    "measurements/studies/results_published.py",
)


@dataclass(frozen=True)
class Slice:
    """Items per stratum (`--limit`): `run all`'s benchmarks, SetLexSem, LAMBDA (0: whole)."""

    suite: int = 20
    setlexsem: int = 2
    lambda_: int = 100

    def to_dict(self) -> dict[str, int]:
        return {"suite": self.suite, "setlexsem": self.setlexsem, "lambda": self.lambda_}


def commands(out: Path, size: Slice, cache: Path) -> list[list[str]]:
    """The lexbench command lines the page is made of, as a user would type them."""
    common = ["--out", str(out), "--cache", str(cache), "--allow-failures", "--no-progress"]
    models = ",".join(MODELS)
    suite = ["run", "all", "--model", models, "--only", *SUITE, "--limit", str(size.suite)]
    setlexsem = ["run", "all", "--model", models, "--only", "setlexsem"]
    setlexsem += ["--limit", str(size.setlexsem)]
    lambdas = [
        ["run", "lambda", "--model", ",".join(LANGUAGE_MODELS), "--prompt-style", style]
        + (["--limit", str(size.lambda_)] if size.lambda_ else [])
        for style in ("paper", "completion")
    ]
    # LAMBDA first: the page's headline question; then the ranking sets, SetLexSem last (its
    # prompts are the dearest), so a run stopped early has the most-read rows.
    return [[*command, *common] for command in (*lambdas, suite, setlexsem)]


def shown(command: list[str]) -> str:
    """A command as the page prints it: `lexbench ...`, paths relative to the checkout."""
    text = shlex.join(["lexbench", *command])
    return text.replace(str(ROOT) + "/", "")


def estimate(size: Slice) -> str:
    """The cost in CPU time, measured on 2 idle cores (load 0.3) with a cold cache: `run all
    --limit 1` over the three models took 93 s (2 min 17 s of CPU), two thirds of it SetLexSem
    (32 prompts: about 1.4 CPU-s each on SmolLM2, 2 on Gemma); LAMBDA about 20 ms of CPU per
    item and model. Wall time is this on 2 idle cores, several times more on busy ones."""
    cpu = size.setlexsem * 32 * 3.4 + size.suite * 15 + 4 * 3 * (size.lambda_ or 1000) * 0.02
    return f"about {cpu / 60:.0f} CPU-min, {cpu / 120:.0f} min on 2 idle cores, cold cache"


def run(out: Path, size: Slice) -> dict:
    """Step 1: the commands, one after another; OUT/timing.json says what each took."""
    cache = out / "responses.sqlite"
    timing: dict = {
        "slice": size.to_dict(),
        "started": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "cache": "warm (it held answers before)" if cache.exists() else "cold (a fresh file)",
        "load_before": load_average(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "commit": commit(),
        "argv": sys.argv[1:],
        "steps": [],
    }
    started = time.perf_counter()
    for command in commands(out, size, cache):
        print(f"running: {shown(command)}", flush=True)
        begun = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "lexbench", *command],
            text=True,
            stdout=subprocess.PIPE,
            cwd=ROOT,
        )
        seconds = time.perf_counter() - begun
        step = {"command": shown(command), "wall_s": round(seconds, 1), "exit": done.returncode}
        step["load_after"] = load_average()
        step["skipped"] = [line for line in done.stdout.splitlines() if line.startswith("skipped ")]
        timing["steps"].append(step)
        print(f"  exit {done.returncode} after {seconds / 60:.1f} min", flush=True)
        if done.returncode != 0:
            (out / "failed-step.stdout.txt").write_text(done.stdout, encoding="utf-8")
            raise SystemExit(
                f"{shown(command)} exited {done.returncode}; its output: "
                f"{out / 'failed-step.stdout.txt'} (rerun: answers so far are cached)"
            )
    timing["wall_s"] = round(time.perf_counter() - started, 1)
    timing["load_after"] = load_average()
    (out / "timing.json").write_text(json.dumps(timing, indent=1) + "\n", encoding="utf-8")
    return timing


def summarise(out: Path, timing: dict) -> dict:
    """Step 2: the run folders under `out` and the run's timing -> the record."""
    from results_summary import skipped, summarise_runs

    order = ("lambda", "scan", "google", "bats", "setlexsem", "ekar", "hypernyms")
    results = summarise_runs(out, models=MODELS, order=order)
    results["skipped"] = skipped(line for step in timing["steps"] for line in step["skipped"])
    results["run"] = {
        "commands": [step["command"] for step in timing["steps"]],
        **{key: value for key, value in timing.items() if key != "commit"},
        "commit_run": timing.get("commit"),
    }
    # The record says when and under what load the commands ran, not when it was summarised.
    recorder = Recorder(NAME, caches=timing["cache"], sources=SOURCES, argv=timing["argv"])
    recorder.started = datetime.strptime(timing["started"], "%Y-%m-%d %H:%M UTC").replace(
        tzinfo=UTC
    )
    recorder.load_before = timing["load_before"]
    recorder.write(results, load_after=timing["load_after"])
    return json.loads(RECORD.read_text(encoding="utf-8"))


def render(record: dict, page: Path = PAGE, figure: Path = FIGURE) -> None:
    """Step 3: the page and its figure from the record."""
    from results_figure import draw_figure
    from results_render import render_page

    page.write_text(render_page(record), encoding="utf-8")
    draw_figure(record, figure)
    print(f"wrote {page.relative_to(ROOT)} and {figure.relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20, help="items per stratum (default 20)")
    parser.add_argument("--setlexsem-limit", type=int, default=2, help="SetLexSem's (2)")
    parser.add_argument("--lambda-limit", type=int, default=100, help="LAMBDA's (100; 0: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "results-page")
    step = parser.add_mutually_exclusive_group()
    step.add_argument("--estimate", action="store_true", help="print the plan and its cost")
    step.add_argument("--from-runs", action="store_true", help="summarise OUT again, no run")
    step.add_argument("--page-only", action="store_true", help="render the record only")
    args = parser.parse_args()
    if args.page_only:
        render(json.loads(RECORD.read_text(encoding="utf-8")))
        return 0
    out = args.out.resolve()
    size = Slice(args.limit, args.setlexsem_limit, args.lambda_limit)
    print(f"plan ({estimate(size)}):", flush=True)
    for command in commands(out, size, out / "responses.sqlite"):
        print(f"  {shown(command)}", flush=True)
    if args.estimate:
        return 0
    out.mkdir(parents=True, exist_ok=True)
    if args.from_runs:
        timing_file = out / "timing.json"
        if not timing_file.is_file():
            raise SystemExit(f"{timing_file}: no timing; run the page first (no --from-runs)")
        timing = json.loads(timing_file.read_text(encoding="utf-8"))
    else:
        timing = run(out, size)
    render(summarise(out, timing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
