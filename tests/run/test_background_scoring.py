"""Scoring while the model answers: the same scores in item order, started as soon as an
item's last response arrives, errors and interruptions handled as before."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from lexbench.run.evaluate import evaluate
from lexbench.run.runner import execute
from lexbench.run.scoring import BackgroundScoring
from lexbench.run.store import read_run
from lexbench.types import Request, Response, Score
from mock_model import ScriptedModel


def _response(i: int, text: str = "") -> Response:
    return Response(request_id=f"r{i}", text=text or f"t{i}")


def _join(item, responses: Sequence[Response]) -> Score:
    return Score(item, True, 1.0, "+".join(r.text for r in responses), "correct")


def test_scores_come_back_in_item_order_whatever_the_arrival_order():
    items = ["a", "b", "c", "d"]
    counts = [2, 0, 1, 3]  # "b" asked nothing: scored at once
    scoring = BackgroundScoring(_join, items, counts)
    for index in (5, 2, 0, 4, 1, 3):  # flat requests: a=0,1 c=2 d=3,4,5
        scoring.arrived(index, _response(index))
    scores = scoring.scores()
    assert [s.item_id for s in scores] == items
    assert [s.answer for s in scores] == ["t0+t1", "", "t2", "t3+t4+t5"]


def test_an_item_is_scored_once_its_last_response_is_in():
    started = threading.Event()
    seen: list[str] = []

    def score(item, responses):
        seen.append(item)
        started.set()
        return Score(item, True, 1.0, "", "correct")

    scoring = BackgroundScoring(score, ["a", "b"], [1, 2])
    scoring.arrived(0, _response(0))
    assert started.wait(5) and seen == ["a"]  # before "b" has any answer
    scoring.arrived(1, _response(1))
    assert seen == ["a"]  # "b" still waits for its second one
    scoring.arrived(2, _response(2))
    assert [s.item_id for s in scoring.scores()] == ["a", "b"] and seen == ["a", "b"]


def test_a_scorer_error_is_raised_for_the_first_failing_item():
    def score(item, responses):
        if item in ("b", "c"):
            raise ValueError(f"cannot score {item}")
        return Score(item, True, 1.0, "", "correct")

    scoring = BackgroundScoring(score, ["a", "b", "c"], [1, 1, 1])
    for index in (2, 1, 0):
        scoring.arrived(index, _response(index))
    with pytest.raises(ValueError, match="cannot score b"):
        scoring.scores()


def test_a_response_twice_or_one_missing_is_an_error():
    scoring = BackgroundScoring(_join, ["a", "b"], [1, 1])
    scoring.arrived(0, _response(0))
    with pytest.raises(RuntimeError, match="r0 was answered twice"):
        scoring.arrived(0, _response(0))
    with pytest.raises(RuntimeError, match="1 items never received all their responses"):
        scoring.scores()
    with pytest.raises(ValueError, match="one request count per item"):
        BackgroundScoring(_join, ["a"], [1, 2])


def test_cancel_drops_what_has_not_started():
    release = threading.Event()
    scored: list[str] = []

    def score(item, responses):
        release.wait(5)
        scored.append(item)
        return Score(item, True, 1.0, "", "correct")

    scoring = BackgroundScoring(score, ["a", "b", "c"], [1, 1, 1])
    for index in range(3):
        scoring.arrived(index, _response(index))
    scoring.cancel()
    release.set()
    scoring._worker.shutdown(wait=True)
    assert scored == ["a"]  # the one running finished; the queued two never ran


def test_the_runner_reports_every_response_once_cached_shared_and_sent(tmp_cache):
    requests = [Request(id=f"r{i}", kind="generate", prompt=f"p{i % 4}") for i in range(8)]
    execute(ScriptedModel(lambda r: r.prompt), requests[:2], cache=tmp_cache, progress=False)
    reported: dict[int, str] = {}

    def on_response(index, response):
        assert index not in reported
        reported[index] = response.request_id

    out, stats = execute(
        ScriptedModel(lambda r: r.prompt),
        requests,
        cache=tmp_cache,
        progress=False,
        on_response=on_response,
    )
    # r0, r1 cached (and r4, r5 share their prompts); r2, r3 sent, r6, r7 share theirs.
    assert stats.cached == 4 and stats.sent == 2
    assert reported == {i: f"r{i}" for i in range(8)}
    assert [r.request_id for r in out] == [f"r{i}" for i in range(8)]


@dataclass(frozen=True)
class _Item:
    id: str


@dataclass
class _Echo:
    """A small benchmark whose scorer notes its thread and how many answers were in."""

    background: bool
    model: ScriptedModel | None = None
    name: str = "echo"
    scored_while: list[int] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)

    @property
    def scores_in_background(self) -> bool:
        return self.background

    def config(self):
        return {"name": "echo"}

    def items(self):
        return [_Item(f"i{n}") for n in range(40)]

    def requests(self, item):
        return [
            Request(id=f"{item.id}/{k}", kind="generate", prompt=f"{item.id} {k}") for k in range(2)
        ]

    def score(self, item, responses):
        self.threads.add(threading.current_thread().name)
        if self.model is not None:
            self.scored_while.append(len(self.model.sent))
        right = responses[0].text.endswith("0")
        return Score(
            item.id, right, float(right), responses[1].text, "correct" if right else "other"
        )

    def sample(self, item, requests, responses, score):
        return {"id": item.id, "answer": score.answer, "correct": score.correct}

    def summarize(self, items, scores):
        return {"correct": sum(bool(s.correct) for s in scores), "n": len(scores)}

    def report(self, results):
        return f"{results['correct']}/{results['n']}\n"


def test_evaluate_in_the_background_writes_what_scoring_afterwards_writes(tmp_path):
    runs = {}
    for background in (False, True):
        model = ScriptedModel(lambda r: r.prompt)
        bench = _Echo(background=background, model=model)
        run = evaluate(
            bench,
            model,
            out_root=tmp_path / str(background),
            cache=None,
            progress=False,
            chunk_size=8,
        )
        runs[background] = read_run(run.folder.path)
        if background:
            assert bench.threads == {"lexbench-scoring_0"}
            # The first items were scored while later chunks were still to be sent.
            assert min(bench.scored_while) < len(model.sent) == 80
        else:
            assert bench.threads == {threading.current_thread().name}
    (_, samples_after, results_after), (_, samples_during, results_during) = runs[False], runs[True]
    assert (
        samples_during == samples_after
        and results_during["correct"] == results_after["correct"] == 40
    )


def test_an_interrupted_background_run_stops_scoring_and_keeps_the_answers(tmp_path, tmp_cache):
    sent = []

    def reply(request):
        if len(sent) >= 30:
            raise KeyboardInterrupt
        sent.append(request.id)
        return request.prompt

    bench = _Echo(background=True)
    with pytest.raises(KeyboardInterrupt):
        evaluate(
            bench,
            ScriptedModel(reply),
            out_root=tmp_path,
            cache=tmp_cache,
            progress=False,
            chunk_size=10,
        )
    assert tmp_cache.count() == 30
    resumed = ScriptedModel(lambda r: r.prompt)
    run = evaluate(bench, resumed, out_root=tmp_path, cache=tmp_cache, progress=False)
    assert len(resumed.sent) == 50 and run.results["correct"] == 40
