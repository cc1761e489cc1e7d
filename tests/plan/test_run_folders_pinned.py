"""The run path may be rebuilt, but what a command writes may not move: a fixed set of
commands (every `run <benchmark>` shape, plans over models, sets and wordings, `run all`,
`contamination`, the example plugin), answered by the scripted backend, write run folders
whose paths (benchmark / model / configuration hash) and contents are pinned here.

Pinned per run folder: its path, samples.jsonl, results.json without its timing block
(`run`) and config.json without the package versions (they differ between machines),
without the `request` block (the options as the command was given, added by issue 42) and
with the builder options recorded as null left out (null is the builder's default: a
command that no longer passes an option it was not given writes the same run);
per spread or probe record: the record without its timing (`cost`); per comparison: its
JSON. Reports and figures are not pinned (their wording may improve).

The pins were taken at commit 6b24aed, before the run path was rebuilt around one
request and one planner, with one deliberate exception: `lexbench run ekar` built its
benchmark itself and recorded no builder options, so `lexbench rescore` could not rebuild
its runs; since issue 42 it runs through `api.run` like every benchmark and records them,
and the config.json pins of its two runs were re-taken then (their folders, samples and
results are still 6b24aed's). `LEXBENCH_REPIN=1` rewrites the pins (a deliberate change only).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from lexbench.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PINS = FIXTURES / "run_folders_pinned.json"
#: Data the commands read, copied into the work folder and named by a relative path: a
#: data path is part of a run's identity, so the pins hold wherever the checkout lies.
DATA = {"FIXTURES": "data"}
COPIED = ("bats_mini", "export/sat_mini.jsonl", "ekar/english")

COMMANDS = [
    "run lambda --model scripted:a --limit 2",
    "run lambda --model scripted:a-chat --limit 2 --prompt-style completion --chat-template",
    "run lambda --model scripted:a,scripted:b --limit 1",
    "run lambda --model scripted:a --limit 1 --sets 2",
    "run lambda --model scripted:a --limit 1 --prompt-variant all",
    "run scan --model scripted:a --limit 1",
    "run scan --model scripted:a --limit 1 --shots 0 1",
    "run google --model scripted:a --limit 1",
    "run bats --model scripted:a --data {FIXTURES}/bats_mini --limit 1",
    "run sat --model scripted:a --data {FIXTURES}/export/sat_mini.jsonl --limit 2",
    "run setlexsem --model scripted:a-chat --grid small --limit 1 --select k=0",
    "run ekar --model scripted:a --data {FIXTURES}/ekar/english --limit 1",
    "run ekar --task explain --model scripted:a --data {FIXTURES}/ekar/english --limit 1 "
    "--no-similarity",
    "run ekar --model glove --data {FIXTURES}/ekar/english --limit 1",
    "run scan --model glove --limit 1 --restrict-vocab 20000",
    "run all --model scripted:a --limit 1 --data ekar={FIXTURES}/ekar/english "
    "--data bats={FIXTURES}/bats_mini",
    "contamination lambda --model scripted:a --sets 1 --limit 1",
]
#: The example plugin, when it is installed (make setup-test installs it).
PLUGIN_COMMANDS = ["run hypernyms --model scripted:a --limit 2"]


def _digest(value: object) -> str:
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()[:16]
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _untimed(results: dict) -> dict:
    """results.json as pinned: without its timing block (`run`) and nested results."""
    return {k: v for k, v in results.items() if k not in ("run", "conditions")}


def _relative(text: str, root: Path) -> str:
    return text.replace(str(root), "ROOT")


def _config(data: dict) -> dict:
    """A config.json as pinned: no versions, no request, no builder option set to null."""
    kept = {k: v for k, v in data.items() if k not in ("versions", "request", "configs")}
    if isinstance(kept.get("run_options"), dict):  # an option left unset: its default
        kept["run_options"] = {k: v for k, v in kept["run_options"].items() if v is not None}
    return kept


def digests(runs: Path) -> dict[str, str]:
    """Every pinned file under `runs`, by its path relative to it, with its digest."""
    out: dict[str, str] = {}
    for path in sorted(runs.rglob("*")):
        name = path.relative_to(runs).as_posix()
        if not path.is_file() or name.startswith("suite/") or "/figures/" in name:
            continue
        if path.name == "samples.jsonl":
            out[name] = _digest(_relative(path.read_text(encoding="utf-8"), runs.parent).encode())
        elif path.name == "results.json":
            data = json.loads(path.read_text(encoding="utf-8"))
            conditions = (data.get("conditions") or {}).values()  # SCAN's combined report
            out[name] = _digest([_untimed(data), *(_untimed(c) for c in conditions)])
        elif path.name == "config.json":
            text = _relative(path.read_text(encoding="utf-8"), runs.parent)
            data = json.loads(text)
            configs = (data.get("configs") or {}).values()  # SCAN's combined report's runs
            out[name] = _digest([_config(data), *(_config(c) for c in configs)])
        elif "/robustness/" in name or ("/compare/" in name and name.endswith(".json")):
            text = _relative(path.read_text(encoding="utf-8"), runs.parent)
            data = json.loads(text)
            out[name] = _digest({k: v for k, v in data.items() if k != "cost"})
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Run every command once, in one folder (later commands find earlier answers cached,
    as a user's would), and return the digests of what they wrote."""
    from lexbench import plugins

    work = tmp_path_factory.mktemp("pinned")
    plugins.backends()
    plugins._REGISTRY.backends["scripted"] = plugins.Backend("scripted", "scripted_backend", "test")
    commands = COMMANDS + [c for c in PLUGIN_COMMANDS if _plugin_installed()]
    for name in COPIED:
        source, target = FIXTURES / name, work / "data" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
    old = Path.cwd()
    os.chdir(work)
    try:
        for command in commands:
            argv = command.format(**DATA).split()
            code = main([*argv, "--out", "runs", "--cache", "cache.sqlite", "--no-progress"])
            assert code == 0, f"{command}: exit {code}"
    finally:
        os.chdir(old)
        plugins.reset()
    return digests(work / "runs")


def _plugin_installed() -> bool:
    from lexbench import plugins

    return any(spec.name == "hypernyms" for spec in plugins.benchmarks())


def test_every_run_folder_is_where_and_what_it_was(written):
    if os.environ.get("LEXBENCH_REPIN"):
        PINS.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    pinned = json.loads(PINS.read_text(encoding="utf-8"))
    if not _plugin_installed():
        pinned = {k: v for k, v in pinned.items() if not k.startswith("hypernyms/")}
    missing = sorted(set(pinned) - set(written))
    extra = sorted(set(written) - set(pinned))
    changed = sorted(k for k in set(pinned) & set(written) if pinned[k] != written[k])
    assert not missing, f"no longer written: {missing}"
    assert not extra, f"newly written: {extra}"
    assert not changed, f"written differently: {changed}"
