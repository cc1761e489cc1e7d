"""Throughput of the openai backend against a local server with a fixed latency, and beside
lm-evaluation-harness's `local-completions` model on the same server and prompts.

    .venv/bin/python measurements/performance/openai_throughput.py [--latency 0.1]
        [--levels 1 8 32 128] [--prompts-per-request N] [--prompts-from FILE]
        [--lm-eval-items 3000 | --no-lm-eval]

Starts the fake OpenAI-compatible server (tests/fake_openai_server.py) in its own process,
answering every request after exactly `latency` seconds (a request carrying several
prompts too), then:

1. Levels: sends N = rounds x concurrency distinct generate requests through the whole run
   engine (`execute`: cache lookup, concurrent sending, each answer committed to a SQLite
   cache as it arrives) at each concurrency level. Concurrency counts prompts in flight, so
   the ideal is concurrency / latency prompts per second whether or not several prompts
   share a request; the figure printed is the measured throughput as a fraction of it, and
   the client's CPU time per prompt. Targets: 90% at 32, 85% at 128, at most 0.3 ms.
   `--prompts-from FILE` takes the prompts (and decodings) of an item file instead, e.g.
   SetLexSem's paper grid (`lexbench generate setlexsem --grid paper -o FILE`): ~1 KB
   prompts with 256 new tokens, which go one prompt per request (issue 26's request path:
   at most 0.10 ms of client CPU per prompt at 128 in flight, 10 ms latency).
2. lm-eval: the same LAMBDA prompts (`--lm-eval-items`, default 3,000) through
   `lexbench run lambda --model openai:...` and through `lm_eval run --model
   local-completions` (aiohttp, `num_concurrent` = the concurrency, one prompt per request,
   its default), each as a whole process (start-up, data, requests, scoring, writing) and its
   request phase alone (lexbench: `execute()` as results.json records it, its cache writes
   included; lm_eval: its `generate_until`), at concurrency 128; the outputs are compared
   item by item, `--lm-eval-repeats` times each (alternating, default 3; medians printed).
   Target: at least 3x lm_eval end to end, identical answers.

The server runs in a separate process so it does not share this process's GIL; both still
share this machine's cores, so a busy machine lowers the figures (the load average is
printed beside them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.cache import ResponseCache
from lexbench.run.runner import execute
from lexbench.types import Decoding, Request

TARGETS = {32: 0.90, 128: 0.85}
LM_EVAL_TASK = "lexbench_lambda"
# lm_eval's request phase, timed inside its own process: `generate_until` wrapped.
LM_EVAL_DRIVER = """
import sys, time
from lm_eval.models.api_models import TemplateAPI
inner = TemplateAPI.generate_until
def timed(self, *args, **kwargs):
    started = time.perf_counter()
    try:
        return inner(self, *args, **kwargs)
    finally:
        print(f"LMEVAL_REQUEST_PHASE {time.perf_counter() - started:.3f}", file=sys.stderr)
TemplateAPI.generate_until = timed
from lm_eval.__main__ import cli_evaluate
sys.argv = ["lm_eval", *sys.argv[1:]]
cli_evaluate()
"""


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "fake_openai_server.py"),
            "--latency",
            str(latency),
            "--lifetime",
            "1800",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"fake server did not start: {line!r}")
    return process, f"http://127.0.0.1:{int(line.split()[1])}/v1"


def file_prompts(path: Path, count: int) -> list[tuple[str, Decoding]]:
    """The first `count` prompts of an item file (JSON lines with `prompt`, and `decoding`
    where given), repeated as needed."""
    found: list[tuple[str, Decoding]] = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            item = json.loads(line)
            decoding = item.get("decoding") or {"max_new_tokens": 2}
            decoding["stop"] = tuple(decoding.get("stop", ()))
            found.append((item["prompt"], Decoding(**decoding)))
            if len(found) == count:
                break
    if not found:
        raise ValueError(f"{path}: no prompts")
    return [found[i % len(found)] for i in range(count)]


def measure(
    url: str,
    concurrency: int,
    count: int,
    latency: float,
    tag: str,
    prompts_per_request: int | None = None,
    prompts_from: Path | None = None,
) -> dict[str, float]:
    asked = (
        file_prompts(prompts_from, count)
        if prompts_from is not None
        else [(f"{tag} prompt {i} :", Decoding(max_new_tokens=2)) for i in range(count)]
    )
    requests = [
        Request(id=f"{tag}-{i}", kind="generate", prompt=prompt, decoding=decoding)
        for i, (prompt, decoding) in enumerate(asked)
    ]
    model = OpenAIModel(
        "fake-model",
        OpenAIOptions(
            base_url=url,
            max_concurrency=concurrency,
            timeout=30,
            prompts_per_request=prompts_per_request,
        ),
    )
    with tempfile.TemporaryDirectory() as folder, ResponseCache(Path(folder) / "c.sqlite") as cache:
        started, cpu_started = time.perf_counter(), time.process_time()
        responses, stats = execute(model, requests, cache=cache, progress=False)
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        cached = cache.count()
    failed = sum(r.error is not None for r in responses)
    if failed or cached != count:
        raise RuntimeError(
            f"concurrency {concurrency}: {failed} failed, {cached} cached of {count}"
        )
    throughput = count / elapsed
    ideal = concurrency / latency
    return {
        "concurrency": concurrency,
        "requests": count,
        "seconds": elapsed,
        "throughput": throughput,
        "ideal": ideal,
        "fraction": throughput / ideal,
        "retries": stats.retries,
        "cpu_ms": 1000 * cpu / count,
        "per_request": model.options.batch_size(),
        "load": os.getloadavg()[0],
    }


def levels(url: str, args: argparse.Namespace) -> None:
    measure(url, 4, 8, args.latency, "warmup", args.prompts_per_request)
    rows = []
    for level in args.levels:
        count = max(20, args.rounds * level)
        runs = [
            measure(
                url,
                level,
                count,
                args.latency,
                f"c{level}r{r}",
                args.prompts_per_request,
                args.prompts_from,
            )
            for r in range(args.repeats)
        ]
        best = max(runs, key=lambda row: row["fraction"])
        best["median_fraction"] = sorted(r["fraction"] for r in runs)[len(runs) // 2]
        best["median_cpu_ms"] = sorted(r["cpu_ms"] for r in runs)[len(runs) // 2]
        rows.append(best)
    print(
        f"openai backend throughput through execute() (cache writes included), fixed "
        f"server latency {args.latency * 1000:.0f} ms, {os.cpu_count()} CPU cores, "
        f"best and median of {args.repeats}"
    )
    print(
        "| concurrency | prompts/request | prompts | seconds | prompts/s | ideal | "
        "fraction (best) | fraction (median) | client CPU ms/prompt (median) | load avg |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['concurrency']} | {row['per_request']} | {row['requests']} | "
            f"{row['seconds']:.2f} | {row['throughput']:.1f} | {row['ideal']:.0f} | "
            f"{100 * row['fraction']:.1f}% | {100 * row['median_fraction']:.1f}% | "
            f"{row['median_cpu_ms']:.3f} | {row['load']:.1f} |"
        )
    for row in rows:
        target = TARGETS.get(row["concurrency"])
        if target is not None:
            verdict = "meets" if row["median_fraction"] >= target else "MISSES"
            print(
                f"target >= {100 * target:.0f}% of ideal at concurrency {row['concurrency']}: "
                f"{verdict} ({100 * row['median_fraction']:.1f}% median)"
            )
    worst = (
        max(r["median_cpu_ms"] for r in rows if r["concurrency"] >= 32)
        if any(r["concurrency"] >= 32 for r in rows)
        else None
    )
    if worst is not None:
        print(
            f"client CPU per prompt at concurrency >= 32: at most {worst:.2f} ms "
            f"(target 0.3 ms: {'meets' if worst <= 0.3 else 'MISSES'}); a load average above "
            "the core count means the client waits for a core."
        )


# ------------------------------------------------------------------------------ lm-eval


def lexbench_cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "lexbench.cli", *args]


def prepare_items(folder: Path, count: int) -> tuple[Path, Path]:
    """LAMBDA items (count / 3 per relation) as lexbench's JSONL and as an lm-eval task."""
    items, task = folder / "lambda.jsonl", folder / "task"
    per_relation = str(max(1, count // 3))
    for command in (
        ["generate", "lambda", "--per-relation", per_relation, "-o", str(items)],
        ["export", "lambda", "--items", str(items), "--format", "lm-eval", "-o", str(task)],
    ):
        subprocess.run(lexbench_cli(*command), check=True, capture_output=True, text=True)
    return items, task


def run_lexbench(
    url: str, items: Path, folder: Path, concurrency: int
) -> tuple[float, float, dict[str, str]]:
    out = folder / "lexbench-runs"
    started = time.perf_counter()
    done = subprocess.run(
        lexbench_cli(
            "run",
            "lambda",
            "--items",
            str(items),
            "--model",
            "openai:fake-model",
            "--base-url",
            url,
            "--max-concurrency",
            str(concurrency),
            "--cache",
            str(folder / "lexbench.sqlite"),
            "--out",
            str(out),
            "--no-progress",
        ),
        capture_output=True,
        text=True,
        check=False,
    )
    whole = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"lexbench failed: {done.stderr[-2000:]}")
    results = json.loads(next(out.rglob("results.json")).read_text())
    samples = [
        json.loads(line) for line in next(out.rglob("samples.jsonl")).read_text().splitlines()
    ]
    return whole, float(results["run"]["seconds"]), {s["id"]: s["output"] for s in samples}


def run_lm_eval(
    url: str, task: Path, folder: Path, concurrency: int
) -> tuple[float, float, dict[str, str]]:
    out = folder / "lm-eval-out"
    model_args = (
        f"model=fake-model,base_url={url}/completions,num_concurrent={concurrency},"
        "tokenizer_backend=None,tokenized_requests=False,max_retries=3"
    )
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            LM_EVAL_DRIVER,
            "run",
            "--model",
            "local-completions",
            "--model_args",
            model_args,
            "--include_path",
            str(task),
            "--tasks",
            LM_EVAL_TASK,
            "--log_samples",
            "--output_path",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    whole = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"lm_eval failed: {done.stderr[-3000:]}")
    phase = sum(
        float(line.split()[1])
        for line in done.stderr.splitlines()
        if line.startswith("LMEVAL_REQUEST_PHASE ")
    )
    [samples_file] = list(out.rglob(f"samples_{LM_EVAL_TASK}_*.jsonl"))
    rows = [json.loads(line) for line in samples_file.read_text().splitlines()]
    return whole, phase, {r["doc"]["id"]: r["resps"][0][0] for r in rows}


def versus_lm_eval(url: str, args: argparse.Namespace) -> None:
    try:
        import lm_eval  # noqa: F401
    except ImportError:
        print("lm_eval is not installed (pip install 'lm-eval[api]'): the comparison is skipped")
        return
    concurrency = args.lm_eval_concurrency
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as scratch:
        items, task = prepare_items(Path(scratch), args.lm_eval_items)
        # Alternating, each in a fresh folder and cache: a busy spell of the machine falls on
        # both clients alike, and no run finds another's answers.
        for repeat in range(args.lm_eval_repeats):
            folder = Path(scratch) / f"repeat-{repeat}"
            folder.mkdir()
            ours.append(run_lexbench(url, items, folder, concurrency))
            theirs.append(run_lm_eval(url, task, folder, concurrency))
    count = len(ours[0][2])
    same = min(sum(o[2][k] == t[2].get(k) for k in o[2]) for o, t in zip(ours, theirs))
    ideal = count * args.latency / concurrency
    print(
        f"\nLAMBDA, {count} prompts, concurrency {concurrency}, server latency "
        f"{args.latency * 1000:.0f} ms (ideal request phase {ideal:.2f} s), "
        f"{args.lm_eval_repeats} runs each, medians (range), load avg {os.getloadavg()[0]:.1f}"
    )
    print("| client | whole process s | request phase s | request phase / ideal |")
    print("|---|---:|---:|---:|")
    for name, runs in (
        ("lexbench (openai backend, cache on)", ours),
        ("lm_eval local-completions", theirs),
    ):
        whole, phase = [r[0] for r in runs], [r[1] for r in runs]
        print(
            f"| {name} | {statistics.median(whole):.1f} ({min(whole):.1f}–{max(whole):.1f}) | "
            f"{statistics.median(phase):.2f} ({min(phase):.2f}–{max(phase):.2f}) | "
            f"{ideal / statistics.median(phase):.0%} |"
        )
    ratios = [t[0] / o[0] for o, t in zip(ours, theirs)]
    ratio = statistics.median(ratios)
    phase_ratio = statistics.median(t[1] / o[1] for o, t in zip(ours, theirs))
    print(
        f"lexbench vs lm_eval: {ratio:.2f}x end to end (runs side by side: "
        f"{', '.join(f'{r:.2f}x' for r in ratios)}), {phase_ratio:.2f}x in the request phase; "
        f"identical outputs {same}/{count}"
    )
    print(
        f"target >= 3x end to end with identical answers: "
        f"{'meets' if ratio >= 3 and same == count else 'MISSES'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.1, help="server latency in seconds")
    parser.add_argument("--levels", type=int, nargs="*", default=[1, 8, 32, 128])
    parser.add_argument(
        "--rounds",
        type=int,
        default=30,
        help="requests per concurrency slot (N = rounds x concurrency)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per level")
    parser.add_argument(
        "--prompts-per-request",
        type=int,
        default=None,
        help="prompts per completions request (default: the backend's, "
        "max_concurrency // 8 in 1..16)",
    )
    parser.add_argument(
        "--prompts-from",
        type=Path,
        default=None,
        help="JSON lines with `prompt` (and `decoding`) to send instead of short prompts, "
        "e.g. SetLexSem's paper grid",
    )
    parser.add_argument(
        "--lm-eval-items", type=int, default=3000, help="LAMBDA prompts for the lm-eval comparison"
    )
    parser.add_argument("--lm-eval-concurrency", type=int, default=128)
    parser.add_argument(
        "--lm-eval-repeats",
        type=int,
        default=3,
        help="runs of each client, alternating (the median is printed)",
    )
    parser.add_argument("--no-lm-eval", action="store_true", help="skip the lm-eval comparison")
    args = parser.parse_args()

    process, url = start_server(args.latency)
    try:
        if args.levels:
            levels(url, args)
        if not args.no_lm_eval:
            versus_lm_eval(url, args)
    finally:
        process.stdin.close()
        process.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
