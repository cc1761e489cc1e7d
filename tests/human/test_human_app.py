"""The study app over HTTP (Starlette's test client, no browser): headers, refusals, and
SCAN and SetLexSem studies through the same item view, scored into run folders."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("fastapi")  # the `human` extra (fastapi, uvicorn)

from fastapi.testclient import TestClient

from lexbench.human.app import create_app
from lexbench.human.results import study_results
from lexbench.human.sampling import build_study
from lexbench.human.store import Study

BASE = "http://127.0.0.1:8765"  # the guard refuses TestClient's default host, "testserver"


def token_and_stage(html: str) -> tuple[str, str]:
    token = re.search(r'name="token" value="([^"]+)"', html)
    stage = re.search(r'name="stage" value="([^"]+)"', html)
    assert token and stage, html[:500]
    return token.group(1), stage.group(1)


def answer(client: TestClient, name: str, typed: str) -> str:
    token, stage = token_and_stage(client.post(f"/a/{name}/begin").text)
    response = client.post(
        f"/a/{name}/answer",
        data={"token": token, "stage": stage, "answer": typed, "client_ms": "1200"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    return response.headers["location"]


@pytest.fixture
def scan_study(tmp_path):
    from lexbench.benchmarks.scan.benchmark import load_scan

    study = build_study(tmp_path / "scan", "scan", load_scan(), sample=3)
    yield study
    study.close()


def test_pages_are_self_contained_and_refuse_bad_input(scan_study):
    client = TestClient(create_app(scan_study, annotators=["ann"]), base_url=BASE)
    assert 'action="/a/ann/begin"' in client.get("/a/ann").text  # a GET only offers to begin
    page = client.post("/a/ann/begin")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert not re.search(r"(src|href)=\"?(https?:)?//", page.text)  # no asset from the network
    text = re.sub(r"<[^>]+>", "", page.text)
    assert "is like" in text and "0 of 3 answered" in text
    assert client.get("/a/mallory").status_code == 404  # not on the list
    assert client.get("/a/..%2Fx").status_code == 404
    assert client.get("/api/define", params={"word": "sun"}).status_code == 404  # no dictionary
    forged = client.post(
        "/a/ann/answer",
        data={"token": "nope", "stage": "answer", "answer": "sun"},
        follow_redirects=False,
    )
    assert forged.headers["location"].endswith("notice=invalid")
    assert Study(scan_study.directory).answers() == []
    start = client.post("/start", data={"name": "bad name!"})
    assert start.status_code == 400 and "not allowed" in start.text
    assert (
        client.post("/start", data={"name": "ann"}, follow_redirects=False).headers["location"]
        == "/a/ann"
    )


def test_scan_answers_score_as_reciprocal_rank(scan_study):
    client = TestClient(create_app(scan_study), base_url=BASE)
    items = {item_id: row for item_id, row in scan_study.items()}
    order = list(items)
    for position, item_id in enumerate(order):
        right = items[item_id]["d"]
        assert answer(client, "ann", right.upper() if position == 0 else "zzzz") == "/a/ann"
    assert "finished" in client.get("/a/ann").text
    results = study_results(scan_study.directory, out=scan_study.directory / "runs")
    run = results.runs[0]
    rows = [json.loads(line) for line in (run.folder / "samples.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == order
    assert [r["value"] for r in rows] == [1.0, 0.0, 0.0]  # MRR per item: rank 1 or absent
    assert json.loads((run.folder / "config.json").read_text())["model"]["name"] == "human:ann"


def test_setlexsem_prompt_view_and_answer_tags(tmp_path):
    from lexbench.benchmarks.setlexsem.benchmark import generate_items

    items = [i for i in generate_items("small") if i.token_type == "numbers"]
    study = build_study(tmp_path / "sls", "setlexsem", items, sample=2)
    client = TestClient(create_app(study), base_url=BASE)
    page = client.post("/a/ann/begin").text
    assert "You are given two sets." in page and "&lt;answer&gt;" in page
    rows = {item_id: row for item_id, row in study.items()}
    order = list(rows)
    first = rows[order[0]]["answer"]
    answer(client, "ann", "{" + ", ".join(str(m) for m in first) + "}")
    answer(client, "ann", "{999999}")
    stored = study.answers("ann")
    assert stored[0].output.startswith("<answer>{") and stored[0].output.endswith("}</answer>")
    run = study_results(study.directory, out=tmp_path / "runs").runs[0]
    scored = [json.loads(line) for line in (run.folder / "samples.jsonl").read_text().splitlines()]
    assert [s["correct"] for s in scored] == [True, False]
    study.close()
