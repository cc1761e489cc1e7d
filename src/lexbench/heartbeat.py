"""Long steps say what they are doing, and keep saying it.

A step that can take long on a busy machine (building WordNet's relation index or sense
table, de-quantising a model, loading one, surveying SetLexSem's grid) runs inside
`long_step(what)`: once it has run `ANNOUNCE_AFTER_S` it says so on stderr (a step done
sooner says nothing), then says it again every `NEWS_EVERY_S` with the time spent and its
count when it keeps one, and at its end how long it took. No wait is silent for more than
10 seconds, on a terminal or in a log (`2> file`, CI), where one line every few seconds
is all it adds. Lines go through tqdm when it is loaded, so they print above a progress
bar instead of through it.

Steps nest (loading a model inside `export --verify`'s "loading smollm2-135m"): only the
innermost step under way speaks, so one wait is one voice. `Ticker` is the thread behind it,
also used by the run's progress bar (`run.progress`); `duration` is how every wait's time is
said (the plan's pace too). The other tool `--verify` runs streams its own output
(`export.tool_output`), with this module's lines in its silences.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from lexbench.terminal import terminal_text

#: A step says what it does once it has taken this long (seconds).
ANNOUNCE_AFTER_S = 1.0
#: Then it says so again this often (seconds): well within the 10 s nothing may stay silent.
NEWS_EVERY_S = 5.0
#: The steps under way, outermost first: only the last one speaks.
_UNDER_WAY: list[Step] = []


def say(line: str) -> None:
    """One line on stderr, made safe (`terminal_text`: it may carry a path or a model's
    name), above any tqdm bar on it."""
    line = terminal_text(line)
    tqdm_module = sys.modules.get("tqdm")
    if tqdm_module is not None:
        tqdm_module.tqdm.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr, flush=True)


def duration(seconds: float) -> str:
    """`seconds` as a person says it.

    >>> duration(4.26), duration(75), duration(3725)
    ('4 s', '1 min 15 s', '1 h 02 min')
    """
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Ticker:
    """Calls `tick()` every `interval` seconds on a daemon thread until `stop()`; the first
    call after `first` seconds (default: `interval`)."""

    def __init__(self, interval: float, tick: Callable[[], None], first: float | None = None):
        self.interval = interval
        self._tick = tick
        self._first = interval if first is None else first
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lexbench-ticker", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        wait = self._first
        while not self._stopped.wait(wait):
            self._tick()
            wait = self.interval

    def stop(self) -> None:
        """No call after this returns (one in flight is waited for)."""
        self._stopped.set()
        if threading.current_thread() is not self._thread:
            self._thread.join()


@dataclass
class Step:
    """A long step under way: what it does, and how far it is when it counts."""

    what: str
    total: int | None = None
    unit: str = ""
    done: int = 0
    started: float = field(default_factory=time.monotonic)
    announced: bool = False
    ending: str | None = None  # said at the end instead of "done in ..."

    def advance(self, count: int = 1) -> None:
        self.done += count

    def finish(self, ending: str) -> None:
        """What the step says when it ends (always said, announced or not)."""
        self.ending = ending

    def news(self) -> str:
        spent = duration(time.monotonic() - self.started)
        if self.total:
            share = f"{self.done:,}/{self.total:,} {self.unit}".rstrip()
            return f"lexbench: {self.what}: {share} ({self.done / self.total:.0%}), {spent} so far"
        if self.unit:
            return f"lexbench: {self.what}: {self.done:,} {self.unit}, {spent} so far"
        return f"lexbench: {self.what}... ({spent} so far)"


@contextmanager
def long_step(
    what: str,
    *,
    total: int | None = None,
    unit: str = "",
    quiet: bool = False,
    at_once: bool = False,
    tell: Callable[[str], None] | None = None,
) -> Iterator[Step]:
    """Run the body as a step that keeps saying what it does (see the module docstring);
    `at_once`: say it when it starts (a step known to be long); `quiet`: say nothing (a run
    without progress output); `tell`: where its lines go (`say`: stderr)."""
    step = Step(what, total=total, unit=unit)
    if quiet:
        yield step
        return
    speak = tell or say
    if at_once:
        step.announced = True
        speak(f"lexbench: {what}...")

    def tick() -> None:
        if _UNDER_WAY and _UNDER_WAY[-1] is not step:
            return  # a step inside this one speaks for both
        step.announced = True
        speak(step.news())

    _UNDER_WAY.append(step)
    ticker = Ticker(NEWS_EVERY_S, tick, first=ANNOUNCE_AFTER_S)
    try:
        yield step
    finally:
        ticker.stop()
        _UNDER_WAY.remove(step)
    if step.ending is not None:
        speak(f"lexbench: {step.ending}")
    elif step.announced:
        speak(f"lexbench: {step.what}: done in {duration(time.monotonic() - step.started)}")
