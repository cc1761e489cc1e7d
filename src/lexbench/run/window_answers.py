"""One window of a run's requests answered: first from the cache, then through the model a
chunk at a time, each distinct request sent once and its answer shared with the identical
requests of the window, each answer recorded (and cached) as it arrives.

Where runs share a cache, each chunk is claimed before it is sent (`Claimant`): a request
another process answered meanwhile is recorded from the cache, and one it is sending now is
waited for, then read from the cache (or sent from here if that process dies). A streaming
backend asks before each request goes out (`Model.before_send`), so a run whose claims may
have lapsed checks each request again rather than send it twice.

`runner.Session` opens one `WindowAnswers` per window and counts, for the whole run, what
each recorded answer adds (`Account`); everything here lives as long as its window.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache, request_keys
from lexbench.run.cache_writer import GroupedWriter
from lexbench.run.claimant import Claimant
from lexbench.run.progress import ProgressBar
from lexbench.types import Request, Response

WAIT_NEWS_S = 60.0  # a waiting run says again whom it waits for, this often

# Counts one recorded answer for the run: (the answer, how many requests it answers,
# whether this run sent it).
Account = Callable[[Response, int, bool], None]
OnResponse = Callable[[int, Response], None]


@dataclass(frozen=True)
class Route:
    """What every window of one run goes through: the model, the cache with the writer of
    streamed answers and the run's claims (None without a cache), the chunk size."""

    model: Model
    cache: ResponseCache | None
    fingerprint: Mapping[str, Any]
    streaming: bool  # the model reports each answer as it arrives (`streams_answers`)
    size: int
    writer: GroupedWriter | None
    claimant: Claimant | None


def duplicate_ids(requests: Sequence[Request]) -> list[str]:
    """The ids of `requests` that an earlier request already carries (one per repeat)."""
    seen: set[str] = set()
    duplicates = []
    for request in requests:
        if request.id in seen:
            duplicates.append(request.id)
        seen.add(request.id)
    return duplicates


def plan_sends(
    pending: Sequence[int], keys: Sequence[str]
) -> tuple[list[int], dict[int, list[int]]]:
    """The first request of each distinct key (to send) and, per sent request, the later
    ones that share its key (answered with the same response)."""
    first_of_key: dict[str, int] = {}
    to_send: list[int] = []
    followers: dict[int, list[int]] = {}
    for index in pending:
        leader = first_of_key.get(keys[index])
        if leader is None:
            first_of_key[keys[index]] = index
            to_send.append(index)
        else:
            followers.setdefault(leader, []).append(index)
    return to_send, followers


class WindowAnswers:
    """The answers of one window of `requests`, in request order: those the cache holds
    when it opens, then those `send_all` gets (or finds answered by another process)."""

    def __init__(
        self,
        route: Route,
        requests: Sequence[Request],
        on_response: OnResponse | None,
        account: Account,
    ):
        self.route = route
        self.requests = requests
        self.on_response = on_response
        self._account = account
        self.keys = request_keys(route.fingerprint, requests)
        found = route.cache.get_many(self.keys) if route.cache is not None else {}
        self.responses: list[Response | None] = []
        self.pending: list[int] = []  # the requests the cache did not answer
        # Cached answers that carry an error (a typed answer such as "out of vocabulary").
        self.cached_with_error = 0
        for index, (request, key) in enumerate(zip(requests, self.keys)):
            hit = found.get(key)
            if hit is not None:
                # The cached answer may come from another item asking the same thing.
                self.responses.append(replace(hit, request_id=request.id))
                self.cached_with_error += hit.error is not None
            else:
                self.responses.append(None)
                self.pending.append(index)
        self._to_send, self._followers = plan_sends(self.pending, self.keys)
        # Requests another process was sending when this run reached them.
        self._waiting: list[int] = []

    def answers(self) -> list[Response]:
        return [r for r in self.responses if r is not None]

    def tell_cached(self) -> None:
        """Hand every answer the cache held to `on_response`, in request order."""
        if self.on_response is not None:
            for index, response in enumerate(self.responses):
                if response is not None:
                    self.on_response(index, response)

    def shared(self) -> int:
        """How many pending requests get the answer of an identical one, unsent."""
        return sum(len(v) for v in self._followers.values())

    def record(self, index: int, answer: Response, cache_it: bool, sent: bool = True) -> None:
        """Store one arrived answer (and share it with requests asking the same thing)."""
        if self.responses[index] is not None:
            raise RuntimeError(
                f"{type(self.route.model).__name__} answered request "
                f"{self.requests[index].id} twice"
            )
        writer = self.route.writer
        if cache_it and writer is not None:
            writer.add((self.keys[index], self.route.fingerprint, self.requests[index], answer))
        group = [index, *self._followers.get(index, ())]
        for member in group:
            final = (
                answer if member == index else replace(answer, request_id=self.requests[member].id)
            )
            self.responses[member] = final
            if self.on_response is not None:
                self.on_response(member, final)
        self._account(answer, len(group), sent)

    # ------------------------------------------------------------ claims

    def _claimed(self, indices: list[int], regroup: bool = True) -> tuple[list[int], list[int]]:
        """(requests this run may send now, requests another process is sending): those
        another process answered meanwhile are recorded at once (never sent twice).
        `regroup`: nothing is in flight, so every claim this run relies on is made now."""
        claimant = self.route.claimant
        if claimant is None or not indices:
            return indices, []
        keys = self.keys
        answered, mine, others = claimant.claim([keys[i] for i in indices], regroup)
        for i in indices:
            if keys[i] in answered:
                hit = answered[keys[i]]
                self.record(
                    i, replace(hit, request_id=self.requests[i].id), cache_it=False, sent=False
                )
        mine_keys = set(mine)
        waiting = [i for i in indices if keys[i] in others]
        return [i for i in indices if keys[i] in mine_keys], waiting

    def _recheck(
        self, chunk: list[int], withdrawn: set[int]
    ) -> Callable[[Sequence[int]], set[int]]:
        """The backend's look before it sends (`Model.before_send`): nothing while this
        run's claims are surely its own; once they may have lapsed (this process was
        stopped or hung), each request is claimed again first, and one another process
        answered or is sending meanwhile is not sent (recorded now, or waited for)."""
        claimant = self.route.claimant

        def before_send(positions: Sequence[int]) -> set[int]:
            if claimant is None or claimant.trusted():
                return set()
            wanted = [p for p in positions if self.responses[chunk[p]] is None]
            mine, others = self._claimed([chunk[p] for p in wanted], regroup=False)
            kept = set(mine)
            gone = {p for p in wanted if chunk[p] not in kept}
            self._waiting.extend(others)
            if gone:
                claimant.say_lapsed()
            withdrawn.update(gone)
            return gone

        return before_send

    # ------------------------------------------------------------ sending

    def send_all(self, bar: ProgressBar | None) -> None:
        """Send every pending request not shared, a chunk at a time, then wait for those
        another process was sending; commit what the writer holds (a later window asking
        the same thing finds it in the cache)."""
        size, claimant = self.route.size, self.route.claimant
        for start in range(0, len(self._to_send), size):
            mine, others = self._claimed(self._to_send[start : start + size])
            self._waiting += others
            self._send(mine, bar)
        if self._waiting and claimant is not None:  # counted across every chunk
            claimant.say_waiting(len(self._waiting), 0.0)
        pause, began, said = 0.05, time.monotonic(), time.monotonic()
        while self._waiting:
            time.sleep(pause)
            pause = min(1.0, pause * 1.5)
            mine, self._waiting = self._claimed(self._waiting)
            if self._waiting and claimant is not None and time.monotonic() - said >= WAIT_NEWS_S:
                said = time.monotonic()
                claimant.say_waiting(len(self._waiting), said - began)
            for start in range(0, len(mine), size):
                self._send(mine[start : start + size], bar)
        if self.route.writer is not None:
            self.route.writer.flush()

    def _send(self, chunk: list[int], bar: ProgressBar | None) -> None:
        if not chunk:
            return
        route, model = self.route, self.route.model
        batch = [self.requests[i] for i in chunk]
        if bar is not None:
            bar.sending()
        withdrawn: set[int] = set()  # positions another process answers (_recheck)
        if route.streaming:

            def arrived(position: int, answer: Response, chunk: list[int] = chunk) -> None:
                self.record(chunk[position], answer, cache_it=True)

            if route.cache is not None:
                model.before_send = self._recheck(chunk, withdrawn)
            try:
                answers = model.answer_each(batch, arrived)
            finally:
                model.before_send = None
            chunk = [i for position, i in enumerate(chunk) if position not in withdrawn]
        else:
            answers = model.answer(batch)
            if route.cache is not None:
                route.cache.put_many(
                    (self.keys[i], route.fingerprint, self.requests[i], a)
                    for i, a in zip(chunk, answers)
                )
        if len(answers) != len(chunk):
            raise RuntimeError(
                f"{type(model).__name__} returned {len(answers)} responses "
                f"for {len(chunk)} requests"
            )
        for i, answer in zip(chunk, answers):
            if self.responses[i] is None:  # not already recorded as it arrived
                self.record(i, answer, cache_it=route.streaming)
