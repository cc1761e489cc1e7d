"""The allowed range of every numeric command-line option, checked by argparse at parse
time: a value outside it (or nan, inf, 1e400, a count of 99999999999999 items) exits 2 with
the range in the message, before a model loads or a folder is made.

Each range is a frozen dataclass used as an argparse `type`, so a test can walk the parser
tree and find any int or float option without one (tests/commands/test_numbers.py).

    >>> SEED("7"), PORT("8765"), count(high=10)("3")
    (7, 8765, 3)
    >>> TIMEOUT("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a number from 0 (exclusive) to 86400, got 'nan'
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

#: The largest count lexbench takes for an option without a tighter bound of its own: a
#: C int, which every backend (torch, llama.cpp, sqlite) can hold.
MAX_COUNT = 2**31 - 1
#: Seeds: numpy and torch take 0 .. 2**32 - 1; Python's random takes more, but a seed that
#: one backend refuses would make a run unrepeatable elsewhere.
MAX_SEED = 2**32 - 1
#: A day: the longest timeout or wait lexbench accepts in seconds.
DAY_SECONDS = 86_400.0


def _number_text(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class IntRange:
    """Integers from `low` to `high`, both included."""

    low: int
    high: int

    @property
    def __name__(self) -> str:  # argparse names the type in some of its messages
        return "integer"

    def describe(self) -> str:
        return f"an integer from {self.low} to {self.high}"

    def __call__(self, text: str) -> int:
        try:
            value = int(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {self.describe()}, got {text!r}") from None
        if not self.low <= value <= self.high:
            shown = text if len(str(text)) <= 40 else f"{str(text)[:37]}..."
            raise argparse.ArgumentTypeError(f"must be {self.describe()}, got {shown}")
        return value


@dataclass(frozen=True)
class FloatRange:
    """Finite numbers from `low` to `high` (nan and inf never pass); `low_open` excludes
    `low` itself (a timeout of 0 s cannot be met)."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    @property
    def __name__(self) -> str:
        return "number"

    def describe(self) -> str:
        low = _number_text(self.low) + (" (exclusive)" if self.low_open else "")
        high = _number_text(self.high) + (" (exclusive)" if self.high_open else "")
        return f"a number from {low} to {high}"

    def __call__(self, text: str) -> float:
        try:
            value = float(str(text).strip())
        except ValueError:
            value = math.nan
        too_low = value <= self.low if self.low_open else value < self.low
        too_high = value >= self.high if self.high_open else value > self.high
        if not math.isfinite(value) or too_low or too_high:
            shown = str(text) if len(str(text)) <= 40 else f"{str(text)[:37]}..."
            raise argparse.ArgumentTypeError(f"must be {self.describe()}, got {shown!r}")
        return value


@dataclass(frozen=True)
class IntOrWord:
    """An integer in `numbers`, or the one word `word` (`--eval-every epoch`)."""

    word: str
    numbers: IntRange

    @property
    def __name__(self) -> str:
        return "integer"

    def __call__(self, text: str) -> int | str:
        if text == self.word:
            return text
        try:
            return self.numbers(text)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(
                f"must be {self.word!r} or {self.numbers.describe()}, got {text!r}"
            ) from None


#: The types the parser-tree test accepts as ranged.
RANGED = (IntRange, FloatRange, IntOrWord)


def count(low: int = 1, high: int = MAX_COUNT) -> IntRange:
    """A number of things: items, samples, resamples, steps (from 1 unless said)."""
    return IntRange(low, high)


POSITIVE = count()
NON_NEGATIVE = count(0)
SEED = IntRange(0, MAX_SEED)
#: TCP ports; 0 asks the system for a free one.
PORT = IntRange(0, 65_535)
#: A port a study is served on: 0 (any free port) would leave the printed link unknown.
SERVE_PORT = IntRange(1, 65_535)
#: Seconds a request may take, or a wait may last.
TIMEOUT = FloatRange(0.0, DAY_SECONDS, low_open=True)
WAIT_SECONDS = FloatRange(0.0, DAY_SECONDS)
#: Requests per minute of a rate limit (a million: more than any hosted API grants).
RATE = FloatRange(0.0, 1_000_000.0, low_open=True)
#: Sampling temperature: 0 is greedy; OpenAI-style APIs take up to 2, local models more.
TEMPERATURE = FloatRange(0.0, 100.0)
#: A probability mass or a rate that must leave something: top-p, dropout's complement.
PROBABILITY_MASS = FloatRange(0.0, 1.0, low_open=True)
FRACTION = FloatRange(0.0, 1.0)
#: Dropout: 1 would drop everything.
DROPOUT = FloatRange(0.0, 1.0, high_open=True)
#: Optimiser settings of the fine-tuning commands.
LEARNING_RATE = FloatRange(0.0, 1.0, low_open=True)
EPOCHS = FloatRange(0.0, 10_000.0, low_open=True)
#: A hidden layer counted from the first (0) or the last (-1): no transformer has 1,000.
LAYER = IntRange(-1_000, 1_000)

# Counts that multiply the work, bounded where more could not be needed (not the size of a
# C int: `--sets 100000000` was taken and ran for ever; `--sets` is bounded by the planner's
# MAX_SETS, in commands/arguments.py).
#: Samples per item (`--samples`), each its own request for every item.
SAMPLES_PER_ITEM = count(1, 1_000)
#: Resamples of a permutation or bootstrap test: ten times the SCAN paper's million.
RESAMPLES = count(1, 10_000_000)
RESAMPLES_OR_NONE = count(0, RESAMPLES.high)  # 0 leaves the test out
#: New tokens of one answer: 131,072 (128 Ki) is more than any hosted API returns at once,
#: and a local model asked for more would generate for hours.
NEW_TOKENS = count(1, 131_072)
