"""A run writes the same bytes whether it streams in windows of 3 requests or 1,024, and
the same bytes as before streaming existed (issue 26): samples.jsonl, results.json (but
its timing block, `run`) and report.md (but the request phase's duration) of a slice of
every built-in benchmark, answered by a scripted model, are pinned by digest; a re-score
of each run (streaming too) rewrites the same samples.

The pins were taken from the run pipeline before it streamed (commit 86538d1, which kept
every item, response and score in memory); `_digests` prints them, so a deliberate
change of output is re-pinned by running this file with `-s` and reading the printout.
Re-pinned once since (issue 43): LAMBDA's and SetLexSem's report.md say "n/a" where a
statistic is undefined (Spearman's rho over one accuracy, an SD over one configuration),
where they said "nan" and "–"; samples and results are the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from lexbench import api
from lexbench.run import evaluate as evaluate_module
from lexbench.run.rescore import rescore_run
from lexbench.types import Request
from mock_model import ScriptedModel


def _pick(text: str, choices: int) -> int:
    return hashlib.sha256(text.encode("utf-8")).digest()[0] % choices


def _setlexsem_reply(items_by_id):
    """Right, one member short, a made-up member, the empty set, or unreadable, by prompt."""

    def reply(request: Request) -> str:
        item = items_by_id[request.id]
        members = sorted(item.answer, key=str)
        kind = _pick(request.prompt, 5)
        if kind == 1:
            members = members[:-1]
        elif kind == 2:
            members = [*members, "zzz"]
        elif kind == 3:
            members = []
        elif kind == 4:
            return "The answer is " + ", ".join(map(str, members))
        return "<answer>{" + ", ".join(map(str, members)) + "}</answer>"

    return reply


def _words_reply(request: Request) -> str:
    return [" cold\n", " the", " A", " B\nbecause", "C", " hot"][_pick(request.prompt, 6)]


def _ranked(request: Request):
    words = [" king", " queen", " cold", " hot", " warrior", " sun", " A", " B"]
    start = _pick(request.prompt, len(words))
    return [(i, words[(start + i) % len(words)], -float(i + 1)) for i in range(len(words))]


def _loglikelihoods(request: Request):
    continuations = request.continuations or ("",)
    return [-float(_pick(request.prompt + c, 50)) / 7 for c in continuations]


def _model(reply) -> ScriptedModel:
    return ScriptedModel(reply, name="pinned", ranked=_ranked, loglikelihoods=_loglikelihoods)


def _digests(folder: Path) -> dict[str, str]:
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    results.pop("run", None)
    canonical = json.dumps(results, sort_keys=True, ensure_ascii=False)
    return {
        "samples": hashlib.sha256((folder / "samples.jsonl").read_bytes()).hexdigest()[:16],
        "results": hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16],
        "report": hashlib.sha256(_untimed(folder / "report.md")).hexdigest()[:16],
    }


def _untimed(report: Path) -> bytes:
    """report.md without the request phase's duration ("... in 0.2s"), which is timing."""
    text = report.read_text(encoding="utf-8")
    return re.sub(r"(?m)^(Requests: .*) in [0-9.]+s$", r"\1", text).encode("utf-8")


def _run(name: str, model: ScriptedModel, out: Path, **options) -> dict[str, str]:
    run = api.run(name, model, out=out, use_cache=False, progress=False, **options)
    digests = _digests(run.folder.path)
    # A re-score (which streams too) rewrites the same samples and tables.
    before = run.folder.samples_path.read_bytes()
    rescored = rescore_run(run.folder.path, write=True)
    assert rescored.changed == 0 and rescored.items == before.count(b"\n")
    assert run.folder.samples_path.read_bytes() == before
    again = _digests(run.folder.path)
    assert again["samples"] == digests["samples"] and again["results"] != digests["results"]
    print(name, digests)
    return digests


FIXTURES = Path(__file__).parents[1] / "fixtures"
CASES = {
    "setlexsem": {"grid": "small", "limit": 2},
    "lambda": {"limit": 2},
    "scan": {"limit": 1},
    "ekar": {"limit": 2, "data": str(FIXTURES / "ekar" / "english")},
    "bats": {"limit_per_relation": 2, "data": str(FIXTURES / "bats_mini")},
    "google": {"limit_per_relation": 2},
}

PINNED: dict[str, dict[str, str]] = {
    "bats": {
        "samples": "28914788594d7b7a",
        "results": "db934b9d0390d935",
        "report": "c7deddf37fdfd9ca",
    },
    "ekar": {
        "samples": "07e51f4a9ea62355",
        "results": "5bf48a87ffec8b18",
        "report": "c70df743c60cf1cb",
    },
    "google": {
        "samples": "f30f0c15eb36cedf",
        "results": "ed032742abab17cf",
        "report": "49c4b268659ebfbb",
    },
    "lambda": {
        "samples": "d25fc1b5c8ca16a0",
        "results": "4b6b5d7b1846fea4",
        "report": "12333fd1249785ea",
    },
    "scan": {
        "samples": "65365ffe818c99ff",
        "results": "3a237ea6315942f6",
        "report": "2b4af1b723423b4a",
    },
    "setlexsem": {
        "samples": "a28f6531a8da2d28",
        "results": "35eba3d071c3c710",
        "report": "47ca70e2a2a09258",
    },
}


def _reply_for(name: str):
    if name == "setlexsem":
        from lexbench.benchmarks.setlexsem.benchmark import generate_items

        return _setlexsem_reply({i.id: i for i in generate_items("small", limit=2)})
    return _words_reply


@pytest.mark.parametrize("name", sorted(CASES))
def test_streamed_runs_write_the_pinned_bytes(name, tmp_path, monkeypatch):
    whole = _run(name, _model(_reply_for(name)), tmp_path / "whole", **CASES[name])
    # Windows of three requests: every item boundary, window boundary and order path.
    monkeypatch.setattr(evaluate_module, "WINDOW_REQUESTS", 3, raising=False)
    windowed = _run(name, _model(_reply_for(name)), tmp_path / "windowed", **CASES[name])
    assert windowed == whole
    assert whole == PINNED[name]
