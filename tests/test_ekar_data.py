"""E-KAR data: the taxonomy, parsing, reading both file layouts, and downloading from a
local HTTP server that serves files in the Hugging Face Hub's layout."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

from lexbench.benchmarks.ekar_data import (
    HUB_REPOSITORIES, META_RELATIONS, RELATION_NAMES, SUB_RELATIONS, download_split,
    find_split_file, hub_url, load_split, meta_relation, parse_row, read_rows, read_split,
    relation_name, split_terms,
)

FIXTURES = Path(__file__).parent / "fixtures" / "ekar"
FOLDERS = {"en": FIXTURES / "english", "zh": FIXTURES / "chinese"}


# ------------------------------------------------------------------------------ taxonomy


def test_taxonomy_codes_map_to_names():
    assert relation_name("R3.7") == "made_of"          # the dataset card's "plant:coal"
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
    codes = {r.code for split in ("train", "validation")
             for i in read_split(find_split_file(FOLDERS[language], split), language)
             for group in i.relations for r in group}
    assert codes == set(RELATION_NAMES)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_three_term_items_keep_every_relation(language):
    items = {i.id.split("-")[0]: i for i in
             read_split(find_split_file(FOLDERS[language], "validation"), language)}
    fruit = items["c5f902"]
    assert fruit.terms == 3
    assert [len(c) for c in fruit.choices] == [3, 3, 3, 3]
    assert [r.code for r in fruit.query_relations] == ["R2.2", "R2.2", "R2.4"]
    assert fruit.relation_code == "R2.2" and fruit.meta_relation == "R2"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_label_free_test_split(language):
    items = read_split(find_split_file(FOLDERS[language], "test"), language)
    assert len(items) == 3
    assert all(i.answer is None and i.answer_index is None for i in items)
    assert all(i.explanations == () and i.relations == () for i in items)
    assert {i.meta_relation for i in items} == {"unknown"}
    assert {i.terms for i in items} == {2, 3}


def test_json_array_and_json_lines_read_the_same(tmp_path):
    rows = read_rows(FOLDERS["en"] / "validation.json")      # JSON lines
    array = tmp_path / "validation.json"
    array.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    assert read_rows(array) == rows
    assert (FOLDERS["zh"] / "validation.json").read_text(encoding="utf-8").lstrip().startswith("[")
    lines = tmp_path / "lines.json"
    lines.write_text("\n".join(json.dumps(r, ensure_ascii=False)
                               for r in read_rows(FOLDERS["zh"] / "validation.json")) + "\n",
                     encoding="utf-8")
    assert read_rows(lines) == read_rows(FOLDERS["zh"] / "validation.json")


def test_round_trip_through_the_hub_row_layout():
    for item in read_split(FOLDERS["en"] / "validation.json", "en"):
        assert parse_row(item.to_row(), "en") == item


def test_flat_relation_triples_are_accepted():
    row = read_rows(FOLDERS["en"] / "validation.json")[0]
    flat = {**row, "relation": [group[0] for group in row["relation"]]}
    assert parse_row(flat, "en").relations == parse_row(row, "en").relations


@pytest.mark.parametrize("change, message", [
    ({"answerKey": "E"}, "answerKey 'E'"),
    ({"choices": {"label": ["A", "B", "C"], "text": ["a:b", "c:d", "e:f"]}}, "labels A-D"),
    ({"explanation": ["only one"]}, "5 explanations"),
    ({"relation": [[["a", "b", "R9.9"]]] * 5}, "unknown E-KAR relation code"),
    ({"question": "lonely"}, "2 or more terms"),
])
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
    with pytest.raises(ValueError, match="train.json:2"):
        read_rows(bad)
    with pytest.raises(ValueError, match="unknown split"):
        find_split_file(tmp_path, "dev")


def test_repeated_ids_are_rejected(tmp_path):
    rows = read_rows(FOLDERS["en"] / "validation.json")
    path = tmp_path / "validation.json"
    path.write_text(json.dumps([rows[0], rows[0]]), encoding="utf-8")
    with pytest.raises(ValueError, match="ids repeat"):
        read_split(path, "en")


# ------------------------------------------------------------------------------ download


class _HubHandler(http.server.SimpleHTTPRequestHandler):
    """Serves `<root>/datasets/<owner>/<name>/resolve/<revision>/<file>` and logs requests."""

    def log_message(self, format, *args):  # keep pytest output clean
        self.server.seen.append(self.path)


@pytest.fixture
def hub_server(tmp_path):
    """A local HTTP server laid out like huggingface.co, with the fixtures at `main` and a
    `v1.0` branch whose test file is test_blind.json."""
    root = tmp_path / "hub"
    for language, folder in FOLDERS.items():
        for revision in ("main", "v1.0"):
            target = root / "datasets" / HUB_REPOSITORIES[language] / "resolve" / revision
            target.mkdir(parents=True)
            for path in folder.glob("*.json"):
                name = "test_blind.json" if revision == "v1.0" and path.name == "test.json" else path.name
                (target / name).write_bytes(path.read_bytes())

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
        "https://huggingface.co/datasets/jiangjiechen/ekar_english/resolve/main/train.json")
    monkeypatch.setenv("HF_ENDPOINT", "http://mirror.example/")
    assert hub_url("zh", "test.json", "v1.0") == (
        "http://mirror.example/datasets/jiangjiechen/ekar_chinese/resolve/v1.0/test.json")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_download_from_a_hub_layout_server(hub_server, tmp_path, monkeypatch, language):
    server, endpoint = hub_server
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    loaded = load_split(language, "validation", endpoint=endpoint)
    assert loaded.source == f"{HUB_REPOSITORIES[language]}@main"
    assert loaded.path.is_relative_to(tmp_path / "cache")
    assert loaded.path.read_bytes() == (FOLDERS[language] / "validation.json").read_bytes()
    assert [i.id for i in loaded.items] == [
        i.id for i in read_split(FOLDERS[language] / "validation.json", language)]
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


def test_download_failure_says_how_to_use_a_local_folder(hub_server, tmp_path, monkeypatch):
    _, endpoint = hub_server
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="--data"):
        download_split("en", "train", revision="no-such-branch", endpoint=endpoint)
    assert not list((tmp_path / "cache").rglob("*.json"))
