"""The progress bar tells the truth: no time left before a few answers were received or
when the estimate is absurd; the bar moves per answer and per decoded token while a
batch of long answers decodes (the real SmolLM2); its clock never stops, on a terminal or
in a log, and a log gets a line every few seconds, not one per answer (issue 43)."""

import io
import logging
import time

import pytest

from lexbench.run import progress
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


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_in_a_log_the_bar_is_a_line_every_few_seconds_whatever_happens(monkeypatch):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.2)
    log = io.StringIO()  # not a terminal: what `2> file` or a CI log gets
    bar = ProgressBar("setlexsem", total=144, initial=0, stream=log)
    bar.sending()
    bar.prefill(0.0, 13_822)
    time.sleep(0.5)  # the model reads its prompts: nothing else happens
    bar.prefill(0.4, 13_822)
    time.sleep(0.3)
    for _ in range(100):  # answers arriving fast are not a line each
        bar.answered(1, sent=True)
        bar.tokens(3)
    bar.close()
    lines = log.getvalue().splitlines()
    assert lines[0] == "setlexsem: 0% 0/144 [0:00, left ?]"  # said at once
    assert 4 <= len(lines) <= 8, lines  # one per 0.2 s, and the last; not 100 more
    assert "prefill 0% of 13,822 prompt tokens" in lines[1]
    assert any("prefill 40% of 13,822 prompt tokens" in line for line in lines)
    assert lines[-1].startswith("setlexsem: 69% 100/144 [0:01, 300 tokens, left")
    assert "\r" not in log.getvalue()


def test_on_a_terminal_the_clock_moves_without_answers(monkeypatch):
    monkeypatch.setattr(progress, "REDRAW_S", 0.1)
    screen = Terminal()
    bar = ProgressBar("lambda", total=10, initial=0, extra=lambda: "plan 1/3", stream=screen)
    bar.prefill(0.25, 900)
    time.sleep(1.3)  # no answer, no token: the bar is still redrawn, its clock moving
    drawn = screen.getvalue().split("\r")
    bar.close()
    assert len(drawn) >= 5, drawn
    assert "[00:01, prefill 25% of 900 prompt tokens, left ?, plan 1/3]" in drawn[-1]


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


def _reads(told: list[tuple[float, int]]) -> list[list[tuple[float, int]]]:
    """The reports cut into reads: each starts at share 0."""
    reads: list[list[tuple[float, int]]] = []
    for share, tokens in told:
        if share == 0.0:
            reads.append([])
        reads[-1].append((share, tokens))
    return reads


def test_the_model_tells_how_far_it_has_read_its_prompts_layer_by_layer(smollm2):
    # Issue 43: a batch of long prompts sat at "0/144 [00:00]" for 18 minutes on a busy
    # machine; before its first token the model now reports its prefill, layer by layer.
    requests = _long_answers(4)
    told: list[tuple[float, int]] = []
    smollm2.on_prefill = lambda share, tokens: told.append((share, tokens))
    try:
        smollm2.answer_each(requests)
        smollm2.answer_each(
            [Request(id="k", kind="rank", prompt="The cat sat on the", targets=("mat",))]
        )
        smollm2.answer_each(
            [Request(id="l", kind="loglikelihood", prompt="The cat", continuations=(" sat",))]
        )
    finally:
        smollm2.on_prefill = None
    layers = smollm2.model.config.num_hidden_layers
    reads = _reads(told)
    assert len(reads) == 3  # the generate batch's first step, the rank pass, the context pass
    prompt_tokens = sum(len(smollm2.tokenizer(r.prompt)["input_ids"]) for r in requests)
    assert {tokens for _, tokens in reads[0]} == {prompt_tokens}
    for read in reads:
        shares = [share for share, _ in read]
        assert len(shares) == layers + 2  # at 0, after each layer, at the end
        assert shares == sorted(shares) and shares[-1] == 1.0
        assert shares[layers // 2] == pytest.approx((layers // 2) / layers)
