"""Human studies without a browser: kappas, the study store, sampling, the human:NAME model,
results (run folders, agreement, crowd) and the CSV sheets. The page itself is driven in
Chromium by test_human_browser.py."""

from __future__ import annotations

import csv
import json
import math
import re
import sqlite3
from pathlib import Path

import pytest

from lexbench.benchmarks.ekar.splits import load_split
from lexbench.benchmarks.lambda_.human import sample_lambda
from lexbench.benchmarks.lambda_.items import LambdaConfig, LambdaItem, generate_items
from lexbench.human.agreement import cohen_kappa, fleiss_kappa, kappa
from lexbench.human.backend import HumanModel, prompt_key
from lexbench.human.sampling import build_study, draw
from lexbench.human.store import Study, StudyError, check_annotator
from lexbench.human.tasks import task_for
from lexbench.models.registry import load_model
from lexbench.types import Request

EKAR = Path(__file__).parents[1] / "fixtures" / "ekar" / "english"


# ------------------------------------------------------------------------------ agreement


def test_cohen_kappa_matches_the_textbook_example():
    # 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15 -> kappa 0.4.
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    result = cohen_kappa(a, b)
    assert result.observed == pytest.approx(0.7)
    assert result.expected == pytest.approx(0.5)
    assert result.kappa == pytest.approx(0.4)
    assert cohen_kappa(a, a).kappa == pytest.approx(1.0)


def test_fleiss_kappa_matches_fleiss_1971_worked_example():
    # The classic table: 10 items, 14 raters, 5 categories; kappa = 0.210.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [
        [category for category, count in enumerate(row) for _ in range(count)] for row in table
    ]
    result = fleiss_kappa(ratings)
    assert result.kappa == pytest.approx(0.2099, abs=1e-4)
    assert result.observed == pytest.approx(0.378, abs=1e-3)
    assert result.expected == pytest.approx(0.2128, abs=1e-4)
    assert result.items == 10 and result.raters == 14


def test_kappa_picks_the_method_and_refuses_bad_input():
    assert kappa([["a", "b"], ["a", "b"]]).method == "cohen"
    assert kappa([["a", "b"], ["a", "b"], ["a", "c"]]).method == "fleiss"
    assert math.isnan(cohen_kappa(["x", "x"], ["x", "x"]).kappa)  # one label: undefined
    assert cohen_kappa(["x", "x"], ["x", "x"]).to_dict()["kappa"] is None
    with pytest.raises(ValueError, match="one label per item"):
        cohen_kappa(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="at least two raters"):
        kappa([["a"]])
    with pytest.raises(ValueError, match="ratings for every item"):
        fleiss_kappa([["a", "b", "c"], ["a", "b"]])


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def lambda_items(wordnet_index):
    return generate_items(wordnet_index, LambdaConfig(per_relation=4))


def wrong_word(item: LambdaItem) -> str:
    """A word that is no candidate, no support word and not the query."""
    taken = {w.lower() for w in (*item.candidates, item.query, *item.support[0], *item.support[1])}
    return next(w for w in ("zebra", "quartz", "pencil", "violin") if w not in taken)


def show_and_answer(study: Study, name: str, typed: str) -> str:
    """What the web app does for one step: show the next step, then save an answer."""
    step = study.next_step(name)
    assert step is not None
    study.join(name)
    study.record_view(name, step)
    task = task_for(study.benchmark)
    assert study.save_answer(
        name, step.token, step.stage, typed, task.output(step.stage, typed), 900
    )
    return step.item_id


# ------------------------------------------------------------------------------ sampling, store


def test_lambda_sample_is_the_papers_per_relation_draw(lambda_items):
    chosen = sample_lambda(lambda_items, 2, seed=0)
    assert len(chosen) == 6
    assert {i.relation for i in chosen} == {"synonym", "antonym", "derivation"}
    assert all(
        sum(1 for i in chosen if i.relation == r) == 2 for r in ("synonym", "antonym", "derivation")
    )
    assert [i.id for i in chosen] == [i.id for i in sample_lambda(lambda_items, 2, seed=0)]
    assert [i.id for i in chosen] != [i.id for i in sample_lambda(lambda_items, 2, seed=1)]
    with pytest.raises(ValueError, match="no human study"):
        draw("scan", lambda_items, "paper")


def test_study_tokens_are_opaque_and_answers_are_saved_once(tmp_path, lambda_items):
    study = build_study(tmp_path / "s", "lambda", lambda_items, sample=1)
    ids = {item_id for item_id, _ in study.items()}
    rows = (
        sqlite3.connect(tmp_path / "s" / "study.sqlite")
        .execute("SELECT token, item_id FROM items")
        .fetchall()
    )
    for token, item_id in rows:
        assert re.fullmatch(r"[A-Za-z0-9_-]{16}", token)
        assert item_id not in token and not any(r in token for r in ("synonym", "antonym", "deriv"))
    assert (
        sqlite3.connect(tmp_path / "s" / "study.sqlite")
        .execute("PRAGMA journal_mode")
        .fetchone()[0]
        == "wal"
    )

    step = study.next_step("ann")
    with pytest.raises(StudyError, match="never shown"):
        study.save_answer("ann", step.token, step.stage, "x", "x", None)
    study.join("ann")
    study.record_view("ann", step)
    study.record_view("ann", step)  # a reload: same first time shown
    assert study.save_answer("ann", step.token, step.stage, "first", "first", 1500) is True
    assert study.save_answer("ann", step.token, step.stage, "second", "second", 10) is False
    assert [a.typed for a in study.answers("ann")] == ["first"]
    assert study.next_step("ann").token != step.token
    with pytest.raises(StudyError, match="no such item"):
        study.save_answer("ann", "forged-token", "answer", "x", "x", None)
    study.close()

    reopened = Study(tmp_path / "s")  # a restarted server sees every saved answer
    assert reopened.progress("ann").done == 1 and reopened.next_step("ann").token != step.token
    assert {item_id for item_id, _ in reopened.items()} == ids
    reopened.close()
    with pytest.raises(FileExistsError):
        build_study(tmp_path / "s", "lambda", lambda_items, sample=1)


def test_annotator_names_are_checked():
    assert check_annotator("alice.b-2") == "alice.b-2"
    for bad in ("", "a/b", "../x", "crowd", "x" * 41, "<script>"):
        with pytest.raises(StudyError):
            check_annotator(bad)


def test_a_read_only_study_made_before_invitations_reads_as_none(
    tmp_path, lambda_items, monkeypatch
):
    from lexbench.human import store

    build_study(tmp_path / "s", "lambda", lambda_items, sample=1).close()
    path = tmp_path / "s" / "study.sqlite"
    with sqlite3.connect(path) as old:  # as studies were before invitations
        old.execute("DROP TABLE invites")
    old.close()
    real = store.connect_database

    def read_only(at: Path) -> sqlite3.Connection:
        # Tests run as root, which ignores permissions: SQLite's own read-only mode.
        db = sqlite3.connect(f"file:{at}?mode=ro", uri=True, check_same_thread=False)
        db.isolation_level = None
        return db

    monkeypatch.setattr(store, "connect_database", read_only)
    study = Study(tmp_path / "s")
    assert study.invited() == set() and study.invitee("x" * 40) is None
    assert study.answers() == []
    study.close()
    monkeypatch.setattr(store, "connect_database", real)
    writable = Study(tmp_path / "s")  # a writable one gains the table
    assert writable.invitee(writable.invite("ann")) == "ann"
    writable.close()


def test_ekar_easy_needs_the_hard_answer_first_and_hard_cannot_change(tmp_path):
    items = load_split("en", "validation", data=EKAR).items
    study = build_study(tmp_path / "e", "ekar", items, sample=3, options={"language": "en"})
    assert study.stage_names() == ["hard", "easy"]
    hard = study.next_step("ann")
    assert hard.stage == "hard"
    study.join("ann")
    study.record_view("ann", hard)
    # The easy step of the same item cannot be answered before the hard one.
    easy = study.step(hard.token, "easy")
    study.record_view("ann", easy)
    with pytest.raises(StudyError, match="earlier step"):
        study.save_answer("ann", hard.token, "easy", "A", "A", None)
    assert study.save_answer("ann", hard.token, "hard", "b", "B", None)
    assert not study.save_answer("ann", hard.token, "hard", "c", "C", None)
    assert study.answer_to("ann", hard.token, "hard") == "b"
    assert study.next_step("ann").stage == "easy" and study.next_step("ann").token == hard.token
    task = task_for("ekar")
    with pytest.raises(StudyError, match="A, B, C or D"):
        task.output("easy", "E")
    shown_hard = task.display(task.from_json(hard.item), "hard")
    shown_easy = task.display(task.from_json(hard.item), "easy")
    assert "explanation" not in shown_hard and shown_easy["explanation"]
    study.close()


def _order_seen(study: Study, name: str) -> list[tuple[str, str]]:
    """(item id, stage) of every step, in the order the annotator is served them."""
    seen = []
    task = task_for(study.benchmark)
    study.join(name)
    while (step := study.next_step(name)) is not None:
        seen.append((step.item_id, step.stage))
        study.record_view(name, step)
        typed = "A" if study.benchmark == "ekar" else "zebra"
        assert study.save_answer(
            name, step.token, step.stage, typed, task.output(step.stage, typed), None
        )
    return seen


def test_items_come_in_the_studys_order_unless_each_annotator_gets_their_own(
    tmp_path, lambda_items
):
    same = build_study(tmp_path / "same", "lambda", lambda_items, sample=4)
    study_order = [item_id for item_id, _ in same.items()]
    assert (
        _order_seen(same, "ann") == _order_seen(same, "bob") == [(i, "answer") for i in study_order]
    )
    assert same.spec["order"] == "same"
    same.close()

    own = build_study(tmp_path / "own", "lambda", lambda_items, sample=4, order="per-annotator")
    assert own.spec["order"] == "per-annotator"
    ann_first = own.next_step("ann")
    assert own.next_step("ann") == ann_first  # a reload shows the same item
    ann, bob = _order_seen(own, "ann"), _order_seen(own, "bob")
    assert sorted(ann) == sorted(bob) == sorted((i, "answer") for i in study_order)
    assert ann != bob and ann != [(i, "answer") for i in study_order]
    assert ann[0][0] == ann_first.item_id
    own.close()
    again = Study(tmp_path / "own")  # a restart keeps every order
    assert [again.order_key("ann", t) for t in ("x", "y")] == [
        own.order_key("ann", t) for t in ("x", "y")
    ]
    again.close()
    with pytest.raises(ValueError, match="unknown item order 'random'"):
        build_study(tmp_path / "bad", "lambda", lambda_items, sample=1, order="random")


def test_per_annotator_order_keeps_each_ekar_problem_hard_then_easy(tmp_path):
    items = load_split("en", "validation", data=EKAR).items
    study = build_study(
        tmp_path / "e", "ekar", items, sample=3, options={"language": "en"}, order="per-annotator"
    )
    for name in ("ann", "bob", "cy"):
        seen = _order_seen(study, name)
        assert len(seen) == 6
        assert [stage for _, stage in seen] == ["hard", "easy"] * 3
        assert all(seen[k][0] == seen[k + 1][0] for k in range(0, 6, 2))
    study.close()


def test_a_study_resumes_only_with_its_own_order(tmp_path, lambda_items, monkeypatch):
    from lexbench.human import sampling

    monkeypatch.setattr(sampling, "load_items", lambda benchmark, options: (lambda_items, {}))
    study, created = sampling.open_or_create(
        tmp_path / "s", "lambda", sample=1, order="per-annotator"
    )
    assert created
    study.close()
    with pytest.raises(ValueError, match="order: study has 'per-annotator', asked 'same'"):
        sampling.open_or_create(tmp_path / "s", "lambda", sample=1)
    resumed, created = sampling.open_or_create(
        tmp_path / "s", "lambda", sample=1, order="per-annotator"
    )
    assert not created
    resumed.close()
    # A study written before orders existed (no "order" in its spec) is the same order.
    old = build_study(tmp_path / "old", "lambda", lambda_items, sample=1)
    spec = {k: v for k, v in old.spec.items() if k != "order"}
    old._db.execute("UPDATE meta SET value = ? WHERE key = 'spec'", (json.dumps(spec),))
    old._db.commit()
    old.close()
    resumed, created = sampling.open_or_create(tmp_path / "old", "lambda", sample=1)
    assert not created and resumed.next_step("ann") is not None
    resumed.close()


# ------------------------------------------------------------------------------ definitions


def test_definitions_are_dictionary_senses_without_related_words():
    from lexbench.human.definitions import Dictionary
    from lexbench.lexicon.wordnet.files import locate_wordnet
    from lexbench.lexicon.wordnet.reader import open_reader

    reader = open_reader(locate_wordnet(allow_install=False))
    dictionary = Dictionary(reader=reader)
    geese = dictionary.define("  geese ").to_dict()  # morphology finds "goose"
    assert geese["found"] and geese["word"] == "geese"
    assert [s["gloss"] for s in geese["senses"]] == [
        s.definition() for s in reader.synsets("geese")
    ]
    assert geese["senses"] and {s["pos"] for s in geese["senses"]} == {"noun"}
    assert all(set(s) == {"pos", "gloss", "examples"} for s in geese["senses"])
    happy = dictionary.define("happy").to_dict()
    assert happy["senses"][0]["pos"] == "adjective" and happy["senses"][0]["examples"]
    assert "unhappy" not in json.dumps(happy)  # no antonyms, no lemma lists
    assert dictionary.define("hot dog").senses  # phrases are looked up as lemmas
    assert not dictionary.define("qwzxv").to_dict()["found"]
    for bad in ("", "a" * 61, "<b>", "42"):
        with pytest.raises(ValueError):
            dictionary.define(bad)


# ------------------------------------------------------------------------------ the model


def test_human_model_answers_by_prompt_content():
    request = Request(id="x-1", kind="generate", prompt="a : b\nc :")
    same_prompt_other_id = Request(id="y-9", kind="generate", prompt="a : b\nc :")
    model = HumanModel("ann", {prompt_key(request): "d"}, {"study_id": "s1"})
    answers = model.generate([same_prompt_other_id, Request(id="z", kind="generate", prompt="?")])
    assert answers[0].text == "d" and answers[0].request_id == "y-9"
    assert answers[1].error and "human:ann" in answers[1].error
    assert model.name == "human:ann" and model.fingerprint()["annotator"] == "ann"
    assert model.fingerprint()["study"] == "s1"
    rank = Request(
        id="r", kind="rank", prompt="If a is like b, then c is like", targets=("Sun", "star")
    )
    ranked = HumanModel("ann", {prompt_key(rank): " sun"}, {}).rank([rank])[0]
    assert ranked.target_ranks == (1, None) and ranked.ranked[0].text == "sun"


def test_human_backend_loads_through_the_registry(tmp_path, lambda_items):
    study = build_study(tmp_path / "s", "lambda", lambda_items, sample=1)
    show_and_answer(study, "ann", "word")
    study.close()
    model = load_model("human:ann", {"study": str(tmp_path / "s")})
    assert model.name == "human:ann" and model.describe()["answers"] == 1
    with pytest.raises(ValueError, match="no annotator 'bob'"):
        load_model("human:bob", {"study": str(tmp_path / "s")})
    with pytest.raises(ValueError, match="does not take"):
        load_model("human:ann", {"study": str(tmp_path / "s"), "device": "cpu"})
    with pytest.raises(ValueError, match="needs the study"):
        load_model("human:ann", {})


# ------------------------------------------------------------------------------ results


def test_results_score_like_a_model_with_agreement_and_crowd(tmp_path, lambda_items):
    study = build_study(tmp_path / "s", "lambda", lambda_items, sample=1)
    items = {item_id: LambdaItem.from_dict(row) for item_id, row in study.items()}
    order = list(items)
    # ann and bob right on every item; cyd right on the first only. Crowd: right everywhere.
    plan = {
        "ann": lambda i: items[i].candidates[0],
        "bob": lambda i: items[i].candidates[0],
        "cyd": lambda i: items[i].candidates[0] if i == order[0] else wrong_word(items[i]),
    }
    for name, answer in plan.items():
        for item_id in order:
            assert show_and_answer(study, name, answer(study.next_step(name).item_id)) == item_id
    study.close()

    from lexbench.human.results import study_results

    results = study_results(tmp_path / "s", out=tmp_path / "runs")
    block = results.summary["stages"]["answer"]
    assert block["annotators"]["ann"]["accuracy"] == 1.0
    assert block["annotators"]["cyd"]["correct"] == 1
    assert block["mean_accuracy"] == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert block["crowd"]["accuracy"] == 1.0
    assert block["agreement"]["answers"]["method"] == "fleiss"
    assert block["agreement"]["items"] == 3
    runs = {r.annotator: r for r in results.runs}
    config = json.loads((runs["ann"].folder / "config.json").read_text())
    assert config["model"]["name"] == "human:ann" and config["model"]["backend"] == "human"
    samples = [
        json.loads(line) for line in (runs["cyd"].folder / "samples.jsonl").read_text().splitlines()
    ]
    assert [s["id"] for s in samples] == order  # the dataset's own item ids
    assert [s["correct"] for s in samples] == [True, False, False]
    timing = [
        json.loads(line) for line in (runs["ann"].folder / "human.jsonl").read_text().splitlines()
    ]
    assert [t["client_seconds"] for t in timing] == [0.9, 0.9, 0.9]
    assert (tmp_path / "s" / "results.md").read_text().startswith("# Human study: lambda")


# ------------------------------------------------------------------------------ sheets


def test_sheet_ids_are_opaque_and_a_filled_sheet_scores_into_a_run(tmp_path, lambda_items):
    from lexbench.benchmarks.lambda_.sheets import export_lambda_sheet, score_lambda_sheet

    sheet, key, rows = export_lambda_sheet(lambda_items, tmp_path / "sheet.csv", per_relation=2)
    assert rows == 6
    with open(sheet, newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    text = sheet.read_text()
    for relation in ("synonym", "antonym", "derivation"):
        assert relation not in text
    assert all(re.fullmatch(r"[0-9a-f]{10}", row["sheet_id"]) for row in table)
    keyed = {
        json.loads(line)["sheet_id"]: LambdaItem.from_dict(
            {k: v for k, v in json.loads(line).items() if k != "sheet_id"}
        )
        for line in key.read_text().splitlines()
    }
    expected = []
    for number, row in enumerate(table):
        item = keyed[row["sheet_id"]]
        row["answer"] = item.candidates[0] if number % 2 == 0 else wrong_word(item)
        expected.append(number % 2 == 0)
    with open(sheet, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    evaluation = score_lambda_sheet(sheet, annotator="ann", out=tmp_path / "runs")
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    assert [s["correct"] for s in samples] == expected
    assert evaluation.folder.path.parent.name == "human-ann"
    # A sheet from before the opaque ids (an `id` column of item ids) still scores.
    legacy = tmp_path / "legacy.csv"
    with open(legacy, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "pair_1", "pair_2", "query", "answer"])
        for row in table:
            writer.writerow([keyed[row["sheet_id"]].id, "", "", "", row["answer"]])
    old = score_lambda_sheet(legacy, annotator="old", key=key, out=tmp_path / "runs")
    assert [
        json.loads(line)["correct"] for line in old.folder.samples_path.read_text().splitlines()
    ] == expected
    table[0]["sheet_id"] = "0000000000"
    with open(sheet, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    with pytest.raises(ValueError, match="not in the answer key"):
        score_lambda_sheet(sheet, annotator="ann", out=tmp_path / "runs")
