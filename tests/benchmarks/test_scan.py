"""SCAN: the loader's counts, prompts and shots, scoring on token ids, tables, comparisons."""

from __future__ import annotations

import hashlib
import json
import math
import shutil

import pytest

from lexbench import api
from lexbench.benchmarks.analogies.prompts import query_prompt
from lexbench.benchmarks.analogies.rank import rank_outcome
from lexbench.benchmarks.scan.benchmark import (
    SCAN_SHA256,
    ScanBenchmark,
    dataset_statistics,
    load_scan,
    packaged_scan,
    parse_scan,
)
from lexbench.benchmarks.scan.conditions import compare_scan
from lexbench.models.targets import FirstTokenIds
from lexbench.stats import clustered_standard_error
from lexbench.types import RankedToken, Response
from mock_model import ScriptedModel


@pytest.fixture
def scan_csv(shared_data):
    return shared_data / "scan" / "SCAN_dataset.csv"


@pytest.fixture
def scan_items(scan_csv):
    return load_scan(scan_csv)


def test_loader_counts(scan_items):
    assert dataset_statistics(scan_items) == {
        "analogies": 449,
        "mappings": 65,
        "science": {"analogies": 77, "mappings": 11},
        "metaphor": {"analogies": 372, "mappings": 54},
        "with_alternatives": 65,  # the later of two repeated rows replaces the earlier
    }
    assert len({i.id for i in scan_items}) == 449


def test_a_repeated_triple_keeps_the_later_row_as_the_papers_code_does(scan_items):
    # Rows 60/356 and 69/292 repeat a (source, target, targ_word) triple; the paper's code
    # keys rows by that triple, so the later row is the one evaluated, at the first's place.
    memory = [i for i in scan_items if (i.b, i.a, i.c) == ("computer", "mind", "memory")]
    assert [(i.id, i.d, i.alternatives) for i in memory] == [("scan-058", "RAM", ())]
    debater = [i for i in scan_items if (i.b, i.a, i.c) == ("war", "argument", "debater")]
    assert [(i.id, i.d, i.alternatives) for i in debater] == [
        ("scan-067", "combatant", ("warrior",))
    ]
    first = scan_items[0]
    assert (first.a, first.b, first.c, first.d, first.type, first.mapping) == (
        "atom",
        "solar system",
        "nucleus",
        "sun",
        "science",
        "solar system -> atom",
    )
    assert all(i.a == i.a.strip() and i.d == i.d.strip() for i in scan_items)


def test_the_packaged_csv_is_the_pinned_public_file_and_runs_offline(
    scan_csv, tmp_path, monkeypatch
):
    assert hashlib.sha256(packaged_scan().read_bytes()).hexdigest() == SCAN_SHA256
    assert hashlib.sha256(scan_csv.read_bytes()).hexdigest() == SCAN_SHA256
    assert (packaged_scan().parent / "LICENSE").read_text().startswith("The SCAN dataset")
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    assert len(load_scan()) == 449  # no network, empty cache: the packaged copy
    from lexbench.benchmarks.scan.benchmark import locate_scan
    from lexbench.datasets.fetch import cached_path

    shutil.copy(scan_csv, cached_path("scan/SCAN_dataset.csv"))
    assert locate_scan(download=True) == cached_path("scan/SCAN_dataset.csv")  # checked copy


def test_loader_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no SCAN dataset"):
        load_scan(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="missing column"):
        parse_scan("target,source\natom,solar system\n", "x.csv")
    header = "target,source,targ_word,src_word,alternatives,analogy_type\n"
    with pytest.raises(ValueError, match=r"x.csv:2: analogy_type 'poetry'"):
        parse_scan(header + "a,b,c,d,,poetry\n", "x.csv")
    with pytest.raises(ValueError, match=r"x.csv:2: empty src_word"):
        parse_scan(header + "a,b,c,,,science\n", "x.csv")


def test_prompts_and_one_shot(scan_items):
    item = scan_items[0]
    assert query_prompt(item) == "If atom is like solar system, then nucleus is like"
    bench = ScanBenchmark(name="scan", dataset=scan_items, shots=1, seed=0)
    again = ScanBenchmark(
        name="scan", dataset=scan_items[:5], shots=1, seed=0, shot_pool=scan_items
    )
    for query in scan_items:
        [shot] = bench._shots[query.id]
        assert shot.id != query.id and not (shot.words() & query.words())
    for query in scan_items[:5]:  # a limited run sees the same shots
        assert bench.requests(query)[0].prompt == again.requests(query)[0].prompt
    [request] = bench.requests(item)
    [shot] = bench._shots[item.id]
    assert request.prompt == (
        f"If {shot.a} is like {shot.b}, then {shot.c} is like {shot.d}. "
        "If atom is like solar system, then nucleus is like"
    )
    assert (request.kind, request.answer_suffix, request.targets) == ("rank", ".", ("sun",))
    other_seed = ScanBenchmark(name="scan", dataset=scan_items, shots=1, seed=1)
    assert sum(other_seed._shots[i.id] != bench._shots[i.id] for i in scan_items) > 400


class WordTokenizer:
    """Each word gets one id (leading space stripped); ids are stable across calls."""

    def __init__(self):
        self.ids: dict[str, int] = {}

    def __call__(self, text, add_special_tokens=False):
        return {
            "input_ids": [self.ids.setdefault(w.lower(), len(self.ids) + 100) for w in text.split()]
        }

    def decode(self, ids):
        return next(w for w, i in self.ids.items() if i == ids[0])


def _ranking_model(answers_at, name="scripted"):
    """Ranks the gold answer at position answers_at(request) (None: absent), and answers
    target ranks by first token id, as a transformers backend does."""
    tokenizer = WordTokenizer()
    first_ids = FirstTokenIds(tokenizer)

    def ranked(request):
        filler = [(5000 + k, f"x{k}", -float(k)) for k in range(10)]
        position = answers_at(request)
        if position is not None:
            gold = request.targets[0]
            filler[position - 1] = (first_ids(gold), gold, -0.5)
        return filler

    model = ScriptedModel(
        ranked=ranked, name=name, target_ranks=lambda r, ids: first_ids.ranks(ids, r.targets)
    )
    return model


def _number(request) -> int:
    return int(request.id.split("-")[1])


def test_scores_tables_and_samples(scan_csv, scan_items, tmp_path):
    positions = [1, 2, None, 5, 10]
    model = _ranking_model(lambda r: positions[_number(r) % 5])
    run = api.run(
        "scan", model, data=scan_csv, out=tmp_path / "runs", progress=False, use_cache=False
    )
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    assert len(samples) == 449
    expected_rr = [1.0, 0.5, 0.0, 0.2, 0.1]
    for row in samples:
        k = int(row["id"].split("-")[1]) % 5
        assert row["value"] == expected_rr[k] and row["correct"] == (k == 0)
        assert {"id", "correct", "value", "error_class", "type", "mapping"} <= set(row)
        assert (
            row["error_class"] == ["correct", "in_top_k", "not_in_top_k", "in_top_k", "in_top_k"][k]
        )
    values = [r["value"] for r in samples]
    overall = run.results["overall"]
    assert overall["mrr"]["estimate"] == pytest.approx(sum(values) / 449)
    assert overall["mrr"]["se"] == pytest.approx(
        clustered_standard_error(values, [r["mapping"] for r in samples])
    )
    assert overall["acc_at_1"]["estimate"] == pytest.approx(
        sum(r["correct"] for r in samples) / 449
    )
    science = [r for r in samples if r["type"] == "science"]
    assert run.results["by_type"]["science"]["n"] == 77
    assert run.results["by_type"]["science"]["mrr"]["estimate"] == pytest.approx(
        sum(r["value"] for r in science) / 77
    )
    # recall@5 is the share of the distinct accepted answers in the top 5.
    row = next(r for r in samples if int(r["id"].split("-")[1]) % 5 == 3 and len(r["targets"]) > 1)
    assert row["recall_at_5"] == pytest.approx(1 / len(row["targets"]))
    assert row["target_ranks"][0] == 5 and row["responses"][0]["target_ranks"][0] == 5
    assert (run.folder.path / "figures" / "mrr_by_type.png").is_file()
    assert "| science | 77 | 77 |" in run.report


def test_rank_outcome_takes_the_best_accepted_answer_and_counts_recall():
    assert rank_outcome([None, 2, 7]) == rank_outcome([7, 2, None])
    outcome = rank_outcome([None, 2, 7])
    assert (outcome.rank, outcome.reciprocal_rank) == (2, 0.5)
    assert (outcome.recall_at_5, outcome.recall_at_10) == (
        pytest.approx(1 / 3),
        pytest.approx(2 / 3),
    )
    assert rank_outcome([None, None]).rank is None and rank_outcome([None]).reciprocal_rank == 0.0


def test_alternatives_are_targets_and_failures_are_typed(scan_items):
    debater = next(i for i in scan_items if i.c == "debater")
    bench = ScanBenchmark(name="scan", dataset=[debater])
    [request] = bench.requests(debater)
    assert request.targets == ("combatant", "warrior")
    response = Response(
        request_id=debater.id,
        ranked=(RankedToken(7, " x", -1.0), RankedToken(9, " war", -2.0)),
        target_ranks=(None, 2),
    )
    score = bench.score(debater, [response])
    assert score.value == 0.5 and score.details["recall_at_10"] == pytest.approx(1 / 2)
    failed = bench.score(debater, [Response(request_id=debater.id, error="boom")])
    assert failed.correct is None and failed.error_class == "request_failed"
    with pytest.raises(ValueError, match="1 target ranks for 2 targets"):
        bench.score(debater, [Response(request_id=debater.id, target_ranks=(1,))])


def test_combined_report_with_the_papers_test_and_a_glove_baseline(scan_csv, scan_items, tmp_path):
    def at(request):  # one-shot prompts find the answer; zero-shot ones rarely do
        shot = request.prompt.count("If ") == 2
        return 1 if shot else (3 if _number(request) % 4 == 0 else None)

    model = _ranking_model(at)
    combined = compare_scan(
        model,
        shots=[0, 1],
        baseline="glove",
        data=scan_csv,
        limit=2,  # the first 2 analogies of each of the 65 mappings
        resamples=2000,
        unpaired_resamples=5000,
        out=tmp_path / "runs",
        use_cache=False,
        progress=False,
    )
    results = combined["results"]
    assert list(results["conditions"]) == [
        "scripted 0-shot",
        "scripted 1-shot",
        "glove-6b-50d (scan-paper)",
    ]
    test = results["tests"]["scripted 0-shot vs scripted 1-shot"]["overall"]
    assert test["n"] == 130 and test["mrr_b"] == 1.0 and test["difference"] < 0
    assert test["p_items"] == pytest.approx(1 / 2001) and test["p_mappings"] < 0.01
    # scipy's two-sided p (the authors'): twice the smaller tail, (0 + 1) / 5001.
    assert test["p_unpaired"] == pytest.approx(2 / 5001) and test["unpaired_resamples"] == 5000
    assert "glove-6b-50d (scan-paper)" in combined["report"]
    assert (
        "p (paper, unpaired)" in combined["report"] and "p (paired mappings)" in combined["report"]
    )
    folder = combined["folder"]
    assert (folder / "report.md").is_file() and (folder / "figures" / "mrr_by_type.png").is_file()
    for path in results["folders"].values():  # each condition is an ordinary run
        rows = (tmp_path / "runs").parent.joinpath(path).joinpath("samples.jsonl")
        assert rows.is_file() and len(rows.read_text().splitlines()) == 130


@pytest.mark.slow
def test_smollm2_ranks_scan_with_token_ids(smollm2, scan_csv, tmp_path):
    run = api.run(
        "scan",
        smollm2,
        data=scan_csv,
        limit=1,
        types=["science"],  # the first analogy of each of the 11 science mappings
        shots=1,
        out=tmp_path / "runs",
        progress=False,
        use_cache=False,
    )
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    assert len(samples) == 11
    for row in samples:
        assert row["prompt"].endswith(" is like") and row["prompt"].count("If ") == 2
        keys = [
            smollm2.tokenizer(" " + w, add_special_tokens=False)["input_ids"][0]
            for w in row["targets"]
        ]
        ids = [t[0] for t in row["ranked"]]
        assert len(ids) == 10
        assert row["target_ranks"] == [ids.index(k) + 1 if k in ids else None for k in keys]
        hits = [p for p, t in enumerate(ids, 1) if t in keys]
        assert row["value"] == (1 / hits[0] if hits else 0.0)
    assert not math.isnan(run.results["overall"]["mrr"]["estimate"])


def test_command_line(scan_csv, tmp_path, capsys):
    from lexbench.cli import main

    common = [
        "--data",
        str(scan_csv),
        "--out",
        str(tmp_path / "runs"),
        "--no-cache",
        "--no-progress",
    ]
    assert main(["run", "scan", "--model", "glove", "--limit", "30", *common]) == 0
    printed = capsys.readouterr().out
    assert "# SCAN (scan-paper)" in printed and "run folder:" in printed
    assert main(["run", "scan", "--model", "glove", "--shots", "1", *common]) == 2
    assert "word vectors take no shots" in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                "scan",
                "--model",
                "glove",
                "--method",
                "3cosadd",
                "--restrict-vocab",
                "50000",
                "--limit",
                "30",
                *common,
            ]
        )
        == 0
    )
    [config_path] = (tmp_path / "runs" / "scan").glob("glove-6b-50d-top50000/*/config.json")
    config = json.loads(config_path.read_text())
    assert config["benchmark"]["method"] == "3cosadd" and config["model"]["restrict"] == 50000
