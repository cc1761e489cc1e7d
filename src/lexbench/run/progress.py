"""The run's progress bar, and when its time-left estimate is worth showing.

The bar counts answers (one per request), not items: an item of SetLexSem asks several
requests, and a backend that decodes in batches reports each answer as its row finishes.
Between answers the bar still moves: a backend that decodes long answers reports the
tokens it produced (`tokens`), shown beside the count, so a batch of chain-of-thought
answers that takes minutes is visibly working; before its first token it reports how far
it has read the batch's prompts (`prefill`: layers done of the model's, as a share of the
prompt tokens), which on a busy machine can take minutes too. Its clock never stops: on a
terminal the bar is redrawn every second, and in a log (stderr not a terminal: CI, `2>
file`) it is one line every `LOG_EVERY_S` seconds, so no wait is silent for 10 s and no log
is flooded.

The time left is our own estimate, not tqdm's (which extrapolates from the first answers
and showed "ETA 16:18:14" after one answer of a batch). It is shown only when it means
something (`time_left`):

* not before `MIN_SENT_ANSWERS` answers were *sent and received* in this run (cached
  answers arrive at once and say nothing about the model's speed);
* not when it is absurd: more than `MAX_SECONDS_LEFT` (a day), or more than
  `MAX_ELAPSED_MULTIPLE` times the time spent answering so far (an estimate extrapolated
  from under 1/50 of the work is noise).
"""

from __future__ import annotations

import shlex
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from lexbench.heartbeat import Ticker

#: Answers received from the model before a time-left estimate is shown.
MIN_SENT_ANSWERS = 5
#: An estimate beyond a day is absurd for a run on one machine: it is not shown.
MAX_SECONDS_LEFT = 24 * 3600.0
#: An estimate beyond this multiple of the time spent so far extrapolates from too little.
MAX_ELAPSED_MULTIPLE = 50.0
#: On a terminal the bar is redrawn at least this often (seconds), so its clock never stops.
REDRAW_S = 1.0
#: Elsewhere (a log) it is one line this often (seconds): news well within 10 s, no flood.
LOG_EVERY_S = 5.0


def time_left(sent_answers: int, seconds_sending: float, remaining: int) -> float | None:
    """Seconds left for `remaining` answers at the rate of this run's sent answers, or
    None when the estimate would not mean anything (too early, or absurd).

    >>> time_left(4, 10.0, 100) is None   # too few answers yet
    True
    >>> time_left(10, 20.0, 100)          # 2 s per answer
    200.0
    >>> time_left(5, 5.0, 10**6) is None  # more than a day: absurd
    True
    """
    if sent_answers < MIN_SENT_ANSWERS or seconds_sending <= 0 or remaining < 0:
        return None
    estimate = seconds_sending / sent_answers * remaining
    if estimate > MAX_SECONDS_LEFT or estimate > MAX_ELAPSED_MULTIPLE * seconds_sending:
        return None
    return estimate


def clock(seconds: float) -> str:
    """`seconds` as m:ss or h:mm:ss.

    >>> clock(75.4), clock(3725)
    ('1:15', '1:02:05')
    """
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def run_header(
    description: str,
    model: str,
    backend: str,
    cache: Path | str | None,
    argv: Sequence[str] | None = None,
) -> str:
    """The line a run starts with (as lm-eval prints its model and arguments first): the
    lexbench version, the command as typed, what runs on which model, and where answers are
    cached, so a pasted log says how it was made.

    >>> run_header("lambda", "smollm2-135m", "hf", "/c/responses.sqlite", ["lexbench", "run"])
    'lexbench 0.1.0 | command: lexbench run | lambda on smollm2-135m (hf) | cache: /c/responses.sqlite'
    """
    from lexbench import __version__

    words = list(sys.argv if argv is None else argv)
    if words:
        words[0] = Path(words[0]).name  # ".venv/bin/lexbench" as the user typed it: lexbench
    command = shlex.join(words) if words else "(python)"
    where = str(cache) if cache is not None else "none (--no-cache)"
    on = f"{model} ({backend})" if backend and backend != model else model
    return f"lexbench {__version__} | command: {command} | {description} on {on} | cache: {where}"


class ProgressBar:
    """The run's bar of answers: an honest time left, retries/failures, tokens decoded and
    prompt tokens read between answers, and a clock that never stops.

    `answered(n, sent=...)` counts answers, `tokens(n)` decoded tokens, `prefill(share,
    tokens)` how far the model is through reading a batch's prompts. On a terminal it is a
    tqdm bar redrawn at least every `REDRAW_S`; elsewhere (a CI log, `2> file`) it is a
    plain line every `LOG_EVERY_S` and one at the end, so a log gets news without a flood.

    A caller that shows more (a plan's cell i of N and its overall time left) gives it as
    `description` (written first) and `extra` (a function whose text is written last, read
    at every redraw).
    """

    def __init__(
        self,
        description: str,
        total: int | None,
        initial: int,
        extra: Callable[[], str] | None = None,
        stream: TextIO | None = None,
    ):
        self.description = description
        self.total = total
        self.done = initial
        self.extra = extra
        self._stream = stream if stream is not None else sys.stderr
        self._sent = 0
        self._first_send: float | None = None
        self._started = time.monotonic()
        self._tokens = 0
        self._reading: tuple[float, int] | None = None  # (share done, prompt tokens)
        self._extra: dict[str, int] = {}
        self._drawn = 0.0
        self._lock = threading.RLock()
        self._bar: Any = None
        if _is_terminal(self._stream):
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                initial=initial,
                desc=description,
                unit="req",
                file=self._stream,
                mininterval=0.5,
                dynamic_ncols=True,
                # No {remaining}: tqdm's own estimate is replaced by `time_left`'s.
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]",
            )
            self._ticker = Ticker(REDRAW_S, lambda: self._describe(force=True))
        else:
            self._write_line()
            self._ticker = Ticker(LOG_EVERY_S, self._write_line)

    def sending(self) -> None:
        """The run starts sending requests: the clock of the sending rate starts."""
        if self._first_send is None:
            self._first_send = time.monotonic()

    def answered(self, count: int, sent: bool) -> None:
        with self._lock:
            self.done += count
            if sent:
                self.sending()
                self._sent += count
            if self._bar is not None:
                self._bar.update(count)
        self._describe()

    def tokens(self, count: int) -> None:
        """`count` more tokens decoded (the bar is redrawn at most twice a second)."""
        self._tokens += count
        self._reading = None  # decoding: the prompts were read
        self._describe()

    def prefill(self, share: float, tokens: int) -> None:
        """The model has read `share` (0..1) of a batch's `tokens` prompt tokens; at 1 it
        has read them all."""
        self._reading = (share, tokens) if share < 1 else None
        self._describe()

    def note(self, **counts: int) -> None:
        """Counts shown beside the bar (retries, failed)."""
        self._extra.update(counts)
        self._describe(force=True)

    def postfix(self) -> str:
        parts = [f"{k}={v}" for k, v in self._extra.items()]
        reading = self._reading
        if reading is not None:
            parts.append(f"prefill {reading[0]:.0%} of {reading[1]:,} prompt tokens")
        if self._tokens:
            parts.append(f"{self._tokens:,} tokens")
        left = None
        if self.total is not None and self._first_send is not None:
            spent = time.monotonic() - self._first_send
            left = time_left(self._sent, spent, max(0, self.total - self.done))
        if self.total is None or self.done < self.total:  # nothing is left once done
            parts.append(f"left {clock(left)}" if left is not None else "left ?")
        if self.extra is not None:
            parts.append(self.extra())
        return ", ".join(p for p in parts if p)

    def line(self) -> str:
        """The bar as one plain line (what a log gets)."""
        of = f"/{self.total}" if self.total is not None else ""
        share = f"{self.done / self.total:.0%} " if self.total else ""
        spent = clock(time.monotonic() - self._started)
        return f"{self.description}: {share}{self.done}{of} [{spent}, {self.postfix()}]"

    def _write_line(self) -> None:
        with self._lock:
            print(self.line(), file=self._stream, flush=True)

    def _describe(self, force: bool = False) -> None:
        if self._bar is None:
            return  # a log gets its line from the ticker
        with self._lock:
            now = time.monotonic()
            if not force and now - self._drawn < 0.5:
                return
            self._drawn = now
            self._bar.set_postfix_str(self.postfix(), refresh=True)

    def close(self) -> None:
        self._ticker.stop()
        if self._bar is None:
            self._write_line()
            return
        self._describe(force=True)
        self._bar.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
