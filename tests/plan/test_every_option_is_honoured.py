"""No option is ever silently ignored: every `lexbench run <benchmark>` (the built-ins and
the example plugin) is run with every shared option (the model, run and plan options every
run command takes, read from the parser itself, so a new shared option without a case here
fails), and each either reaches what the run wrote (its config.json, its folder, its spread
record, its cache file) or is refused in one line naming it, with exit status 2.

Answered by the scripted backend (tests/scripted_backend.py), which records the backend
options it was opened with, as the real backends record theirs.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lexbench.cli import build_parser, main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: Each benchmark's run command and the arguments that make it small and offline.
BENCHMARKS = {
    "lambda": ["--limit", "1"],
    "scan": ["--limit", "1"],
    "google": ["--limit", "1"],
    "bats": ["--data", "data/bats_mini", "--limit", "1"],
    "pairs": ["--data", "data/bats_mini", "--limit", "1"],
    "sat": ["--data", "data/sat_mini.jsonl", "--limit", "2"],
    "setlexsem": ["--grid", "small", "--limit", "1", "--select", "k=0", "--select", "m=2"],
    "ekar": ["--data", "data/ekar", "--limit", "1"],
    "hypernyms": ["--limit", "2"],
}
#: The options a plan reads rather than one run (checked through what the plan writes).
GROUPS = ("model", "run", "robustness (docs/robustness.md)")


@dataclass(frozen=True)
class Case:
    """How one shared option is given, and where its effect must show."""

    argv: tuple[str, ...]
    shows: Callable[[dict[str, Any], Path], bool]
    model: str = "scripted:a-chat"


def _config(work: Path, benchmark: str, out: str = "runs") -> dict[str, Any]:
    """The config.json of the newest run folder of `benchmark` under `out`."""
    folders = [
        p.parent
        for p in (work / out).glob(f"{benchmark}*/*/*/config.json")
        if p.parent.parent.name not in ("compare", "robustness")
    ]
    newest = max(folders, key=lambda p: (p / "config.json").stat().st_mtime_ns)
    return json.loads((newest / "config.json").read_text(encoding="utf-8"))


def _model_option(name: str, value: Any) -> Callable[[dict[str, Any], Path], bool]:
    return lambda config, work: config["model"].get("options", {}).get(name) == value


CASES: dict[str, Case] = {
    "model": Case(("--model", "scripted:b-chat"), lambda c, w: c["model"]["name"] == "b-chat"),
    "dtype": Case(("--dtype", "float16"), _model_option("dtype", "float16")),
    "device": Case(("--device", "cpu"), _model_option("device", "cpu")),
    "batch_size": Case(("--batch-size", "3"), _model_option("batch_size", 3)),
    "threads": Case(("--threads", "1"), _model_option("threads", 1)),
    "chat": Case(("--chat-template",), lambda c, w: c["chat"] is True),
    "system_prompt": Case(
        ("--system-prompt", "Answer briefly."),
        lambda c, w: c.get("system_prompt") == "Answer briefly." and c["chat"] is True,
    ),
    "revision": Case(("--revision", "r1"), _model_option("revision", "r1")),
    "base_url": Case(
        ("--base-url", "http://user:pw@127.0.0.1:9/v1"),
        lambda c, w: (
            c["model"]["options"]["base_url"] == "http://127.0.0.1:9/v1"
            and c["request"]["model_options"]["base_url"] == "http://127.0.0.1:9/v1"
            and "pw@" not in json.dumps(c)
        ),
    ),
    "api_key_env": Case(("--api-key-env", "MY_KEY"), _model_option("api_key_env", "MY_KEY")),
    "api": Case(("--api", "chat"), _model_option("api", "chat")),
    "max_concurrency": Case(("--max-concurrency", "2"), _model_option("max_concurrency", 2)),
    "requests_per_minute": Case(
        ("--requests-per-minute", "600"), _model_option("requests_per_minute", 600.0)
    ),
    "timeout": Case(("--timeout", "5"), _model_option("timeout", 5.0)),
    "max_retries": Case(("--max-retries", "1"), _model_option("max_retries", 1)),
    "prompts_per_request": Case(
        ("--prompts-per-request", "2"), _model_option("prompts_per_request", 2)
    ),
    "max_retry_wait": Case(("--max-retry-wait", "3"), _model_option("max_retry_wait", 3.0)),
    "out": Case(("--out", "elsewhere"), lambda c, w: any((w / "elsewhere").rglob("config.json"))),
    "cache": Case(
        ("--cache", "other.sqlite"),
        lambda c, w: (w / "other.sqlite").is_file() and c["request"]["cache"] == "other.sqlite",
    ),
    "no_cache": Case(("--no-cache",), lambda c, w: c["request"]["use_cache"] is False),
    "no_progress": Case(("--no-progress",), lambda c, w: c["request"]["progress"] is False),
    "prompt_variant": Case(
        ("--prompt-variant", "WORDING"),
        lambda c, w: c["benchmark"].get("prompt_variant") not in (None, "paper"),
    ),
    "sets": Case(
        ("--sets", "1"),
        lambda c, w: any(w.glob(f"runs/{c['request']['benchmark']}/*/robustness/sets-*.json")),
    ),
    "allow_failures": Case(
        ("--allow-failures",), lambda c, w: c["request"]["allow_failures"] is True
    ),
}


def shared_options() -> dict[str, str]:
    """Every option of the shared groups of `run lambda`, by dest, with its longest flag."""
    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    lam = run._subparsers._group_actions[0].choices["lambda"]
    found = {}
    for group in lam._action_groups:
        if group.title in GROUPS:
            for action in group._group_actions:
                found[action.dest] = max(action.option_strings, key=len)
    return found


def test_every_shared_option_has_a_case():
    missing = sorted(set(shared_options()) - set(CASES))
    assert not missing, f"shared run options without a check here: {missing}"


def _wording(benchmark: str) -> str:
    """A wording the benchmark declares other than the paper's, or a name it lacks."""
    from lexbench import plugins
    from lexbench.wordings import declared_variants

    others = [v.name for v in declared_variants(plugins.benchmark(benchmark))[1:]]
    return others[0] if others else "no-such-wording"


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    from lexbench import plugins

    root = tmp_path_factory.mktemp("options")
    (root / "data").mkdir()
    shutil.copytree(FIXTURES / "bats_mini", root / "data" / "bats_mini")
    shutil.copytree(FIXTURES / "ekar" / "english", root / "data" / "ekar")
    shutil.copyfile(FIXTURES / "export" / "sat_mini.jsonl", root / "data" / "sat_mini.jsonl")
    plugins.backends()
    plugins._REGISTRY.backends["scripted"] = plugins.Backend("scripted", "scripted_backend", "test")
    old = Path.cwd()
    os.chdir(root)
    yield root
    os.chdir(old)
    plugins.reset()


def _names() -> list[str]:
    from lexbench import plugins

    names = [b for b in BENCHMARKS if b != "hypernyms"]
    if any(spec.name == "hypernyms" for spec in plugins.benchmarks()):
        names.append("hypernyms")
    return names


@pytest.mark.parametrize("benchmark", _names())
def test_every_shared_option_reaches_the_run_or_is_refused(benchmark, work, capsys):
    refused, honoured = [], []
    for dest, case in CASES.items():
        argv = [a.replace("WORDING", _wording(benchmark)) for a in case.argv]
        command = ["run", benchmark, *BENCHMARKS[benchmark], *argv]
        if "--model" not in argv:
            command += ["--model", case.model]
        if "--cache" not in argv:
            command += ["--cache", "cache.sqlite"]
        if "--no-progress" not in argv:
            command += ["--no-progress"]
        status = main(command)
        err = capsys.readouterr().err
        if status == 2:
            lines = [line for line in err.splitlines() if line.startswith("lexbench: error:")]
            flag = shared_options()[dest]
            assert len(lines) == 1, f"{benchmark} {flag}: refused without one clear line: {err}"
            assert flag in lines[0] or argv[-1] in lines[0], (
                f"{benchmark} {flag}: the refusal does not name the option: {lines[0]}"
            )
            refused.append(dest)
            continue
        assert status == 0, f"{benchmark} {' '.join(argv)}: exit {status}: {err[-500:]}"
        out = "elsewhere" if dest == "out" else "runs"
        config = _config(work, benchmark, out)
        assert case.shows(config, work), f"{benchmark} {' '.join(argv)}: not in the run"
        honoured.append(dest)
    # What each benchmark honours and refuses is what it declares, nothing else.
    from lexbench import plugins

    spec = plugins.benchmark(benchmark)
    expected_refusals = set()
    if spec.cannot_honour is not None:
        expected_refusals |= {"chat", "system_prompt"}
    if spec.regenerate is None:
        expected_refusals.add("sets")
    if spec.prompt_variants is None:
        expected_refusals.add("prompt_variant")
    assert set(refused) == expected_refusals, (benchmark, refused)
