"""Scoring items while the model is still answering others.

A run spends its request phase waiting: on the network (a server answers in tens of
milliseconds, the client needs a fraction of one) or on the model's own threads (torch
releases the GIL while it computes). A benchmark whose scorer is expensive (LAMBDA's error
taxonomy: WordNet and GloVe for every wrong answer, about 0.5 ms an item) can use that time:
`BackgroundScoring` scores each item on one worker thread as soon as every response it asked
for has arrived, and hands the scores back in item order.

A benchmark opts in with `scores_in_background = True` when its `score` is safe to run on
another thread and gives the same score whatever order the items come in (LAMBDA's memos
are; tests/benchmarks/test_lambda_speed_equivalence.py scores its pins in a shuffled order).
The scores are those of scoring after the request phase, item for item: the worker only
starts earlier. One worker, so a benchmark's scorer never runs twice at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from lexbench.types import Response, Score

Scorer = Callable[[Any, Sequence[Response]], Score]


class BackgroundScoring:
    """Scores items on a worker thread as their responses arrive (see the module doc).

    `requests_per_item[n]` is how many requests item n sent, in the order of the flat
    request list the runner answers; `arrived(index, response)` takes the response of flat
    request `index` (exactly once each); `scores()` waits for the last item and returns the
    scores in item order, raising the first error a scorer raised; `cancel()` drops items
    not yet started (an interrupted run).
    """

    def __init__(self, score: Scorer, items: Sequence[Any], requests_per_item: Sequence[int]):
        if len(items) != len(requests_per_item):
            raise ValueError("one request count per item")
        self._score = score
        self._items = items
        self._slots: list[tuple[int, int]] = [
            (number, position)
            for number, count in enumerate(requests_per_item)
            for position in range(count)
        ]
        self._answers: list[list[Response | None]] = [[None] * count for count in requests_per_item]
        self._waiting = list(requests_per_item)
        self._futures: list[Future[Score] | None] = [None] * len(items)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lexbench-scoring")
        for number, count in enumerate(requests_per_item):
            if count == 0:
                self._submit(number)

    def arrived(self, index: int, response: Response) -> None:
        number, position = self._slots[index]
        if self._answers[number][position] is not None:
            raise RuntimeError(f"request {response.request_id} was answered twice")
        self._answers[number][position] = response
        self._waiting[number] -= 1
        if self._waiting[number] == 0:
            self._submit(number)

    def _submit(self, number: int) -> None:
        # All arrived: none is None any more.
        answers = tuple(a for a in self._answers[number] if a is not None)
        self._futures[number] = self._worker.submit(self._score, self._items[number], answers)

    def scores(self) -> list[Score]:
        """Every item's score, in item order, once all have been scored."""
        try:
            missing = [n for n, future in enumerate(self._futures) if future is None]
            if missing:
                raise RuntimeError(
                    f"{len(missing)} items never received all their responses "
                    f"(the first: item {missing[0]})"
                )
            return [future.result() for future in self._futures]  # type: ignore[union-attr]
        finally:
            self._worker.shutdown(wait=True, cancel_futures=True)

    def cancel(self) -> None:
        """Drop the items not started; the one being scored finishes on its own."""
        self._worker.shutdown(wait=False, cancel_futures=True)
