"""Send requests to a model through the cache, in chunks, with a progress bar.

The runner is the only place that talks to both the cache and the model:

1. look every request up in the cache (cached ones are never sent again);
2. send the rest in chunks (the backend batches inside a chunk), committing each chunk's
   answers to the cache as soon as they arrive;
3. return responses in request order, and counts for results.json.

Ctrl-C or a crash loses at most the chunk in flight; rerunning the same command resumes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache, request_key
from lexbench.types import Request, Response


@dataclass
class RunStats:
    """What the runner did, for results.json."""

    requests: int = 0
    cached: int = 0
    sent: int = 0
    failed: int = 0
    seconds: float = 0.0
    retries: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {
            "requests": self.requests, "cached": self.cached, "sent": self.sent,
            "failed": self.failed, "seconds": round(self.seconds, 3), "retries": self.retries,
        }
        out.update(self.extra)
        return out


def _duplicate_ids(requests: Sequence[Request]) -> list[str]:
    seen: set[str] = set()
    duplicates = []
    for request in requests:
        if request.id in seen:
            duplicates.append(request.id)
        seen.add(request.id)
    return duplicates


def execute(model: Model, requests: Sequence[Request], cache: ResponseCache | None = None,
            chunk_size: int | None = None, progress: bool = True,
            description: str = "requests") -> tuple[list[Response], RunStats]:
    """Answer `requests` with `model`, reading and filling `cache`. Order is preserved."""
    duplicates = _duplicate_ids(requests)
    if duplicates:
        raise ValueError(f"request ids must be unique; repeated: {duplicates[:5]}")
    started = time.perf_counter()
    stats = RunStats(requests=len(requests))
    fingerprint = model.fingerprint()
    keys = [request_key(fingerprint, r) for r in requests]
    found = cache.get_many(keys) if cache is not None else {}
    responses: list[Response | None] = []
    pending: list[int] = []
    for index, (request, key) in enumerate(zip(requests, keys)):
        hit = found.get(key)
        if hit is not None:
            # The cached answer may come from another item asking the same thing.
            responses.append(Response(**{**hit.__dict__, "request_id": request.id}))
        else:
            responses.append(None)
            pending.append(index)
    stats.cached = len(requests) - len(pending)

    size = chunk_size or int(getattr(model, "preferred_chunk_size", 0) or 256)
    bar = None
    if progress and pending:
        from tqdm import tqdm

        bar = tqdm(total=len(requests), initial=stats.cached, desc=description, unit="req",
                   file=sys.stderr, mininterval=0.5, dynamic_ncols=True)
    try:
        for start in range(0, len(pending), size):
            chunk = pending[start:start + size]
            answers = model.answer([requests[i] for i in chunk])
            if cache is not None:
                cache.put_many((keys[i], fingerprint, requests[i], a) for i, a in zip(chunk, answers))
            for i, answer in zip(chunk, answers):
                responses[i] = answer
                stats.sent += 1
                stats.failed += answer.error is not None
            if bar is not None:
                bar.update(len(chunk))
                retries = int(getattr(model, "retry_count", 0))
                if retries:
                    bar.set_postfix(retries=retries, failed=stats.failed)
    except KeyboardInterrupt:
        done = stats.cached + stats.sent
        print(f"\nlexbench: interrupted after {done}/{len(requests)} responses; they are cached."
              " Run the same command again to resume.", file=sys.stderr)
        raise
    finally:
        if bar is not None:
            bar.close()
    stats.retries = int(getattr(model, "retry_count", 0))
    stats.seconds = time.perf_counter() - started
    return [r for r in responses if r is not None], stats
