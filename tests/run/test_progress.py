"""The progress bar tells the truth: no time left before a few answers were received or
when the estimate is absurd; the bar moves per answer and per decoded token while a
batch of long answers decodes (the real SmolLM2)."""

import logging

import pytest

from lexbench.run.progress import (
    MAX_ELAPSED_MULTIPLE,
    MAX_SECONDS_LEFT,
    MIN_SENT_ANSWERS,
    ProgressBar,
    clock,
    time_left,
)
from lexbench.run.runner import execute
from lexbench.types import Decoding, Request


def test_no_time_left_before_a_few_answers_were_received():
    for received in range(MIN_SENT_ANSWERS):
        assert time_left(received, 30.0, 10) is None
    assert time_left(MIN_SENT_ANSWERS, 30.0, 10) == pytest.approx(60.0)


def test_no_time_left_when_absurd():
    # The case: one answer of 160 after six minutes said "ETA 16:18:14".
    assert time_left(1, 360.0, 159) is None
    # Five answers after six minutes, a huge run left: beyond a day.
    assert time_left(5, 360.0, 10_000) is None
    assert MAX_SECONDS_LEFT >= 360.0 / 5 * 1_200  # within a day, but 240x the time spent
    assert time_left(5, 360.0, 1_200) is None
    # At the bound itself it is shown.
    remaining = int(MAX_ELAPSED_MULTIPLE * 5)
    assert time_left(5, 100.0, remaining) == pytest.approx(MAX_ELAPSED_MULTIPLE * 100.0)
    assert time_left(5, 100.0, remaining + 1) is None


def test_clock():
    assert clock(0) == "0:00"
    assert clock(59.6) == "1:00"
    assert clock(86399) == "23:59:59"


def test_bar_counts_cached_answers_but_not_their_speed(capsys):
    bar = ProgressBar("demo", total=100, initial=0)
    bar.answered(90, sent=False)  # cached: instant, says nothing about the model
    assert bar.postfix().endswith("left ?")
    bar.sending()
    bar.answered(MIN_SENT_ANSWERS, sent=True)
    assert "left 0:0" in bar.postfix()  # five sent answers in no time: seconds left
    bar.tokens(1234)
    assert "1,234 tokens" in bar.postfix()
    bar.answered(5, sent=True)
    assert "left" not in bar.postfix()  # all 100 answered
    bar.close()


def _long_answers(count: int) -> list[Request]:
    # Prompts that end at different lengths: some rows stop at the first newline early.
    decoding = Decoding(max_new_tokens=24, stop=("\n",))
    prompts = ["Name one colour:", "Count from 1 to 30: 1, 2, 3,", "Say yes:", "List ten fruits:"]
    return [
        Request(id=f"r{i}", kind="generate", prompt=prompts[i % len(prompts)], decoding=decoding)
        for i in range(count)
    ]


def test_answers_are_reported_as_their_rows_finish_and_tokens_as_decoded(smollm2):
    requests = _long_answers(8)
    tokens: list[int] = []
    arrivals: list[tuple[str, int]] = []  # (request id, tokens decoded when it arrived)
    smollm2.on_tokens = tokens.append
    try:
        responses = smollm2.answer_each(
            requests, lambda i, r: arrivals.append((r.request_id, sum(tokens)))
        )
    finally:
        smollm2.on_tokens = None
    assert sorted(i for i, _ in arrivals) == sorted(r.id for r in requests)
    # Tokens were reported step by step, and they add up to the answers' tokens.
    assert len(tokens) > 1
    assert sum(tokens) == sum(r.generated_tokens for r in responses)
    # A short answer arrived while the batch was still decoding longer ones.
    assert arrivals[0][1] < sum(tokens)
    # The same answers as without progress reporting (one batch, the same texts).
    again = smollm2.generate(requests)
    assert [r.text for r in again] == [r.text for r in responses]


def test_runner_bar_moves_with_tokens_and_is_released(smollm2, capsys):
    responses, stats = execute(smollm2, _long_answers(4), progress=True, description="long")
    assert stats.sent == 4 and len(responses) == 4
    assert smollm2.on_tokens is None  # the bar is closed: nothing reports to it
    assert "tokens" in capsys.readouterr().err


def test_no_past_key_values_deprecation_warning(smollm2, recwarn, caplog):
    # transformers 5.x warns twice on every run (a FutureWarning and a log line) when the KV
    # cache is passed or read as `past_key_values`; lexbench uses the name it expects.
    from transformers.utils import logging as hf_logging

    hf_logging.warning_once.cache_clear()  # a log line said once per process
    caplog.set_level(logging.WARNING)
    hf_logging.enable_propagation()  # transformers' logger does not reach caplog otherwise
    try:
        smollm2.answer_each(
            [
                *_long_answers(2),
                Request(id="k", kind="rank", prompt="The cat sat on the", targets=("mat",)),
                Request(
                    id="l",
                    kind="loglikelihood",
                    prompt="The cat sat",
                    continuations=(" on the mat",),
                ),
            ]
        )
    finally:
        hf_logging.disable_propagation()
    said = [str(w.message) for w in recwarn] + [r.getMessage() for r in caplog.records]
    assert not [m for m in said if "past_key_values" in m], said


def test_a_watched_run_starts_with_its_header_line(tmp_path, capsys, monkeypatch):
    # As lm-eval prints its arguments first: version, command, benchmark and model, cache.
    from lexbench import __version__
    from lexbench.run.cache import ResponseCache
    from mock_model import ScriptedModel

    monkeypatch.setattr("sys.argv", ["/venv/bin/lexbench", "run", "lambda", "--limit", "5"])
    model = ScriptedModel(lambda request: "x", name="scripted")
    cache = ResponseCache(tmp_path / "responses.sqlite")
    try:
        execute(model, _long_answers(2), cache=cache, progress=True, description="lambda")
    finally:
        cache.close()
    first = capsys.readouterr().err.splitlines()[0]
    assert first == (
        f"lexbench {__version__} | command: lexbench run lambda --limit 5 | lambda on "
        f"scripted | cache: {tmp_path / 'responses.sqlite'}"
    )
    execute(model, _long_answers(2), progress=False)  # a quiet run (tests, studies) says nothing
    assert capsys.readouterr().err == ""
