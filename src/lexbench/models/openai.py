"""OpenAI-compatible HTTP backend: vLLM, SGLang, llama.cpp, Ollama, TGI, hosted APIs.

    lexbench run lambda --model openai:NAME --base-url http://127.0.0.1:8000/v1

The three request kinds map onto the two endpoints:

* `generate`: `/completions` (or `/chat/completions` with `--api chat`, and always for a
  request that carries chat messages). `stop_at_word_end` cannot be sent to a server, so
  the reply is cut after its first whole word on arrival (`max_new_tokens` still caps it).
* `rank`: one generated token with `logprobs` (completions) or `top_logprobs` (chat). A
  server returns token texts, not ids, so `RankedToken.token_id` is -1; a server may return
  fewer than `top_k`, and a gold token outside the returned list has rank > len(ranked).
* `loglikelihood`: `/completions` with `echo` + `logprobs`, which returns the log-probability
  of every prompt token; the continuation's tokens are found by their character offsets.
  A server that returns no prompt log-probabilities (OpenAI's hosted chat models, chat
  endpoints in general) raises `UnsupportedRequest` naming the problem. So does a server
  whose echoed log-probabilities are wrong: before its first loglikelihood request, the
  backend asks for one greedy token t after a context and then for the echo of context + t,
  and the two log-probabilities of t must agree (llama-cpp-python 0.3 echoes each token's
  log-probability under the distribution that follows it, one position late).

Requests go out concurrently (asyncio + httpx, at most `max_concurrency` in flight, an
optional requests-per-minute limit). 429, 5xx, timeouts, dropped connections and malformed
answers are retried with exponential backoff and jitter, honouring Retry-After; a request
that still fails comes back as `Response(error=...)` with its reason. 400/401/403/404/422
raise `PermanentModelError` at once: retrying cannot fix a bad key, URL or model name.

The API key is read from the environment variable named by `api_key_env` when the model is
loaded; it is sent only in the Authorization header, never part of the fingerprint (so never
in the cache or the run folder), and scrubbed from any error text.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import os
import random
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from lexbench.models.base import Model, PermanentModelError, UnsupportedRequest
from lexbench.text import cut_at_stop
from lexbench.types import RankedToken, Request, Response

DEFAULT_BASE_URL = "https://api.openai.com/v1"
APIS = ("completions", "chat")
# Statuses retrying cannot fix: the run stops with the server's message.
PERMANENT_STATUSES = frozenset({400, 401, 403, 404, 405, 422})
# Statuses that mean "not now": request timeout, conflict, too early, rate limited.
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})
# A Retry-After longer than this is not waited for in full (a day-long ban is a failure).
MAX_RETRY_AFTER_SECONDS = 600.0
# Echo check: a token's echoed and sampled log-probabilities may differ by kernel noise
# (batched prompt vs single-token decode, bf16), never by this much when both are right.
ECHO_TOLERANCE = 0.25

T = TypeVar("T")
OnResponse = Callable[[int, Response], None]


# ------------------------------------------------------------------------------ options


@dataclass(frozen=True)
class OpenAIOptions:
    """Connection and pacing options of the OpenAI-compatible backend."""

    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = "OPENAI_API_KEY"
    api: str = "completions"                # or "chat"
    max_concurrency: int = 8                 # requests in flight at once
    requests_per_minute: float | None = None
    timeout: float = 120.0                   # seconds per attempt
    max_retries: int = 6                     # attempts = max_retries + 1

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.base_url):
            raise ValueError(f"--base-url must be an http(s) URL such as "
                             f"http://127.0.0.1:8000/v1, got {self.base_url!r}")
        if self.api not in APIS:
            raise ValueError(f"--api must be one of {', '.join(APIS)}, got {self.api!r}")
        if self.max_concurrency < 1:
            raise ValueError(f"--max-concurrency must be at least 1, got {self.max_concurrency}")
        if self.requests_per_minute is not None and self.requests_per_minute <= 0:
            raise ValueError(f"--requests-per-minute must be positive, got {self.requests_per_minute}")
        if self.timeout <= 0:
            raise ValueError(f"--timeout must be positive, got {self.timeout}")
        if self.max_retries < 0:
            raise ValueError(f"--max-retries must be 0 or more, got {self.max_retries}")
        if not self.api_key_env or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env):
            raise ValueError(f"--api-key-env must name an environment variable, got {self.api_key_env!r}")


# ------------------------------------------------------------------------------ retry policy


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP date.

    >>> parse_retry_after("3"), parse_retry_after("0.5"), parse_retry_after(None)
    (3.0, 0.5, None)
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            moment = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if moment is None:
            return None
        seconds = moment.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def backoff_delay(attempt: int, rng: random.Random, base: float = 0.5, cap: float = 30.0) -> float:
    """Exponential backoff with jitter for the `attempt`-th retry (0-based): a uniform draw
    in [d/2, d] with d = min(cap, base * 2**attempt), so clients that failed together do not
    come back together."""
    ceiling = min(cap, base * (2.0 ** attempt))
    return ceiling / 2 + rng.uniform(0.0, ceiling / 2)


def retry_delay(attempt: int, retry_after: float | None, rng: random.Random,
                base: float = 0.5, cap: float = 30.0) -> float:
    """How long to wait before the next attempt: the server's Retry-After when it sent one
    (never less, plus up to 10% jitter), else exponential backoff."""
    if retry_after is not None:
        wait = min(retry_after, MAX_RETRY_AFTER_SECONDS)
        return wait + rng.uniform(0.0, 0.1 * wait)
    return backoff_delay(attempt, rng, base, cap)


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or 500 <= status <= 599


def is_permanent_status(status: int) -> bool:
    return status in PERMANENT_STATUSES


class RateLimiter:
    """At most `requests_per_minute` request starts per minute, evenly spaced, plus a shared
    pause (a 429 with Retry-After holds back every request, not only the one refused).

    `reserve()` is the pure part: it books the next start slot and says how long to wait.
    """

    def __init__(self, requests_per_minute: float | None,
                 clock: Callable[[], float] = time.monotonic):
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._clock = clock
        self._next_slot = 0.0
        self._paused_until = 0.0

    def reserve(self) -> float:
        now = self._clock()
        start = max(now, self._paused_until, self._next_slot if self.interval else now)
        if self.interval:
            self._next_slot = start + self.interval
        return start - now

    def pause_for(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    async def acquire(self) -> None:
        delay = self.reserve()
        while delay > 0:
            await asyncio.sleep(delay)
            # A pause may have been set while we slept.
            delay = max(0.0, self._paused_until - self._clock())


# ------------------------------------------------------------------------------ text helpers


_WORD_CHAR = re.compile(r"[^\W_]", re.UNICODE)


def cut_after_first_word(text: str) -> str:
    """`text` up to and including the character that ends its first whole word (the
    `stop_at_word_end` protocol, applied on arrival since servers cannot stop there).

    >>> cut_after_first_word(" large and small"), cut_after_first_word(" x-ray."), cut_after_first_word(" lar")
    (' large ', ' x-ray.', ' lar')
    """
    match = _WORD_CHAR.search(text)
    if match is None:
        return text
    for position in range(match.start(), len(text)):
        char = text[position]
        if _WORD_CHAR.match(char):
            continue
        if char in "-'" and position + 1 < len(text) and _WORD_CHAR.match(text[position + 1]):
            continue
        return text[:position + 1]
    return text


def split_context(context: str, continuation: str) -> tuple[str, str]:
    """(context without trailing spaces, those spaces + continuation): a tokenizer joins a
    space to the word after it, so the boundary moves as the transformers backend moves it."""
    stripped = context.rstrip(" ")
    return stripped, context[len(stripped):] + continuation


def continuation_logprobs(token_logprobs: Sequence[float | None], text_offset: Sequence[int],
                          boundary: int, prompt_length: int) -> list[float]:
    """The log-probabilities of the tokens that carry continuation text.

    Tokens are located by their character offsets in the echoed prompt: a token belongs to
    the continuation when it ends after `boundary` (a token straddling the boundary counts,
    as its probability covers continuation text) and starts inside the prompt (tokens at or
    after `prompt_length` were generated, not echoed).
    """
    if len(token_logprobs) != len(text_offset):
        raise ValueError("token_logprobs and text_offset differ in length")
    picked: list[float] = []
    for index, start in enumerate(text_offset):
        if start >= prompt_length:
            break
        end = text_offset[index + 1] if index + 1 < len(text_offset) else prompt_length
        end = min(end, prompt_length)
        if end > boundary or start >= boundary:
            value = token_logprobs[index]
            if value is None:
                raise ValueError("the first prompt token has no log-probability; the "
                                 "continuation needs a non-empty context")
            picked.append(float(value))
    if not picked:
        raise ValueError("no echoed token covers the continuation")
    return picked


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


# ------------------------------------------------------------------------------ the backend


class RequestFailed(Exception):
    """One request failed for good (after its retries, or with a non-retryable status)."""


class RequestFailedForAll(RuntimeError):
    """A request every other one depends on failed for good (the echo check)."""


class _Retry(Exception):
    """An attempt failed in a way another attempt may fix."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


@dataclass(frozen=True)
class _Call:
    """One HTTP request: endpoint (relative to the base URL), JSON body, and how to turn
    the answer's JSON into a value (raising KeyError/TypeError/... on a malformed answer)."""

    endpoint: str
    body: dict[str, Any]
    parse: Callable[[dict[str, Any]], Any]


class OpenAIModel(Model):
    """A model behind an OpenAI-compatible HTTP API.

    >>> model = OpenAIModel("smollm2", OpenAIOptions(base_url="http://127.0.0.1:8080/v1"))  # doctest: +SKIP
    """

    def __init__(self, name: str, options: OpenAIOptions = OpenAIOptions()):
        self.name = name
        self.options = options
        self.base_url = options.base_url.rstrip("/")
        self._api_key = os.environ.get(options.api_key_env) or None
        self.retry_count = 0
        self.retry_reasons: Counter[str] = Counter()
        self._rng = random.Random()
        # Chunks large enough that draining the last in-flight requests of a chunk costs
        # little (one latency per 64 rounds at full concurrency).
        self.preferred_chunk_size = max(256, 64 * options.max_concurrency)
        self._limiter = RateLimiter(options.requests_per_minute)
        self._echo_verified = False
        self._ssl_context: Any = None

    # ------------------------------------------------------------ identity

    def fingerprint(self) -> dict[str, Any]:
        # Never the key: the fingerprint is stored in the cache and in config.json.
        return {"backend": "openai", "model": self.name, "base_url": self.base_url,
                "api": self.options.api}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "max_concurrency": self.options.max_concurrency,
                "requests_per_minute": self.options.requests_per_minute,
                "timeout": self.options.timeout, "max_retries": self.options.max_retries,
                "api_key_env": self.options.api_key_env,
                "api_key_set": self._api_key is not None}

    def _redact(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text

    # ------------------------------------------------------------ request kinds

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(self._only(requests, "generate"))

    def rank(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(self._only(requests, "rank"))

    def loglikelihood(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(self._only(requests, "loglikelihood"))

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        return self.answer_each(requests)

    @staticmethod
    def _only(requests: Sequence[Request], kind: str) -> Sequence[Request]:
        wrong = [r.id for r in requests if r.kind != kind]
        if wrong:
            raise ValueError(f"{kind}() was given requests of another kind: {wrong[:5]}")
        return requests

    def answer_each(self, requests: Sequence[Request],
                    on_response: OnResponse | None = None) -> list[Response]:
        """Answer a mixed list concurrently, calling `on_response(position, response)` as
        each answer arrives (the runner caches it there, so a kill loses only requests in
        flight). Returns the responses in request order; a request that failed for good is
        `Response(error=...)`. Raises PermanentModelError / UnsupportedRequest at once."""
        plans = [self._plan(request) for request in requests]  # validates before sending
        if not plans:
            return []
        return run_sync(lambda: self._answer_all(requests, plans, on_response))

    # ------------------------------------------------------------ planning

    def _endpoint(self, request: Request) -> str:
        return "chat/completions" if (self.options.api == "chat" or request.chat) else "completions"

    def _messages(self, request: Request) -> list[dict[str, str]]:
        if request.messages:
            return [{"role": role, "content": content} for role, content in request.messages]
        return [{"role": "user", "content": request.prompt}]

    def _base_body(self, request: Request, endpoint: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.name}
        if endpoint == "chat/completions":
            body["messages"] = self._messages(request)
        else:
            body["prompt"] = request.prompt
        return body

    def _plan(self, request: Request) -> list[_Call]:
        if request.kind == "generate":
            return [self._plan_generate(request)]
        if request.kind == "rank":
            return [self._plan_rank(request)]
        if request.kind == "loglikelihood":
            return self._plan_loglikelihood(request)
        raise ValueError(f"request {request.id}: unknown kind {request.kind!r}")

    def _plan_generate(self, request: Request) -> _Call:
        endpoint = self._endpoint(request)
        decoding = request.decoding
        body = self._base_body(request, endpoint)
        body["max_tokens"] = decoding.max_new_tokens
        body["temperature"] = decoding.temperature if not decoding.greedy else 0.0
        if not decoding.greedy and decoding.top_p < 1.0:
            body["top_p"] = decoding.top_p
        if not decoding.greedy and decoding.top_k:
            body["top_k"] = decoding.top_k   # vLLM, SGLang, llama.cpp extension
        if decoding.stop:
            body["stop"] = list(decoding.stop)
        if decoding.seed is not None:
            body["seed"] = decoding.seed

        def parse(data: dict[str, Any]) -> Response:
            choice = data["choices"][0]
            if endpoint == "chat/completions":
                text = choice["message"].get("content") or ""
            else:
                text = choice["text"]
            if not isinstance(text, str):
                raise TypeError(f"reply text is {type(text).__name__}, not a string")
            text = cut_at_stop(text, decoding.stop)
            if decoding.stop_at_word_end:
                text = cut_after_first_word(text)
            usage = data.get("usage") or {}
            return Response(request_id=request.id, text=text,
                            generated_tokens=int(usage.get("completion_tokens") or 0))

        return _Call(endpoint, body, parse)

    def _plan_rank(self, request: Request) -> _Call:
        endpoint = self._endpoint(request)
        body = self._base_body(request, endpoint)
        body.update({"max_tokens": 1, "temperature": 0.0})
        if endpoint == "chat/completions":
            body.update({"logprobs": True, "top_logprobs": request.top_k})
        else:
            body["logprobs"] = request.top_k

        def parse(data: dict[str, Any]) -> Response:
            logprobs = data["choices"][0].get("logprobs")
            if not logprobs:
                raise UnsupportedRequest(
                    f"{self.base_url}/{endpoint} returned no logprobs for model {self.name!r}; "
                    "rank requests need a server that returns top log-probabilities")
            if endpoint == "chat/completions":
                entries = [(e["token"], float(e["logprob"]))
                           for e in logprobs["content"][0]["top_logprobs"]]
            else:
                entries = [(str(t), float(v)) for t, v in logprobs["top_logprobs"][0].items()]
            entries.sort(key=lambda e: -e[1])   # stable: equal scores keep server order
            ranked = tuple(RankedToken(-1, text, value) for text, value in entries[:request.top_k])
            return Response(request_id=request.id, ranked=ranked)

        return _Call(endpoint, body, parse)

    def _plan_loglikelihood(self, request: Request) -> list[_Call]:
        if self._endpoint(request) != "completions":
            raise UnsupportedRequest(
                f"request {request.id}: loglikelihood needs the completions endpoint with "
                f"echo + logprobs; chat endpoints return no prompt log-probabilities "
                f"(use --api completions)")
        if not request.continuations:
            raise ValueError(f"request {request.id}: loglikelihood request has no continuations")
        calls = []
        for continuation in request.continuations:
            if not continuation:
                raise ValueError(f"request {request.id}: a continuation is empty")
            context, moved = split_context(request.prompt, continuation)
            prompt = context + moved
            # One generated token (max_tokens=0 is refused by some servers); it is dropped.
            body = {"model": self.name, "prompt": prompt, "max_tokens": 1, "temperature": 0.0,
                    "echo": True, "logprobs": 1}
            calls.append(_Call("completions", body, self._loglikelihood_parser(
                request, prompt, len(context))))
        return calls

    def _loglikelihood_parser(self, request: Request, prompt: str,
                              boundary: int) -> Callable[[dict[str, Any]], tuple[float, int]]:
        def parse(data: dict[str, Any]) -> tuple[float, int]:
            choice = data["choices"][0]
            logprobs = choice.get("logprobs")
            text = choice.get("text")
            if (not logprobs or not isinstance(text, str) or not text.startswith(prompt)
                    or not logprobs.get("text_offset")):
                raise UnsupportedRequest(
                    f"{self.base_url}/completions does not echo the prompt with "
                    f"log-probabilities for model {self.name!r} (echo + logprobs); "
                    "loglikelihood requests need a server that does (vLLM and SGLang do; "
                    "OpenAI's hosted chat models do not)")
            values = continuation_logprobs(logprobs["token_logprobs"], logprobs["text_offset"],
                                           boundary, len(prompt))
            return sum(values), len(values)

        return parse

    # ------------------------------------------------------------ sending

    async def _answer_all(self, requests: Sequence[Request], plans: Sequence[list[_Call]],
                          on_response: OnResponse | None) -> list[Response]:
        out: list[Response | None] = [None] * len(requests)
        width = min(self.options.max_concurrency, sum(len(p) for p in plans))
        clients = self._clients(width)
        # One client per concurrency slot, each with one keep-alive connection: taking a
        # client from this queue is the concurrency limit. (One shared client with a pool of
        # N connections costs O(N) per request in httpcore's pool bookkeeping, which at 128
        # in flight spends more CPU than the requests themselves.)
        free: asyncio.Queue[Any] = asyncio.Queue()
        for client in clients:
            free.put_nowait(client)
        try:
            first_scored = next((r for r in requests if r.kind == "loglikelihood"), None)
            if first_scored is not None and not self._echo_verified:
                await self._verify_echo(free, first_scored)

            async def one(position: int) -> None:
                request = requests[position]
                try:
                    values = await asyncio.gather(*(self._send(free, call)
                                                    for call in plans[position]))
                    response = self._combine(request, values)
                except RequestFailed as failure:
                    response = Response(request_id=request.id, error=self._redact(str(failure)))
                out[position] = response
                if on_response is not None:
                    on_response(position, response)

            try:
                async with asyncio.TaskGroup() as group:
                    for position in range(len(requests)):
                        group.create_task(one(position))
            except BaseExceptionGroup as errors:
                # Surface the one error that stopped the run, not a group of one.
                raise _first_leaf(errors) from None
        finally:
            await asyncio.gather(*(client.aclose() for client in clients),
                                 return_exceptions=True)
        return [r for r in out if r is not None]

    def _clients(self, count: int) -> list[Any]:
        import httpx

        if self._ssl_context is None:
            # Built once: loading the CA bundle for every client would cost ~20 ms each.
            self._ssl_context = httpx.create_ssl_context()
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        return [httpx.AsyncClient(base_url=self.base_url + "/", headers=headers,
                                  timeout=httpx.Timeout(self.options.timeout),
                                  limits=httpx.Limits(max_connections=1,
                                                      max_keepalive_connections=1),
                                  verify=self._ssl_context)
                for _ in range(max(1, count))]

    async def _verify_echo(self, free: asyncio.Queue[Any], request: Request) -> None:
        """Check that the server's echoed prompt log-probabilities mean what the API says
        (log P(token | the tokens before it)) before trusting them with loglikelihoods."""
        context = split_context(request.prompt, request.continuations[0])[0]
        if not context:
            raise ValueError(f"request {request.id}: loglikelihood needs a non-empty context")

        def sampled(data: dict[str, Any]) -> tuple[str, float]:
            choice = data["choices"][0]
            logprobs = choice.get("logprobs")
            if not logprobs:
                raise UnsupportedRequest(
                    f"{self.base_url}/completions returned no logprobs for model "
                    f"{self.name!r}; loglikelihood requests need echo + logprobs")
            if not logprobs.get("tokens"):
                return "", 0.0            # the model ended at once: nothing to compare
            return str(logprobs["tokens"][0]), float(logprobs["token_logprobs"][0])

        body = {"model": self.name, "prompt": context, "max_tokens": 1, "temperature": 0.0,
                "logprobs": 1}
        try:
            token, expected = await self._send(free, _Call("completions", body, sampled))
        except RequestFailed as failure:
            raise RequestFailedForAll(f"checking echo support: {failure}") from None
        if not token:
            # Nothing to check against (the model ended at once); trust the echo.
            self._echo_verified = True
            return
        probe = context + token
        body = {"model": self.name, "prompt": probe, "max_tokens": 1, "temperature": 0.0,
                "echo": True, "logprobs": 1}
        try:
            echoed = await self._send(free, _Call(
                "completions", body, self._loglikelihood_parser(request, probe, len(context))))
        except RequestFailed as failure:
            raise RequestFailedForAll(f"checking echo support: {failure}") from None
        total, count = echoed
        if count == 1 and abs(total - expected) > ECHO_TOLERANCE:
            raise UnsupportedRequest(
                f"{self.base_url} echoes prompt log-probabilities that disagree with its own "
                f"next-token log-probabilities (token {token!r} after the first context: "
                f"{total:.3f} echoed, {expected:.3f} sampled), so it does not implement "
                "echo + logprobs correctly (llama-cpp-python 0.3 reports each token under "
                "the distribution one position late). loglikelihood requests cannot be "
                "answered through this server; use vLLM or SGLang, or the hf backend.")
        self._echo_verified = True

    @staticmethod
    def _combine(request: Request, values: Sequence[Any]) -> Response:
        if request.kind != "loglikelihood":
            return values[0]
        return Response(request_id=request.id, loglikelihoods=tuple(v for v, _ in values),
                        continuation_tokens=tuple(n for _, n in values))

    async def _send(self, free: asyncio.Queue[Any], call: _Call) -> Any:
        """POST one call with retries; the parsed value, or RequestFailed with the reason."""
        attempts = self.options.max_retries + 1
        for attempt in range(attempts):
            # Backoff sleeps happen without a client, so they do not hold a slot.
            client = await free.get()
            try:
                await self._limiter.acquire()
                return await self._attempt(client, call)
            except _Retry as retry:
                if attempt + 1 >= attempts:
                    raise RequestFailed(f"failed after {attempts} attempts; last: "
                                        f"{retry.reason}") from None
                self.retry_count += 1
                self.retry_reasons[retry.reason.split(":")[0]] += 1
                if retry.retry_after is not None:
                    self._limiter.pause_for(min(retry.retry_after, MAX_RETRY_AFTER_SECONDS))
                delay = retry_delay(attempt, retry.retry_after, self._rng)
            finally:
                free.put_nowait(client)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def _attempt(self, client: Any, call: _Call) -> Any:
        import httpx

        try:
            reply = await client.post(call.endpoint, json=call.body)
        except httpx.TimeoutException:
            raise _Retry(f"timeout: no answer within {self.options.timeout:g} s") from None
        except httpx.TransportError as error:
            raise _Retry(f"connection error: {type(error).__name__}: "
                         f"{self._redact(str(error)) or 'dropped'}") from None
        status = reply.status_code
        if status == 200:
            try:
                data = reply.json()
            except ValueError:
                raise _Retry(f"malformed JSON: {reply.text[:80]!r}") from None
            try:
                if not isinstance(data, dict):
                    raise TypeError(f"top level is {type(data).__name__}")
                return call.parse(data)
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
                raise _Retry(f"malformed response: {type(error).__name__}: {error}; "
                             f"body {reply.text[:120]!r}") from None
        detail = self._redact(_error_detail(reply))
        if is_permanent_status(status):
            raise PermanentModelError(
                f"{self.base_url}/{call.endpoint} answered HTTP {status} for model "
                f"{self.name!r}: {detail}. {_permanent_hint(status, self.options.api_key_env, self.base_url)}")
        if is_retryable_status(status):
            raise _Retry(f"HTTP {status}: {detail}",
                         parse_retry_after(reply.headers.get("retry-after")))
        raise RequestFailed(f"HTTP {status}: {detail}")


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The error to report from a task group: a permanent or unsupported-request error
    when there is one (it says what to fix), else the first error raised."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        error = pending.pop(0)
        if isinstance(error, BaseExceptionGroup):
            pending[:0] = list(error.exceptions)
        else:
            leaves.append(error)
    for leaf in leaves:
        if isinstance(leaf, (PermanentModelError, UnsupportedRequest)):
            return leaf
    return leaves[0]


def _error_detail(reply: Any) -> str:
    """The server's error message, from OpenAI-style JSON when there is one."""
    try:
        data = reply.json()
        if isinstance(data, dict):
            error = data.get("error", data.get("detail", data))
            if isinstance(error, dict):
                error = error.get("message", error)
            return str(error)[:300]
    except ValueError:
        pass
    return reply.text[:300] or reply.reason_phrase


def _permanent_hint(status: int, api_key_env: str, base_url: str) -> str:
    if status in (401, 403):
        return (f"Check the API key in the environment variable {api_key_env} "
                f"(set --api-key-env to use another variable).")
    if status == 404:
        return (f"Check --base-url (it usually ends in /v1) and the model name; "
                f"GET {base_url}/models lists the models the server has.")
    return "The server refused the request itself; retrying would not help."


def load(name: str, options: Mapping[str, Any]) -> OpenAIModel:
    """Registry entry: `openai:NAME` with options base_url, api_key_env, api,
    max_concurrency, requests_per_minute, timeout, max_retries."""
    known = {f.name for f in fields(OpenAIOptions)}
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise ValueError(f"option(s) {', '.join(unknown)} do not apply to the openai backend; "
                         f"it takes: {', '.join(sorted(known))}")
    return OpenAIModel(name, OpenAIOptions(**dict(options)))
