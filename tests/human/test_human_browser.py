"""The human-study web app driven in headless Chromium through Playwright.

A real `lexbench human serve` process (uvicorn) serves a study; the tests answer LAMBDA and
E-KAR items with the keyboard, look a word up, reload, go Back, open two tabs, kill the
server with SIGKILL and start it again, then score the answers into run folders and compare
them with a model's run. A third test reads every page source and every request and
response for the relation or the answer.

Needs Debian's `chromium` (apt-get install -y chromium) and the `playwright` package (its
own browsers are not needed). Without them the tests skip, unless LEXBENCH_REQUIRE_BROWSER=1
(as in CI), where a missing browser is a failure. With LEXBENCH_HUMAN_SCREENSHOTS=DIR the
LAMBDA test saves a screenshot of the page there (docs/img/human-lambda.png comes from it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from lexbench.benchmarks.ekar.splits import load_split
from lexbench.benchmarks.lambda_.items import LambdaConfig, LambdaItem, generate_items
from lexbench.human.sampling import build_study
from lexbench.human.store import Study
from lexbench.report.browser import find_chromium

EKAR = Path(__file__).parents[1] / "fixtures" / "ekar" / "english"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RELATION_WORDS = ("synonym", "antonym", "deriv", "hypernym", "hyponym")
SLOW = 90_000  # ms: the first look-up waits for NLTK to open WordNet on a busy machine


def _skip_or_fail(message: str) -> None:
    if os.environ.get("LEXBENCH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{message}, and LEXBENCH_REQUIRE_BROWSER=1 requires it")
    pytest.skip(f"{message}; set LEXBENCH_REQUIRE_BROWSER=1 to make this a failure")


@pytest.fixture(scope="module")
def browser():
    executable = find_chromium()
    if executable is None:
        _skip_or_fail("chromium is not installed (Debian: apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_or_fail("the playwright package is not installed (pip install playwright)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`lexbench human serve` in a child process, started and killed as a user would."""

    def __init__(
        self,
        study: Path,
        benchmark: str,
        sample: int,
        port: int | None = None,
        options: tuple[str, ...] = (),
    ):
        self.study, self.benchmark, self.sample = study, benchmark, sample
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.options = options
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lexbench.cli",
                "human",
                "serve",
                self.benchmark,
                "--study",
                str(self.study),
                "--sample",
                str(self.sample),
                "--port",
                str(self.port),
                *self.options,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.process.stdout.read().decode() if self.process.stdout else ""
                raise AssertionError(f"the server exited with {self.process.returncode}:\n{output}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as response:
                    if json.loads(response.read()) == {"ok": True}:
                        return self
            except OSError:
                time.sleep(0.3)
        raise AssertionError("the server did not answer /healthz within 120 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler, no flush; what is saved must already be on disk."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


@pytest.fixture(scope="module")
def lambda_items(wordnet_index):
    return generate_items(wordnet_index, LambdaConfig(per_relation=4))


def wrong_word(item: LambdaItem) -> str:
    taken = {w.lower() for w in (*item.candidates, item.query, *item.support[0], *item.support[1])}
    return next(w for w in ("zebra", "quartz", "pencil", "violin") if w not in taken)


def shown_item(page: Any, study: Study) -> LambdaItem:
    """The LAMBDA item on the page, found by its query word among the study's items."""
    query = page.locator(".pairs .query").inner_text().strip()
    matches = [LambdaItem.from_dict(row) for _, row in study.items() if row["query"] == query]
    assert len(matches) == 1, query
    return matches[0]


def progress(page: Any) -> str:
    return page.locator("#progress-text").inner_text()


def begin(page: Any) -> None:
    """A first visit shows a Begin button (a GET starts no clock): press Enter on it, as a
    keyboard-only annotator does (it has the focus). Chromium gives an `autofocus` element
    the focus at its next rendering update, after the load event: waited for, not raced."""
    page.wait_for_function("document.activeElement?.id === 'begin'", timeout=SLOW)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("#begin").count() == 0


def answer_text(page: Any, text: str) -> None:
    """Type into the answer box and press Enter, as a keyboard-only annotator does."""
    page.locator("#answer").focus()
    page.keyboard.type(text)
    with page.expect_navigation():
        page.keyboard.press("Enter")


def samples_of(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------------------ LAMBDA + E-KAR


def test_annotator_answers_lambda_and_ekar_in_the_browser(browser, tmp_path, lambda_items):
    """Keyboard only: name, look-up (Alt+L, Escape), answers (Enter), reload, Back; E-KAR
    HARD then EASY with the HARD answer locked; then the run folders and a comparison."""
    from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
    from lexbench.human.results import study_results
    from lexbench.report.compare import compare_runs
    from lexbench.report.runs import load_run
    from lexbench.run.evaluate import evaluate
    from mock_model import ScriptedModel

    study_dir = tmp_path / "lambda-study"
    study = build_study(study_dir, "lambda", lambda_items, sample=1)  # 3 items, one per relation
    order = [item_id for item_id, _ in study.items()]
    plan = {order[0]: True, order[1]: False, order[2]: True}  # right, wrong, right
    context = browser.new_context(viewport={"width": 1280, "height": 760})
    page = context.new_page()
    with Server(study_dir, "lambda", 1) as server:
        page.goto(server.url + "/")
        page.locator("#name").fill("alice")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.url.endswith("/a/alice") and progress(page) == "0 of 3 answered"

        # Item 1: look the query up with the keyboard (Alt+L), read WordNet's senses, go back
        # to the answer with Escape, answer right.
        item = shown_item(page, study)
        assert item.id == order[0]
        page.keyboard.press("Alt+KeyL")
        assert page.evaluate("document.activeElement.id") == "lookup-word"
        page.keyboard.type(item.query)
        page.keyboard.press("Enter")
        page.locator("#lookup-result .sense").first.wait_for(timeout=SLOW)
        senses = page.locator("#lookup-result .sense .pos").all_inner_texts()
        # WordNet's first sense, as the relation index records its part of speech.
        first_pos = {"adj": "adjective", "adv": "adverb"}.get(item.query_pos, item.query_pos)
        assert senses and senses[0] == first_pos, (senses, item.query_pos)
        if os.environ.get("LEXBENCH_HUMAN_SCREENSHOTS"):
            shots = Path(os.environ["LEXBENCH_HUMAN_SCREENSHOTS"])
            shots.mkdir(parents=True, exist_ok=True)
            page.locator("#answer").fill(item.candidates[0])
            page.screenshot(path=str(shots / "human-lambda.png"))
            page.locator("#answer").fill("")
        page.keyboard.press("Escape")
        assert page.evaluate("document.activeElement.id") == "answer"
        answer_text(page, item.candidates[0])
        assert progress(page) == "1 of 3 answered"

        # Reload mid-study: the same (second, unanswered) item, nothing counted twice.
        second = shown_item(page, study)
        page.reload()
        assert shown_item(page, study).id == second.id == order[1]
        assert progress(page) == "1 of 3 answered"
        answer_text(page, wrong_word(second))

        # Back: the answered item is not shown again; the next unanswered one is.
        page.go_back()
        third = shown_item(page, study)
        assert third.id == order[2] and progress(page) == "2 of 3 answered"
        answer_text(page, third.candidates[-1])
        assert page.locator("#finished").is_visible()
        assert progress(page) == "3 of 3 answered"
    context.close()

    lambda_runs = study_results(study_dir, out=tmp_path / "runs", crowd=False)
    run = lambda_runs.runs[0]
    assert run.annotator == "alice" and run.stage == "answer"
    rows = samples_of(run.folder)
    assert [r["id"] for r in rows] == order
    assert [r["correct"] for r in rows] == [plan[i] for i in order]
    results = json.loads((run.folder / "results.json").read_text())
    assert results["overall"]["correct"] == 2 and results["overall"]["n"] == 3
    # People and models side by side: a model's run over all items pairs with the human
    # run on the three shared item ids.
    chosen = {i.id: i for i in lambda_items if i.id in plan}
    model = ScriptedModel(
        lambda request: chosen[request.id].candidates[0] if request.id == order[1] else "nothing",
        name="scripted",
    )
    model_run = evaluate(
        LambdaBenchmark(dataset=lambda_items, index=None),
        model,
        out_root=tmp_path / "runs",
        progress=False,
    )
    comparison = compare_runs([load_run(model_run.folder.path), load_run(run.folder)])
    pair = comparison.pairs[0]
    assert pair.shared == 3 and pair.used == 3
    assert {pair.mean_a, pair.mean_b} == {1 / 3, 2 / 3}

    # E-KAR: HARD, then the same problem in EASY mode with the query's explanation.
    ekar_items = load_split("en", "validation", data=EKAR).items
    ekar_dir = tmp_path / "ekar-study"
    ekar = build_study(ekar_dir, "ekar", ekar_items, sample=2, options={"language": "en"})
    problems = {item_id: row for item_id, row in ekar.items()}
    first_id, second_id = list(problems)
    gold = {i: problems[i]["row"]["answerKey"] for i in problems}
    wrong = {i: next(letter for letter in "ABCD" if letter != gold[i]) for i in problems}
    context = browser.new_context()
    page = context.new_page()
    with Server(ekar_dir, "ekar", 2) as server:
        page.goto(server.url + "/a/bob")
        begin(page)
        assert page.locator(".explanation").count() == 0 and progress(page) == "0 of 4 answered"
        assert page.locator("#lookup").count() == 0  # no dictionary in E-KAR's study
        hard_token = page.locator("input[name=token]").get_attribute("value")
        page.keyboard.press(gold[first_id].lower())  # A-D picks a choice
        with page.expect_navigation():
            page.keyboard.press("Enter")
        explanation = page.locator(".explanation").inner_text()
        assert explanation == problems[first_id]["row"]["explanation"][0]
        assert gold[first_id] in page.locator(".locked").inner_text()
        assert page.locator("input[name=stage]").get_attribute("value") == "easy"
        page.keyboard.press(str("ABCD".index(wrong[first_id]) + 1))  # 1-4 picks too
        with page.expect_navigation():
            page.keyboard.press("Enter")
        # The HARD answer cannot change: an old form sent again is refused, nothing saved.
        resent = page.request.post(
            f"{server.url}/a/bob/answer",
            form={
                "token": hard_token,
                "stage": "hard",
                "answer": wrong[first_id],
                "client_ms": "5",
            },
            max_redirects=0,
        )
        assert resent.status == 303 and resent.headers["location"].endswith("notice=duplicate")
        page.go_back()
        assert page.locator("input[name=stage]").get_attribute("value") == "hard"
        assert page.locator("input[name=token]").get_attribute("value") != hard_token
        for letter in (gold[second_id], gold[second_id]):
            page.keyboard.press(letter)
            with page.expect_navigation():
                page.keyboard.press("Enter")
        assert page.locator("#finished").is_visible()
    context.close()

    ekar_runs = {r.stage: r for r in study_results(ekar_dir, out=tmp_path / "runs").runs}
    hard = samples_of(ekar_runs["hard"].folder)
    easy = samples_of(ekar_runs["easy"].folder)
    assert [r["id"] for r in hard] == [first_id, second_id] == [r["id"] for r in easy]
    assert [r["correct"] for r in hard] == [True, True]
    assert [r["correct"] for r in easy] == [False, True]
    assert [r["answer"] for r in hard] == [gold[first_id], gold[second_id]]
    config = json.loads((ekar_runs["easy"].folder / "config.json").read_text())
    assert config["benchmark"]["mode"] == "easy" and config["model"]["name"] == "human:bob"


# ------------------------------------------------------------------------------ kill, tabs


def test_killing_the_server_mid_study_loses_nothing(browser, tmp_path, lambda_items):
    study_dir = tmp_path / "study"
    build_study(study_dir, "lambda", lambda_items, sample=2, definitions=False).close()
    server = Server(study_dir, "lambda", 2)
    context = browser.new_context()
    page = context.new_page()
    typed: dict[str, str] = {}
    try:
        server.start()
        page.goto(server.url + "/a/carol")
        begin(page)
        for word in ("alpha", "bravo"):
            step = Study(study_dir)
            typed[shown_item(page, step).id] = word
            step.close()
            answer_text(page, word)
        assert progress(page) == "2 of 6 answered"

        # Two tabs on the same item: the first answer is kept, the second refused.
        other = context.new_page()
        other.goto(server.url + "/a/carol")
        page.reload()
        assert page.locator("input[name=token]").get_attribute("value") == other.locator(
            "input[name=token]"
        ).get_attribute("value")
        answer_text(page, "charlie")
        answer_text(other, "delta")
        assert "already saved" in other.locator(".notice").inner_text()
        other.close()

        server.kill()
        with pytest.raises(Exception):
            page.reload(timeout=5_000)
        server.start()  # same study, same port
        page.goto(server.url + "/a/carol")
        assert progress(page) == "3 of 6 answered"
        for word in ("echo", "foxtrot", "golf"):
            answer_text(page, word)
        assert page.locator("#finished").is_visible()
    finally:
        server.kill()
        context.close()
    study = Study(study_dir)
    answers = study.answers("carol")
    assert len(answers) == 6 == len({a.item_id for a in answers})
    assert [a.typed for a in answers] == ["alpha", "bravo", "charlie", "echo", "foxtrot", "golf"]
    assert {a.item_id: a.typed for a in answers if a.item_id in typed} == typed
    assert all(a.client_ms is not None and a.server_seconds >= 0 for a in answers)
    study.close()


# ------------------------------------------------------------------------------ leaks


def _without_code(html: str) -> str:
    return re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL | re.IGNORECASE)


def _code(html: str) -> list[str]:
    return re.findall(
        r"<(?:script|style)\b.*?</(?:script|style)>", html, flags=re.DOTALL | re.IGNORECASE
    )


def test_lambda_pages_and_traffic_reveal_neither_relation_nor_answer(
    browser, tmp_path, lambda_items
):
    study_dir = tmp_path / "study"
    study = build_study(study_dir, "lambda", lambda_items, sample=1)
    items = {item_id: LambdaItem.from_dict(row) for item_id, row in study.items()}
    traffic: list[tuple[str, str, str]] = []  # (what, url, text)

    def on_response(response: Any) -> None:
        request = response.request
        body = ""
        if response.status < 300 or response.status >= 400:
            body = response.text()
        headers = json.dumps(response.headers) + json.dumps(request.headers)
        traffic.append(
            (
                "define" if "/api/define" in request.url else "page",
                request.url,
                (request.post_data or "") + "\n" + headers + "\n" + body,
            )
        )

    context = browser.new_context()
    page = context.new_page()
    page.on("response", on_response)
    sources: list[tuple[LambdaItem, str]] = []
    with Server(study_dir, "lambda", 1) as server:
        page.goto(server.url + "/a/dana")
        begin(page)
        for _ in items:
            item = shown_item(page, study)
            sources.append((item, page.content()))
            page.locator(".pairs .query .word").click()  # look the query up by clicking it
            page.locator("#lookup-result .sense").first.wait_for(timeout=SLOW)
            answer_text(page, wrong_word(item))
        assert page.locator("#finished").is_visible()
    context.close()

    def hidden_words(item: LambdaItem) -> set[str]:
        """The answer (gold and whole candidate set) and the relation, minus what the page
        must show anyway (the six words of the item)."""
        shown = {w.lower() for w in (*item.support[0], *item.support[1], item.query)}
        return {w.lower() for w in (item.gold, *item.candidates)} - shown

    code = {tuple(_code(source)) for _, source in sources}
    assert len(code) == 1, "the page's CSS/JS differs between items"
    for item, source in sources:
        text = _without_code(source).lower()
        for word in (*RELATION_WORDS, item.relation):
            assert word not in source.lower(), (item.id, word)
        assert item.id.lower() not in source.lower()
        for word in hidden_words(item):
            assert not re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text), (item.id, word)
    # Words some page must show (any item's six words) or the annotator typed are no leak.
    shown_anywhere = {
        w.lower()
        for item in items.values()
        for w in (*item.support[0], *item.support[1], item.query)
    }
    typed = {wrong_word(item) for item in items.values()}
    every_hidden = {w for item in items.values() for w in hidden_words(item)} - shown_anywhere
    assert traffic, "no traffic captured"
    for what, url, text in traffic:
        assert url.startswith(f"http://127.0.0.1:{server.port}/"), url  # nothing from the network
        lowered = text.lower()
        for word in RELATION_WORDS:
            assert word not in url.lower()
            if what == "page":
                assert word not in lowered, (url, word)
        if what == "define":
            # A dictionary entry: senses with part of speech, gloss and examples; never a
            # list of related words (lemmas, antonyms, derived forms).
            data = json.loads(text.rsplit("\n", 1)[-1])
            assert set(data) == {"word", "found", "more", "senses"}
            assert all(set(s) == {"pos", "gloss", "examples"} for s in data["senses"])
            continue
        page_text = _without_code(lowered)
        for word in every_hidden - typed:
            assert not re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", page_text), (url, word)


# ------------------------------------------------------------------------------ invites


def test_invited_annotator_answers_through_the_real_page(browser, tmp_path, lambda_items):
    """An invite link opened in Chromium sets the SameSite=Strict cookie and the page's own
    form posts (Referrer-Policy same-origin: Origin is the page's) are accepted; another
    browser cannot open the invited annotator's page, and a form posted from an opaque
    origin (a data: page, Origin: null) is refused. Served on 127.0.0.1 with
    --allow-host, the flags a study across machines uses."""
    from lexbench.cli import main

    study_dir = tmp_path / "study"
    build_study(study_dir, "lambda", lambda_items, sample=1, definitions=False).close()
    server = Server(study_dir, "lambda", 1, options=("--allow-host", "study.lab"))
    assert main(["human", "invite", str(study_dir), "erin", "--url", server.url]) == 0
    study = Study(study_dir)
    assert study.invited() == {"erin"}
    study.close()
    context = browser.new_context()
    page = context.new_page()
    with server:
        study = Study(study_dir)
        secret = study.invite("erin")  # a fresh link (the printed one is replaced)
        page.goto(f"{server.url}/join/{secret}")
        page.wait_for_url(f"{server.url}/a/erin")
        begin(page)
        assert progress(page) == "0 of 3 answered"
        answer_text(page, "alpha")
        assert progress(page) == "1 of 3 answered"
        cookies = context.cookies()
        assert len(cookies) == 1 and cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Strict"
        assert secret not in page.content()

        other = browser.new_context()  # another machine: no cookie
        stranger = other.new_page()
        response = stranger.goto(server.url + "/a/erin")
        assert response is not None and response.status == 403
        token = page.locator("input[name=token]").get_attribute("value")
        stranger.goto(
            "data:text/html,<form method=post action='"
            + server.url
            + "/a/erin/answer'><input name=token value='"
            + str(token)
            + "'><input name=stage value=answer><input name=answer value=forged></form>"
            "<script>document.forms[0].submit()</script>"
        )
        stranger.wait_for_load_state()
        assert "may not change this study" in stranger.content()
        other.close()
        answers = [a.typed for a in study.answers("erin")]
        study.close()
    context.close()
    assert answers == ["alpha"]
