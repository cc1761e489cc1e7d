"""A list of requests sent as one list of calls, and each call's value gathered back to the
request it belongs to.

A request makes one call (generate, rank) or one per continuation (loglikelihood), and
every call of the list goes to the sender at once, so they share its batches and its
concurrency. A value comes back to the request that owns its call: a one-call request is
answered by it, a loglikelihood request once all its continuations are (`plan.combine`).
A call that failed for good answers its request with the error, once; the request's other
values are then dropped. Rank requests whose targets cannot be ranked are answered at once,
unsent. A request the runner withdraws just before its call goes out (`Model.before_send`:
another process answers it) is neither sent nor answered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lexbench.models.openai.call import Call
from lexbench.models.openai.flight import RequestFailed
from lexbench.models.openai.plan import combine
from lexbench.models.openai.send import Keep
from lexbench.types import Request, Response

OnResponse = Callable[[int, Response], None]
BeforeSend = Callable[[Sequence[int]], set[int]]


class Gathering:
    """The calls of one list of requests (`calls`, numbered by `Call.index`), and the
    answers gathered from their values (`responses`, in request order)."""

    def __init__(
        self,
        requests: Sequence[Request],
        plans: Sequence[list[Call]],
        refused: Mapping[int, str],
        on_response: OnResponse | None,
        before_send: BeforeSend | None,
        masked: Callable[[Response], Response],
        redact: Callable[[str], str],
    ):
        self._requests = requests
        self._plans = plans
        self._on_response = on_response
        self._before_send = before_send
        self._masked = masked  # an answer with any echoed secret masked
        self._redact = redact
        self._out: list[Response | None] = [None] * len(requests)
        self._parts: dict[int, list[Any]] = {}  # a loglikelihood request's values so far
        self._withdrawn: set[int] = set()  # positions another run answers
        # The runner's look before each request goes out, where it has one.
        self.keep: Keep | None = self._keep if before_send is not None else None
        self.calls: list[Call] = []
        self._owner: list[int] = []  # the position of each call's request
        for position, (request, plan) in enumerate(zip(requests, plans)):
            if position in refused:
                self._respond(position, Response(request_id=request.id, error=refused[position]))
                continue
            for call in plan:
                call.index = len(self.calls)
                self.calls.append(call)
                self._owner.append(position)

    def responses(self) -> list[Response]:
        """The answers, in request order; withdrawn requests have none."""
        return [r for r in self._out if r is not None]

    def _respond(self, position: int, response: Response) -> None:
        self._out[position] = response
        if self._on_response is not None:
            self._on_response(position, response)

    def deliver(self, call: Call, value: Any) -> None:
        """One call's value (or `RequestFailed`), as the sender gets it."""
        position = self._owner[call.index]
        if self._out[position] is not None or position in self._withdrawn:
            return  # its request already failed, or another run answers it
        request = self._requests[position]
        if isinstance(value, RequestFailed):
            self._respond(position, Response(request_id=request.id, error=self._redact(str(value))))
            return
        plan = self._plans[position]
        if len(plan) == 1:
            self._respond(position, self._masked(value))
            return
        collected = self._parts.setdefault(position, [None] * len(plan))
        collected[plan.index(call)] = value
        if all(v is not None for v in collected):
            self._respond(position, self._masked(combine(request, collected)))

    def _keep(self, batch: list[Call]) -> list[Call]:
        """The calls of `batch` still to send: the runner is asked about their requests
        (each once), and those it withdraws are dropped."""
        if self._before_send is None:
            return batch
        positions = sorted({self._owner[c.index] for c in batch} - self._withdrawn)
        self._withdrawn.update(self._before_send(positions))
        return [c for c in batch if self._owner[c.index] not in self._withdrawn]
