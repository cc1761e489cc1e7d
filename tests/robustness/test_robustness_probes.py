"""The loops and probes end to end on the fake OpenAI server: a scripted memoriser is
flagged and a fresh-answering control is not; a larger --sets K sends only the new sets;
the leaderboard, compare and the report show the spread."""

import hashlib
import json
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer
from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
from lexbench.benchmarks.scan.benchmark import packaged_scan
from lexbench.cli import main
from lexbench.plan import fresh_seeds

PER_RELATION = 10


def _lambda_key(prompt):
    """(support pairs, query) from a paper-style LAMBDA prompt."""
    lines = prompt.splitlines()
    return tuple(lines[:2]), lines[2].split(" : ")[0]


def _gold_by_key(index, seeds, per_relation=PER_RELATION):
    gold = {}
    for seed in seeds:
        for item in generate_items(index, LambdaConfig(per_relation=per_relation, seed=seed)):
            (a, b), (c, d) = item.support
            gold[((f"{a} : {b}", f"{c} : {d}"), item.query)] = item.gold
    return gold


def _args(server, tmp_path, *more):
    return [
        "--model",
        "openai:fake-model",
        "--base-url",
        server.url,
        "--out",
        str(tmp_path / "runs"),
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--no-progress",
        *more,
    ]


def _contamination(tmp_path, name):
    folder = tmp_path / "runs" / name / "fake-model" / "robustness"
    (path,) = [
        p for p in folder.glob("*.json") if p.name.startswith(("contamination", "completion"))
    ]
    return json.loads(path.read_text())


def test_a_memoriser_of_the_published_lambda_set_is_flagged(tiny_wordnet_index, tmp_path, capsys):
    published = _gold_by_key(tiny_wordnet_index, [42])

    def memoriser(prompt):
        return " " + published.get(_lambda_key(prompt), "nope")

    with FakeOpenAIServer(reply=memoriser, lifetime=120) as server:
        argv = [
            "contamination",
            "lambda",
            "--sets",
            "4",
            "--option",
            f"per_relation={PER_RELATION}",
        ]
        assert main(argv + _args(server, tmp_path)) == 0
    record = _contamination(tmp_path, "lambda")
    assert record["flagged"] and record["set_test"]["rank"] == 1 and record["sets"] == 4
    assert record["set_test"]["gap"] > 0.3 and record["item_test"]["p_value"] < 0.05
    assert "Flagged" in capsys.readouterr().out


def test_a_fresh_answering_model_is_not_flagged(tiny_wordnet_index, tmp_path):
    everything = _gold_by_key(tiny_wordnet_index, [42, *fresh_seeds(42, 4)])

    def knows_half(prompt):
        key = _lambda_key(prompt)
        coin = hashlib.sha256(key[1].encode()).digest()[0] % 2
        return " " + (everything.get(key, "nope") if coin else "nope")

    with FakeOpenAIServer(reply=knows_half, lifetime=120) as server:
        argv = [
            "contamination",
            "lambda",
            "--sets",
            "4",
            "--option",
            f"per_relation={PER_RELATION}",
        ]
        assert main(argv + _args(server, tmp_path)) == 0
    record = _contamination(tmp_path, "lambda")
    assert not record["flagged"]
    assert 0.2 < record["set_test"]["published"] < 0.8


def _scan_rows():
    return packaged_scan().read_text(encoding="utf-8").splitlines()


def test_a_memoriser_of_the_scan_csv_is_flagged_and_the_control_is_not(tmp_path):
    text = "\n".join(_scan_rows())

    def memoriser(prompt):
        shown = "\n".join(prompt.splitlines()[1:])  # the context rows and the row's start
        at = text.find(shown)
        return "unknown" if at < 0 else text[at + len(shown) :].split("\n", 1)[0] + "\n"

    with FakeOpenAIServer(reply=memoriser, lifetime=120) as server:
        assert main(["contamination", "scan", *_args(server, tmp_path / "m")]) == 0
    memorised = _contamination(tmp_path / "m", "scan")
    assert memorised["flagged"] and memorised["p_value"] < 1e-6
    assert memorised["real"]["rate"] > 0.95
    # Controls it completes are the rows the shuffle happened to leave after their file
    # predecessor; few of them.
    assert memorised["control"]["rate"] < 0.5
    assert memorised["completed_rows"][0]["row"] == _scan_rows()[1]

    with FakeOpenAIServer(lifetime=120) as server:  # hash-chosen words: no memory of the file
        assert main(["contamination", "scan", *_args(server, tmp_path / "c")]) == 0
    control = _contamination(tmp_path / "c", "scan")
    assert not control["flagged"] and control["real"]["completed"] == 0


def test_a_larger_k_sends_only_the_new_sets_and_the_leaderboard_shows_the_spread(
    tiny_wordnet_index, tmp_path, capsys
):
    from lexbench.report.compare import compare_runs
    from lexbench.report.leaderboard import build_leaderboard, to_markdown
    from lexbench.report.runs import load_run

    gold = _gold_by_key(tiny_wordnet_index, [42, 1, 2, 3], per_relation=4)

    def coin(prompt):  # right on about half the items, whichever set they are in
        right = hashlib.sha256(prompt.encode()).digest()[0] % 2
        return " " + (gold.get(_lambda_key(prompt), "nope") if right else "nope")

    run = ["run", "lambda", "--per-relation", "4"]
    with FakeOpenAIServer(reply=coin, lifetime=120) as server:
        assert main([*run, "--sets", "2", *_args(server, tmp_path)]) == 0
        first = server.requests
        assert main([*run, "--sets", "3", *_args(server, tmp_path)]) == 0
        out = capsys.readouterr().out
        assert "Spread across fresh item sets" in out and "seed 3" in out
        spread_file = next((tmp_path / "runs/lambda/fake-model/robustness").glob("sets-*.json"))
        spread = json.loads(spread_file.read_text())
        assert [c["sent"] for c in spread["cost"]][:3] == [0, 0, 0]
        assert spread["cost"][3]["sent"] == spread["cost"][3]["requests"] > 0
        assert server.requests - first <= spread["cost"][3]["requests"]
        assert (
            main(
                [
                    "run",
                    "lambda",
                    "--per-relation",
                    "4",
                    "--prompt-variant",
                    "all",
                    *_args(server, tmp_path),
                ]
            )
            == 0
        )
    tables = build_leaderboard([tmp_path / "runs"])
    (row,) = tables["lambda"]  # fresh sets and other wordings folded into the published row
    assert set(row.extra) >= {"SD across sets", "SD across prompts"}
    assert "SD across sets" in to_markdown(tables)
    published = load_run(spread["published_folder"])
    twin = load_run(spread["published_folder"])
    comparison = compare_runs([published, twin.__class__(**{**twin.__dict__, "label": "twin"})])
    assert spread["summary"]["overall"]["sd"] > 0  # a same-answer twin: difference 0 < SD
    assert any("smaller than 'twin'" in w or "smaller than" in w for w in comparison.warnings)


def test_sets_are_refused_for_fixed_data_and_all_wordings_with_sets(tmp_path, capsys):
    out = ["--out", str(tmp_path)]
    assert main(["run", "scan", "--model", "glove", "--sets", "2", *out]) != 0
    assert "reads fixed data" in capsys.readouterr().err
    assert main(["run", "lambda", "--sets", "2", "--prompt-variant", "all", *out]) != 0
    assert "one at a time" in capsys.readouterr().err
    assert main(["run", "all", "--sets", "2", "--prompt-variant", "all", *out]) != 0
    assert "one at a time" in capsys.readouterr().err


def test_ekar_builds_its_own_benchmark_and_still_takes_every_wording(tmp_path):
    data = ["--data", str(Path(__file__).parents[1] / "fixtures" / "ekar" / "english")]
    with FakeOpenAIServer(lifetime=60) as server:
        argv = ["run", "ekar", *data, "--prompt-variant", "all", *_args(server, tmp_path)]
        assert main(argv) == 0
    (path,) = (tmp_path / "runs" / "ekar" / "fake-model" / "robustness").glob("prompts-*.json")
    record = json.loads(path.read_text())
    folders = [Path(m["folder"]) for m in record["members"]]
    assert len(set(folders)) == 4
    variants = [
        json.loads((f / "config.json").read_text())["benchmark"].get("prompt_variant")
        for f in folders
    ]
    assert variants == [None, "instruction", "separator", "preamble"]


def test_a_builder_that_ignores_the_wording_is_refused(tmp_path):
    from types import SimpleNamespace

    from lexbench import plugins
    from lexbench.robustness.spread import spread_record

    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "samples.jsonl").write_text('{"id": "1", "correct": true}\n')
    stats = SimpleNamespace(to_dict=lambda: {"requests": 1, "cached": 0, "sent": 1, "seconds": 0})
    same = SimpleNamespace(
        folder=SimpleNamespace(
            path=folder, config_path=folder / "config.json", samples_path=folder / "samples.jsonl"
        ),
        results={},
        stats=stats,
    )
    spec = plugins.benchmark("scan")
    with pytest.raises(ValueError, match="two wordings wrote the same run folder"):
        spread_record(spec, "prompts", [("paper", True, same), ("arrow", False, same)])


GOOGLE = """: capital-common-countries
Athens Greece Baghdad Iraq
Athens Greece Bangkok Thailand
Athens Greece Beijing China
Athens Greece Berlin Germany
Athens Greece Bern Switzerland
Baghdad Iraq Bangkok Thailand
Baghdad Iraq Beijing China
: family
boy girl brother sister
boy girl brothers sisters
boy girl dad mom
boy girl father mother
brother sister dad mom
brother sister father mother
brother sister grandfather grandmother
"""


def test_the_google_file_completion_probe_keeps_sections_and_flags_a_memoriser(tmp_path):
    from lexbench.benchmarks.analogies.probe import google_file
    from lexbench.robustness.completion import control_sequence, probes

    data = tmp_path / "questions-words.txt"
    data.write_text(GOOGLE)
    file = google_file({"data": str(data), "sample": 10})
    control = control_sequence(file)
    assert control[0] == ": capital-common-countries" and control[8] == ": family"
    assert sorted(control[1:8]) == sorted(GOOGLE.splitlines()[1:8])
    found = probes(file)
    assert len([p for p in found if not p.control]) == 10
    first = next(p for p in found if p.id == "row2")
    assert (
        first.prompt == ": capital-common-countries\nAthens Greece "
        and first.expected == "Baghdad Iraq"
    )

    def memoriser(prompt):
        at = GOOGLE.find(prompt)
        return "unknown" if at < 0 else GOOGLE[at + len(prompt) :].split("\n", 1)[0] + "\n"

    with FakeOpenAIServer(reply=memoriser, lifetime=60) as server:
        argv = ["contamination", "google", "--data", str(data), "--option", "sample=14"]
        assert main([*argv, *_args(server, tmp_path)]) == 0
    record = _contamination(tmp_path, "google")
    assert record["real"]["completed"] == record["real"]["probes"] == 14
    assert record["flagged"] and record["control"]["rate"] < 0.5


def test_the_model_is_loaded_once_for_all_the_sets(tiny_wordnet_env, tmp_path, monkeypatch):
    from lexbench.models import registry

    loads = []
    real = registry.load_model

    def counting(model, options=None):
        loads.append(model)
        return real(model, options)

    monkeypatch.setattr(registry, "load_model", counting)
    with FakeOpenAIServer(lifetime=60) as server:
        argv = ["run", "lambda", "--per-relation", "2", "--sets", "2", *_args(server, tmp_path)]
        assert main(argv) == 0
    assert loads == ["openai:fake-model"]


def test_failed_probe_requests_exit_3_or_4_and_the_reading_says_so(tmp_path, capsys):
    def all_fail(prompt, attempt):
        return "500"

    def some_fail(prompt, attempt):
        return "500" if hashlib.sha256(prompt.encode()).digest()[0] % 2 else None

    with FakeOpenAIServer(faults=all_fail, lifetime=120) as server:
        argv = ["contamination", "scan", "--max-retries", "0", *_args(server, tmp_path / "a")]
        assert main(argv) == 4
    captured = capsys.readouterr()
    assert "nothing was measured" in captured.out and "no sign" not in captured.out.lower()
    assert "probe requests failed" in captured.err
    record = _contamination(tmp_path / "a", "scan")
    assert record["failed_requests"] == record["requests"] > 0 and not record["flagged"]

    with FakeOpenAIServer(faults=some_fail, lifetime=120) as server:
        argv = ["contamination", "scan", "--max-retries", "0", *_args(server, tmp_path / "s")]
        assert main(argv) == 3
        record = _contamination(tmp_path / "s", "scan")
        assert 0 < record["failed_requests"] < record["requests"]
        assert f"{record['failed_requests']} of {record['requests']} requests failed" in (
            capsys.readouterr().out
        )
        assert main([*argv, "--allow-failures"]) == 0


def test_a_generated_benchmark_whose_requests_all_failed_exits_4(
    tiny_wordnet_index, tmp_path, capsys
):
    with FakeOpenAIServer(faults=lambda prompt, attempt: "500", lifetime=120) as server:
        argv = ["contamination", "lambda", "--sets", "2", "--max-retries", "0"]
        argv += ["--option", f"per_relation={PER_RELATION}", *_args(server, tmp_path)]
        assert main(argv) == 4
    out = capsys.readouterr().out
    assert "nothing was measured" in out and "No sign" not in out
    record = _contamination(tmp_path, "lambda")
    assert record["set_test"]["rank"] is None and not record["flagged"]
