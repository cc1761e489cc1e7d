"""The backend contract: a backend is one file plus one registry line, and every backend
that can answer a benchmark's requests runs it, through the one entry point `api.run`.

The backend below is defined in this file (a toy "model" over a word list) and registered
with one line; it then runs SCAN (rank requests) and SAT (loglikelihood requests) like any
other model. Then: SCAN, Google and pair files through the OpenAI-compatible backend against
the fake server; `run all`, `leaderboard` and `rescore` from the command line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from fake_openai_server import FakeOpenAIServer, split_tokens
from lexbench import api, plugins
from lexbench.cli import main
from lexbench.models.base import Model
from lexbench.types import RankedToken, Request, Response

WORDS = ("sun", "nucleus", "planet", "electron", "gravity", "queen", "woman", "paris", "cat")


class WordListModel(Model):
    """Ranks a fixed word list, the words of the prompt first (a parrot); scores a
    continuation by how many of its words it knows. Deterministic, no weights."""

    kinds = frozenset({"rank", "loglikelihood"})

    def __init__(self, name: str):
        self.name = f"wordlist-{name}"

    def fingerprint(self) -> dict[str, Any]:
        return {"backend": "wordlist", "model": self.name}

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for request in requests:
            seen = [w.strip(".,").lower() for w in request.prompt.split()]
            order = list(dict.fromkeys([w for w in reversed(seen) if w in WORDS] + list(WORDS)))
            ranked = tuple(
                RankedToken(WORDS.index(w), " " + w, -float(i))
                for i, w in enumerate(order[: request.top_k])
            )
            ranks = tuple(
                order[: request.top_k].index(t) + 1 if t in order[: request.top_k] else None
                for t in request.targets
            )
            out.append(Response(request_id=request.id, ranked=ranked, target_ranks=ranks))
        return out

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        return [
            Response(
                request_id=r.id,
                loglikelihoods=tuple(
                    float(sum(w.strip(".") in WORDS for w in c.split())) for c in r.continuations
                ),
                continuation_tokens=tuple(len(c.split()) for c in r.continuations),
            )
            for r in requests
        ]


def load(name: str, options: dict[str, Any]) -> Model:
    """The registry entry of the toy backend."""
    return WordListModel(name)


SAT = """190 FROM REAL SATs
sun planet n:n
nucleus electron n:n
paris cat n:n
a
"""


def register_wordlist(monkeypatch):
    """What an entry point `wordlist = "<this module>"` in the `lexbench.models` group does."""
    backends = plugins.backends()  # discovered first, so the test's entry stays
    monkeypatch.setitem(
        plugins._REGISTRY.backends, "wordlist", plugins.Backend("wordlist", __name__, "test")
    )
    assert "wordlist" not in backends


def test_a_backend_is_one_file_plus_one_registry_line(monkeypatch, tmp_path, shared_data):
    register_wordlist(monkeypatch)  # what its entry point does
    scan = api.run(
        "scan", "wordlist:toy", limit=1, out=tmp_path / "runs", use_cache=False, progress=False
    )
    assert scan.results["overall"]["n"] == 65 and scan.results["request_kind"] == "rank"
    rows = [json.loads(line) for line in scan.folder.samples_path.read_text().splitlines()]
    first = next(r for r in rows if r["c"] == "nucleus" and r["d"] == "sun")
    assert first["rank"] == 2 and first["value"] == 0.5  # the parrot says nucleus, then sun
    sat_file = tmp_path / "sat.txt"
    sat_file.write_text(SAT)
    sat = api.run(
        "sat", "wordlist:toy", data=sat_file, out=tmp_path / "runs", use_cache=False, progress=False
    )
    assert sat.results["overall"]["n"] == 1 and sat.results["overall"]["scored"] == 1
    config = json.loads(sat.folder.config_path.read_text())
    assert config["model"]["kinds"] == ["rank", "loglikelihood"]
    assert config["run_options"] == {"benchmark": "sat", "data": str(sat_file)}


def test_a_benchmark_a_model_cannot_answer_is_refused_by_name(monkeypatch, tmp_path):
    register_wordlist(monkeypatch)
    with pytest.raises(ValueError, match="word-vector models; wordlist-toy ranks next tokens"):
        api.run("scan", "wordlist:toy", method="3cosadd", limit=2, out=tmp_path, use_cache=False)
    from lexbench.models.base import UnsupportedRequest

    with pytest.raises(
        ValueError,
        match="setlexsem needs a model that answers generate "
        "requests; wordlist-toy answers loglikelihood, rank",
    ):
        api.run("setlexsem", "wordlist:toy", out=tmp_path, use_cache=False)
    # Past the declared check, the backend's own refusal names it and what it answers.
    with pytest.raises(
        UnsupportedRequest,
        match=r"\(wordlist-toy\) cannot generate text "
        r"\(it answers: rank, loglikelihood\)",
    ):
        WordListModel("toy").generate([Request(id="x", kind="generate", prompt="hi")])
    with pytest.raises(ValueError, match="unknown benchmark 'nope'"):
        api.run("nope", "wordlist:toy", out=tmp_path)


@pytest.mark.parametrize("endpoint", ["completions", "chat"])
def test_scan_google_and_pairs_through_an_openai_compatible_server(endpoint, tmp_path):
    pairs = tmp_path / "capitals.txt"
    pairs.write_text("france\tparis\ngermany\tberlin\nitaly\trome\n")
    with FakeOpenAIServer() as server:
        options = {"base_url": server.url, "api": endpoint}
        runs = {
            name: api.run(
                name,
                "openai:fake",
                model_options=options,
                out=tmp_path / "runs",
                use_cache=False,
                progress=False,
                **extra,
            )
            for name, extra in (
                ("scan", {"limit": 1, "types": ["science"]}),  # 11 mappings
                ("google", {"limit_per_relation": 2}),
                ("pairs", {"data": pairs}),
            )
        }
    for name, run in runs.items():
        rows = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
        assert rows and run.results["run"]["failed"] == 0, name
        config = json.loads(run.folder.config_path.read_text())
        assert config["model"]["rank_target_rule"].startswith("exact first token"), name
        for row in rows:
            texts = [t[1] for t in row["ranked"]]
            for target, rank in zip(row["targets"], row["target_ranks"]):
                # The exact rule: the server's own first token of " " + target (of the
                # target alone for a chat reply), learned by a completions echo request.
                first = split_tokens((" " if endpoint == "completions" else "") + target)[0]
                expected = next((i for i, t in enumerate(texts, 1) if t == first), None)
                assert rank == expected, (name, row["id"], target, texts)
            assert row["value"] == (1 / row["rank"] if row["rank"] else 0.0)


def test_run_all_leaderboard_and_rescore_from_the_command_line(tmp_path, capsys, monkeypatch):
    out = tmp_path / "runs"
    common = ["--out", str(out), "--no-cache", "--no-progress"]
    # E-KAR's data is downloaded from the Hub: point it at a closed local port, as offline.
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    assert (
        main(
            [
                "run",
                "all",
                "--model",
                "glove",
                "--limit",
                "3",
                "--only",
                "scan",
                "google",
                "setlexsem",
                "ekar",
                *common,
            ]
        )
        == 0
    )
    printed = capsys.readouterr()
    assert "Leaderboard" in printed.out and "report:" in printed.out
    assert "skipped setlexsem: setlexsem needs a model that answers generate" in printed.out
    assert "skipped ekar: could not download E-KAR" in printed.out
    assert (out / "scan").is_dir() and (out / "google").is_dir()
    # The report's SCAN summary is MRR@10 with its clustered SE, not an accuracy column.
    report = (out / "suite" / "glove-6b-50d" / "report.md").read_text()
    scan_summary = report.split("## SCAN")[1].split("### Runs")[0]
    assert "MRR@10" in scan_summary and "± " in scan_summary and "accuracy %" not in scan_summary
    assert main(["leaderboard", str(out)]) == 0
    board = capsys.readouterr().out
    assert "## scan" in board and "## google" in board and "MRR@10" in board
    csv_file = tmp_path / "board.csv"
    assert main(["leaderboard", str(out), "--format", "csv", "-o", str(csv_file)]) == 0
    assert csv_file.read_text().splitlines()[0].startswith("benchmark,model,scored,metric")
    [scan_run] = [p for p in (out / "scan").glob("*/*") if (p / "results.json").is_file()]
    assert main(["rescore", str(scan_run)]) == 0
    assert "0 of 194 items changed" in capsys.readouterr().out  # 3 of each mapping
    # A scorer that changes changes the rescored verdicts, from the recorded responses alone.
    from lexbench.benchmarks.analogies import rank as analogy_rank

    monkeypatch.setattr(analogy_rank, "DEFAULT_TOP_K", 0)
    monkeypatch.setattr(
        analogy_rank,
        "rank_outcome",
        lambda ranks, top_k=0: analogy_rank.RankOutcome(None, 0.0, 0.0),
    )
    assert main(["rescore", str(scan_run), "--write"]) == 0
    assert "run folder updated" in capsys.readouterr().out
    results = json.loads((scan_run / "results.json").read_text())
    assert results["overall"]["mrr"]["estimate"] == 0.0
