"""The OpenAI-compatible backend's options, checked when given (the server, the API, the key's
environment variable, concurrency, rate limit, timeouts, retries, prompts per request), and
running its asynchronous client from synchronous code."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import re
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from lexbench.models.openai.retry import MAX_RETRY_AFTER_SECONDS
from lexbench.models.providers import GIVEN_URL, PROVIDERS, default_url_origin

DEFAULT_BASE_URL = "https://api.openai.com/v1"


APIS = ("completions", "chat")


# Most prompts one request carries when the user does not say.
MAX_AUTO_PROMPTS_PER_REQUEST = 16


T = TypeVar("T")

# Allocations between young-generation collections while requests are in flight (Python's
# default is 700). See `fewer_collections`.
IN_FLIGHT_GC_THRESHOLD = 50_000


@dataclass(frozen=True)
class OpenAIOptions:
    """Connection and pacing options of the OpenAI-compatible backend."""

    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = "OPENAI_API_KEY"
    api: str = "completions"  # or "chat"
    max_concurrency: int = 8  # prompts in flight at once
    requests_per_minute: float | None = None
    timeout: float = 120.0  # seconds per attempt
    max_retries: int = 6  # attempts = max_retries + 1
    max_retry_wait: float = MAX_RETRY_AFTER_SECONDS  # longest Retry-After waited for
    prompts_per_request: int | None = None  # None: max_concurrency // 8, in 1..16
    # Whose model this is (`together:` keeps its prefix in the readable name; `openai:` is
    # the backend itself) and where `base_url` came from, as hints name it ("--base-url",
    # "$LEXBENCH_GROQ_BASE_URL", the provider's default): set by `providers.provider_options`.
    # Neither is sent, fingerprinted or written to config.json.
    provider: str = "openai"
    base_url_from: str = ""

    @property
    def url_origin(self) -> str:
        """Where `base_url` came from, for hints: as set, else OpenAI's default or the
        caller's URL."""
        if self.base_url_from:
            return self.base_url_from
        if self.base_url.rstrip("/") == DEFAULT_BASE_URL:
            return default_url_origin("openai")
        return GIVEN_URL

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(
                f"provider must be one of {', '.join(PROVIDERS)}, got {self.provider!r}"
            )
        if not re.match(r"^https?://[^/\s]+", self.base_url):
            raise ValueError(
                f"--base-url must be an http(s) URL such as "
                f"http://127.0.0.1:8000/v1, got {self.base_url!r}"
            )
        if self.api not in APIS:
            raise ValueError(f"--api must be one of {', '.join(APIS)}, got {self.api!r}")
        if self.max_concurrency < 1:
            raise ValueError(f"--max-concurrency must be at least 1, got {self.max_concurrency}")
        if self.requests_per_minute is not None and self.requests_per_minute <= 0:
            raise ValueError(
                f"--requests-per-minute must be positive, got {self.requests_per_minute}"
            )
        if self.timeout <= 0:
            raise ValueError(f"--timeout must be positive, got {self.timeout}")
        if self.max_retries < 0:
            raise ValueError(f"--max-retries must be 0 or more, got {self.max_retries}")
        if not self.max_retry_wait >= 0:
            raise ValueError(
                f"--max-retry-wait must be 0 or more seconds, got {self.max_retry_wait}"
            )
        if not self.api_key_env or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env):
            raise ValueError(
                f"--api-key-env must name an environment variable, got {self.api_key_env!r}"
            )
        if self.prompts_per_request is not None and not 1 <= self.prompts_per_request <= 1024:
            raise ValueError(
                f"prompts_per_request must be between 1 and 1024, got {self.prompts_per_request}"
            )

    def batch_size(self) -> int:
        if self.prompts_per_request is not None:
            return min(self.prompts_per_request, self.max_concurrency)
        return max(1, min(MAX_AUTO_PROMPTS_PER_REQUEST, self.max_concurrency // 8))


class RequestFailedForAll(RuntimeError):
    """A request every other one depends on failed for good (the echo check)."""


def run_sync(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from synchronous code, even when the calling thread
    already runs an event loop (a notebook): then it runs in a worker thread's own loop."""

    async def main() -> T:
        return await make()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, main()).result()


@contextmanager
def fewer_collections(threshold: int = IN_FLIGHT_GC_THRESHOLD) -> Iterator[None]:
    """Collect the young generation less often while requests are in flight. Every answer
    leaves objects that live on (its response, its cache entry), so at the default
    threshold the collector ran hundreds of times per 10^4 prompts and now and then walked
    the whole heap: a fifth of the client's CPU on the request path (measured with
    `gc.callbacks`, SetLexSem's prompts at 128 in flight). Nothing is left uncollected:
    the collector still runs, only every `threshold` allocations, and the previous
    thresholds come back afterwards (unless someone changed them meanwhile)."""
    before = gc.get_threshold()
    if before[0] == 0 or before[0] >= threshold:  # collection off, or already rarer
        yield
        return
    ours = (threshold, *before[1:])
    gc.set_threshold(*ours)
    try:
        yield
    finally:
        if gc.get_threshold() == ours:
            gc.set_threshold(*before)
