"""E-KAR data: the taxonomy, parsing, reading both file layouts, and downloading from a
local HTTP server that serves files in the Hugging Face Hub's layout."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

from lexbench.benchmarks.ekar.data import (
    META_RELATIONS,
    RELATION_NAMES,
    SUB_RELATIONS,
    meta_relation,
    parse_row,
    relation_name,
    split_terms,
)
from lexbench.benchmarks.ekar.files import is_blind_file, read_rows, read_split
from lexbench.benchmarks.ekar.splits import (
    HUB_REPOSITORIES,
    download_split,
    find_split_file,
    hub_url,
    load_split,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ekar"
FOLDERS = {"en": FIXTURES / "english", "zh": FIXTURES / "chinese"}
V1_0 = {"en": FIXTURES / "v1.0" / "english", "zh": FIXTURES / "v1.0" / "chinese"}


# ------------------------------------------------------------------------------ taxonomy


def test_taxonomy_codes_map_to_names():
    assert relation_name("R3.7") == "made_of"  # the dataset card's "plant:coal"
    assert relation_name("R2.4") == "juxtaposition_to"  # the card's "white wine:aged vinegar"
    assert relation_name("R1.1") == "synonym_of"
    assert relation_name("R2.8") == "utterly_different"
    assert relation_name("R3.10") == "corresponds_to"
    assert relation_name("R4.3") == "head-modifier"
    assert relation_name("R5.4") == "necessary_to"
    assert meta_relation("R3.10") == "R3"
    assert [len(SUB_RELATIONS[m]) for m in META_RELATIONS] == [2, 8, 10, 4, 4]
    assert len(RELATION_NAMES) == 28


@pytest.mark.parametrize("code", ["R3.11", "R6.1", "R0.1", "3.7", "R3", ""])
def test_unknown_codes_are_rejected(code):
    with pytest.raises(ValueError, match="unknown E-KAR relation code"):
        meta_relation(code)


def test_split_terms_handles_both_colons_and_spaces():
    assert split_terms("tea:teapot:teacup") == ("tea", "teapot", "teacup")
    assert split_terms("talents: school : enterprise") == ("talents", "school", "enterprise")
    assert split_terms("茶：茶壶：茶杯") == ("茶", "茶壶", "茶杯")
    with pytest.raises(ValueError, match="2 or more terms"):
        split_terms("tea")
    with pytest.raises(ValueError, match="2 or more terms"):
        split_terms("tea::cup")


# ------------------------------------------------------------------------------ fixtures


@pytest.mark.parametrize("language", ["en", "zh"])
def test_fixtures_load_in_both_languages(language):
    items = read_split(find_split_file(FOLDERS[language], "validation"), language)
    assert len(items) == 12
    assert {i.terms for i in items} == {2, 3}
    assert {i.meta_relation for i in items} == set(META_RELATIONS)
    assert sorted(i.answer for i in items) == sorted("ABCD" * 3)
    for item in items:
        assert item.language == language
        assert len(item.explanations) == 5 and all(item.explanations)
        assert len(item.relations) == 5 and all(item.relations)
        assert len(item.choices) == 4
        assert item.answer_index == "ABCD".index(item.answer)
    # Every sub-relation of the taxonomy is annotated somewhere in the fixtures.
    codes = {
        r.code
        for split in ("train", "validation")
        for i in read_split(find_split_file(FOLDERS[language], split), language)
        for group in i.relations
        for r in group
    }
    assert codes == set(RELATION_NAMES)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_three_term_items_keep_every_relation(language):
    items = {
        i.id.split("-")[0]: i
        for i in read_split(find_split_file(FOLDERS[language], "validation"), language)
    }
    fruit = items["c5f902"]
    assert fruit.terms == 3
    assert [len(c) for c in fruit.choices] == [3, 3, 3, 3]
    assert [r.code for r in fruit.query_relations] == ["R2.2", "R2.2", "R2.4"]
    assert fruit.relation_code == "R2.2" and fruit.meta_relation == "R2"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_labelled_test_split_like_the_current_hub(language):
    # v1.1 (main) released the test answers: test.json is labelled, with explanations and
    # relations; a query may carry two codes and a candidate none.
    path = find_split_file(FOLDERS[language], "test")
    assert path.name == "test.json" and not is_blind_file(path)
    items = read_split(path, language)
    assert [i.answer for i in items] == ["A", "C", "D"]
    assert all(len(i.explanations) == 5 and all(i.explanations) for i in items)
    key = items[0]
    assert key.query_relation_codes == ("R3.8", "R3.9")
    assert key.query_meta_relations == ("R3",) and key.relation_code == "R3.8"
    assert key.relations[3] == ()  # an unannotated candidate
    assert items[1].query_relation_codes == ("R5.2", "R2.3")
    assert items[1].query_meta_relations == ("R5", "R2")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_v1_0_blind_test_files(language):
    hard = find_split_file(V1_0[language], "test")
    easy = find_split_file(V1_0[language], "test", mode="easy")
    assert (hard.name, easy.name) == ("test_blind.json", "test_easy_blind.json")
    blind = read_split(hard, language)
    assert all(i.answer is None and i.explanations == () and i.relations == () for i in blind)
    assert {i.meta_relation for i in blind} == {"unknown"}
    assert {i.terms for i in blind} == {2, 3}
    # test_easy_blind.json carries the query's explanation only: accepted, as a 1-tuple.
    labelled = {i.id: i for i in read_split(FOLDERS[language] / "test.json", language)}
    for item in read_split(easy, language):
        assert item.answer is None and item.explanations == (labelled[item.id].explanations[0],)
        assert item.query_explanation == labelled[item.id].query_explanation


def test_easy_mode_refuses_a_folder_with_only_test_blind(tmp_path):
    (tmp_path / "test_blind.json").write_bytes((V1_0["en"] / "test_blind.json").read_bytes())
    assert find_split_file(tmp_path, "test").name == "test_blind.json"
    with pytest.raises(
        FileNotFoundError, match=r"EASY mode needs test.json or v1.0's test_easy_blind.json"
    ):
        find_split_file(tmp_path, "test", mode="easy")


@pytest.mark.parametrize(
    "explanation, kept",
    [
        ("the query's only", ("the query's only",)),
        (["the query's only"], ("the query's only",)),
        (["the query's", "", "", "", ""], ("the query's",)),
        (["q", "a", "b", "c", "d"], ("q", "a", "b", "c", "d")),
    ],
)
def test_blind_files_accept_the_query_explanation_alone(explanation, kept):
    row = {**read_rows(V1_0["en"] / "test_blind.json")[0], "explanation": explanation}
    assert parse_row(row, "en", blind=True).explanations == kept
    if isinstance(explanation, str) or len(explanation) == 1:  # only in a blind file
        with pytest.raises(ValueError, match=r"expected 5 explanations|must be a list"):
            parse_row({**row, "answerKey": "A"}, "en")


@pytest.mark.parametrize(
    "change, state",
    [
        ({"answerKey": None}, "null"),
        ({"answerKey": ""}, "empty"),
        ({"answerKey": "  "}, "empty"),
        (None, "missing"),
    ],
)
@pytest.mark.parametrize("layout", ["lines", "array"])
def test_a_labelled_split_without_an_answer_names_the_row(tmp_path, change, state, layout):
    rows = read_rows(FOLDERS["en"] / "validation.json")
    bad = dict(rows[2])
    if change is None:
        del bad["answerKey"]
    else:
        bad.update(change)
    rows = [*rows[:2], bad, *rows[3:]]
    path = tmp_path / "validation.json"
    if layout == "lines":
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
        where = f"{path}:3 (id {bad['id']})"
    else:
        path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
        where = f"{path}: row 3 (id {bad['id']})"
    with pytest.raises(ValueError) as raised:
        read_split(path, "en")
    assert str(raised.value).startswith(where)
    assert f"answerKey is {state}" in str(raised.value) and "labelled split" in str(raised.value)
    # The same row in a file named as blind is a label-free item.
    blind = tmp_path / "test_blind.json"
    blind.write_bytes(path.read_bytes())
    assert read_split(blind, "en")[2].answer is None


@pytest.mark.parametrize("language, folder, right", [("en", "zh", "zh"), ("zh", "en", "en")])
def test_language_is_checked_against_the_data(language, folder, right):
    path = find_split_file(FOLDERS[folder], "validation")
    with pytest.raises(
        ValueError,
        match=f"--language {language} does not match the data: 12 "
        f"of 12 queries .* pass --language {right}",
    ):
        read_split(path, language)


def test_loader_errors_name_the_file_and_the_row(tmp_path):
    rows = read_rows(FOLDERS["zh"] / "validation.json")
    cases = {
        "code": (
            {"relation": [[["木材", "家具", "R3.11"]], *rows[4]["relation"][1:]]},
            "unknown E-KAR relation code 'R3.11'",
        ),
        "question": ({"question": 42}, "'question' must be a string, got int"),
        "terms": ({"question": "木材"}, "expected 2 or more terms"),
        "choice": (
            {"choices": {"label": list("ABCD"), "text": ["a:b", None, "c:d", "e:f"]}},
            "a choice text must be a string",
        ),
        "explanation": ({"explanation": "one string"}, "'explanation' must be a list"),
        "relation": ({"relation": {"R1": 1}}, "'relation' must be a list"),
    }
    for name, (change, message) in cases.items():
        bad = [*rows[:4], {**rows[4], **change}, *rows[5:]]
        path = tmp_path / f"{name}.json"
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in bad), encoding="utf-8"
        )
        with pytest.raises(ValueError) as raised:
            read_split(path, "zh")
        text = str(raised.value)
        assert text.startswith(f"{path}:5 (id {rows[4]['id']})"), text
        assert message in text, text
    not_object = tmp_path / "row.json"
    not_object.write_text(
        json.dumps(rows[0], ensure_ascii=False) + "\n[1, 2, 3]\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"row.json:2: expected a JSON object, got list"):
        read_split(not_object, "zh")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ValueError, match=r"deep.json: not a valid JSON array"):
        read_split(deep, "en")


def test_round_trip_through_the_hub_row_layout():
    for item in read_split(FOLDERS["en"] / "validation.json", "en"):
        assert parse_row(item.to_row(), "en") == item


def test_flat_relation_triples_are_accepted():
    row = read_rows(FOLDERS["en"] / "validation.json")[0]
    flat = {**row, "relation": [group[0] for group in row["relation"]]}
    assert parse_row(flat, "en").relations == parse_row(row, "en").relations


@pytest.mark.parametrize(
    "change, message",
    [
        ({"answerKey": "E"}, "answerKey 'E'"),
        ({"choices": {"label": ["A", "B", "C"], "text": ["a:b", "c:d", "e:f"]}}, "labels A-D"),
        ({"explanation": ["only one"]}, "5 explanations"),
        ({"relation": [[["a", "b", "R9.9"]]] * 5}, "unknown E-KAR relation code"),
        ({"question": "lonely"}, "2 or more terms"),
    ],
)
def test_bad_rows_name_the_problem(change, message):
    row = {**read_rows(FOLDERS["en"] / "validation.json")[0], **change}
    with pytest.raises(ValueError, match=message):
        parse_row(row, "en")


def test_missing_fields_and_files_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="missing field"):
        parse_row({"id": "x"}, "en")
    with pytest.raises(FileNotFoundError, match="no file for split 'validation'"):
        find_split_file(tmp_path, "validation")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        find_split_file(tmp_path / "nowhere", "train")
    bad = tmp_path / "train.json"
    bad.write_text('{"id": 1}\n{broken\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"train.json:2"):
        read_rows(bad)
    with pytest.raises(ValueError, match="unknown split"):
        find_split_file(tmp_path, "dev")


def test_repeated_ids_are_rejected(tmp_path):
    rows = read_rows(FOLDERS["en"] / "validation.json")
    path = tmp_path / "validation.json"
    path.write_text(json.dumps([rows[0], rows[0]]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 2: item id 'a1c3e0-en' repeats \(.*row 1\)"):
        read_split(path, "en")


# ------------------------------------------------------------------------------ download


class _HubHandler(http.server.SimpleHTTPRequestHandler):
    """Serves `<root>/datasets/<owner>/<name>/resolve/<revision>/<file>` and logs requests."""

    def log_message(self, format, *args):  # keep pytest output clean
        self.server.seen.append(self.path)


@pytest.fixture
def hub_server(tmp_path):
    """A local HTTP server laid out like huggingface.co, with the fixtures at `main` and a
    `v1.0` branch whose test files are test_blind.json and test_easy_blind.json."""
    root = tmp_path / "hub"
    for language, folder in FOLDERS.items():
        for revision in ("main", "v1.0"):
            target = root / "datasets" / HUB_REPOSITORIES[language] / "resolve" / revision
            target.mkdir(parents=True)
            files = [
                p for p in folder.glob("*.json") if revision == "main" or p.name != "test.json"
            ]
            if revision == "v1.0":
                files += list(V1_0[language].glob("*.json"))
            for path in files:
                (target / path.name).write_bytes(path.read_bytes())

    def handler(*args, **kwargs):
        return _HubHandler(*args, directory=str(root), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_hub_url_layout(monkeypatch):
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    assert hub_url("en", "train.json", "main") == (
        "https://huggingface.co/datasets/jiangjiechen/ekar_english/resolve/main/train.json"
    )
    monkeypatch.setenv("HF_ENDPOINT", "http://mirror.example/")
    assert hub_url("zh", "test.json", "v1.0") == (
        "http://mirror.example/datasets/jiangjiechen/ekar_chinese/resolve/v1.0/test.json"
    )


@pytest.mark.parametrize("language", ["en", "zh"])
def test_download_from_a_hub_layout_server(hub_server, tmp_path, monkeypatch, language):
    server, endpoint = hub_server
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    loaded = load_split(language, "validation", endpoint=endpoint)
    assert loaded.source == f"{HUB_REPOSITORIES[language]}@main"
    assert loaded.path.is_relative_to(tmp_path / "cache")
    assert loaded.path.read_bytes() == (FOLDERS[language] / "validation.json").read_bytes()
    assert [i.id for i in loaded.items] == [
        i.id for i in read_split(FOLDERS[language] / "validation.json", language)
    ]
    assert server.seen == [f"/datasets/{HUB_REPOSITORIES[language]}/resolve/main/validation.json"]
    # The second load comes from the cache: no new request reaches the server.
    again = load_split(language, "validation", endpoint=endpoint)
    assert again.sha256 == loaded.sha256 and len(server.seen) == 1


def test_download_uses_hf_endpoint_and_the_v1_0_branch(hub_server, tmp_path, monkeypatch):
    server, endpoint = hub_server
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    path = download_split("en", "test", revision="v1.0")
    assert path.name == "test_blind.json" and "v1.0" in path.parts
    assert server.seen == ["/datasets/jiangjiechen/ekar_english/resolve/v1.0/test_blind.json"]
    items = load_split("en", "test", revision="v1.0").items
    assert all(i.answer is None for i in items)
    # EASY mode on v1.0's test split reads test_easy_blind.json, with the query explanations.
    easy = load_split("en", "test", revision="v1.0", mode="easy")
    assert easy.path.name == "test_easy_blind.json" and easy.blind
    assert all(len(i.explanations) == 1 and i.query_explanation for i in easy.items)
    assert (
        server.seen[-1] == "/datasets/jiangjiechen/ekar_english/resolve/v1.0/test_easy_blind.json"
    )
    main = load_split("en", "test", mode="easy")
    assert main.path.name == "test.json" and not main.blind


def test_download_failure_says_how_to_use_a_local_folder(hub_server, tmp_path, monkeypatch):
    _, endpoint = hub_server
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="--data"):
        download_split("en", "train", revision="no-such-branch", endpoint=endpoint)
    assert not list((tmp_path / "cache").rglob("*.json"))
