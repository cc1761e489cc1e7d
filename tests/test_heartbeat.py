"""A long step says what it does and keeps saying it (issue 43); a short one says nothing."""

from __future__ import annotations

import time

import pytest

from lexbench import heartbeat
from lexbench.heartbeat import Ticker, long_step


@pytest.fixture
def fast_news(monkeypatch):
    monkeypatch.setattr(heartbeat, "ANNOUNCE_AFTER_S", 0.05)
    monkeypatch.setattr(heartbeat, "NEWS_EVERY_S", 0.1)


def test_a_long_step_keeps_saying_what_it_does_with_its_count(fast_news, capsys):
    with long_step("building the index (once)", total=200, unit="names") as step:
        for _ in range(5):
            step.advance(20)
            time.sleep(0.12)
    lines = capsys.readouterr().err.splitlines()
    news = [line for line in lines if "so far" in line]
    assert len(news) >= 3, lines  # said, then said again while it ran
    assert all(line.startswith("lexbench: building the index (once): ") for line in news)
    assert "/200 names (" in news[-1]
    counts = [int(line.split(": ")[2].split("/")[0]) for line in news]
    assert counts == sorted(counts) and counts[-1] > counts[0]  # the count moves with the work
    assert lines[-1].startswith("lexbench: building the index (once): done in ")


def test_a_short_step_says_nothing_and_a_quiet_one_never(fast_news, capsys):
    with long_step("reading a table"):
        pass
    with long_step("building quietly", quiet=True):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""


def test_a_step_known_to_be_long_says_so_at_once_and_its_own_ending(capsys):
    with long_step("de-quantising a model", at_once=True) as step:
        assert capsys.readouterr().err == "lexbench: de-quantising a model...\n"
        step.finish("model cached at /somewhere")
    assert capsys.readouterr().err == "lexbench: model cached at /somewhere\n"


def test_a_failed_step_says_no_done(fast_news, capsys):
    with pytest.raises(ValueError), long_step("building", at_once=True):
        raise ValueError("broken")
    assert "done" not in capsys.readouterr().err


def test_the_ticker_stops_for_good():
    ticks: list[float] = []
    ticker = Ticker(0.02, lambda: ticks.append(time.monotonic()))
    time.sleep(0.15)
    ticker.stop()
    seen = len(ticks)
    assert seen >= 3
    time.sleep(0.1)
    assert len(ticks) == seen
