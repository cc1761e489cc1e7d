"""A small OpenAI-compatible server for tests and benchmarks, with injectable faults.

Stdlib only (asyncio streams, a minimal HTTP/1.1 with keep-alive), bound to 127.0.0.1,
stopping by itself after `lifetime` seconds. Answers are deterministic functions of the
prompt, so two runs against it give identical results.

Endpoints: POST /v1/completions (prompt — a string or a list of them, one choice per
prompt —, max_tokens or max_completion_tokens, logprobs, echo), POST /v1/chat/completions
(messages, logprobs/top_logprobs), GET /v1/models.

Faults are chosen per prompt by `faults(prompt, attempt)` (attempt counts from 1 for each
distinct prompt; a request carrying several prompts gets the first fault of any of them,
as a real server fails a request whole) and are one of:

    "429"        Too Many Requests with Retry-After: `retry_after`
    "500"        Internal Server Error
    "drop"       close the connection without answering
    "slow"       answer after `slow_seconds` (longer than the client's timeout)
    "malformed"  200 with a body that is not JSON
    "bad_choice" 200, but this prompt's choice has no text (the request's other prompts are
                 answered: a client must retry this one alone and keep the others)
    "400" "401" "404"   permanent errors

`error_message` replaces the text of injected errors (a hostile server's: ANSI escapes, an
echoed key), `malformed_body` the body of "malformed" answers, and `reply` may return any
text, a lone surrogate included (it is sent as the JSON escape `\udcff`). `reply_to(prompt,
headers)`, when given, replaces `reply` and sees the request's headers (lower-case names):
a server that echoes the Authorization header it was sent in its completions, chat replies
and top log-probability tokens.

Hosted-API behaviour, each off by default: `batch_refusal` (a status answered to a list of
more than one prompt, as llama-cpp-python's server (500) and Ollama (400) do), `refuse`
(parameter name -> the 400 message OpenAI's API gives for it, e.g. 'max_tokens'),
`max_logprobs` (a 400 above that many log-probabilities), `chat_only` (404 on /completions).

Every prompt of every request is logged (`log`: time, path, prompt, attempt, outcome), in
memory and, with `log_path`, as JSONL flushed per line so another process can follow it;
`requests` counts HTTP requests.

Run standalone (prints `PORT <n>`, serves until stdin closes or the lifetime ends):

    python tests/fake_openai_server.py --latency 0.1 [--log requests.jsonl]

`LlamaServer` starts the real thing for integration tests and benchmarks: llama-cpp-python's
OpenAI-compatible server serving a GGUF file on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
}
VOCABULARY = (
    "apple",
    "river",
    "stone",
    "happy",
    "large",
    "quick",
    "green",
    "light",
    "north",
    "small",
    "ancient",
    "bright",
    "silent",
    "warm",
    "open",
    "young",
)


@dataclass(frozen=True)
class LogEntry:
    time: float
    path: str
    prompt: str
    attempt: int
    outcome: str  # "ok" or the fault injected


def default_reply(prompt: str) -> str:
    """A deterministic one-word reply chosen by the prompt's hash."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return " " + VOCABULARY[digest[0] % len(VOCABULARY)] + "\nmore words here"


def pseudo_logprob(text: str) -> float:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return -0.05 - (int.from_bytes(digest[:2], "big") % 1000) / 100.0


def split_tokens(text: str) -> list[str]:
    """Whitespace-led "tokens": ' large', '\\n', ... (deterministic and offset-exact)."""
    tokens: list[str] = []
    current = ""
    for char in text:
        if char.isspace() and current.strip():
            tokens.append(current)
            current = ""
        current += char
    if current:
        tokens.append(current)
    return tokens


class FakeOpenAIServer:
    """Start with `start()` (a background thread with its own event loop) or as a context
    manager; `url` is the base URL ending in /v1."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        faults: Callable[[str, int], str | None] | None = None,
        reply: Callable[[str], str] = default_reply,
        reply_to: Callable[[str, dict[str, str]], str] | None = None,
        retry_after: str = "1",
        slow_seconds: float = 3.0,
        require_key: str | None = None,
        echo_supported: bool = True,
        echo_misaligned: bool = False,
        model: str = "fake-model",
        error_message: str | None = None,
        malformed_body: bytes | None = None,
        batch_refusal: int | None = None,
        refuse: dict[str, str] | None = None,
        max_logprobs: int | None = None,
        chat_only: bool = False,
        echo_headers: bool = False,
        lifetime: float = 300.0,
        log_path: str | Path | None = None,
    ):
        self.latency = latency
        self.faults = faults
        self.reply = reply
        self.reply_to = reply_to
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.require_key = require_key
        self.echo_supported = echo_supported
        # Echoed prompt log-probabilities that disagree with the sampled ones (the
        # llama-cpp-python 0.3 bug, in spirit): the backend's echo check must notice.
        self.echo_misaligned = echo_misaligned
        self.model = model
        self.error_message = error_message
        self.malformed_body = malformed_body
        self.batch_refusal = batch_refusal
        self.refuse = dict(refuse or {})
        self.max_logprobs = max_logprobs
        self.chat_only = chat_only
        # Error messages that repeat the request's Authorization header, as some proxies and
        # servers do: what a client stores or prints of them must not carry the credentials.
        self.echo_headers = echo_headers
        self.requests = 0
        self.lifetime = lifetime
        self.log: list[LogEntry] = []
        self.headers_seen: list[dict[str, str]] = []
        self._log_file = (
            open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115
        )
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self.port = 0

    # ------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("fake server did not start within 10 s")
        return self

    def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)

        async def main() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=512)
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._until_stopped(), timeout=self.lifetime)
            self._server.close()
            # Finish the connections still open (a slow answer asleep) before the loop goes.
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        try:
            self._loop.run_until_complete(main())
        finally:
            self._loop.close()
            self._stopped.set()

    async def _until_stopped(self) -> None:
        while not self._stopped.is_set():
            await asyncio.sleep(0.05)

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(10)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ log

    def _record(self, path: str, prompt: str, attempt: int, outcome: str) -> None:
        entry = LogEntry(time.time(), path, prompt, attempt, outcome)
        with self._lock:
            self.log.append(entry)
            if self._log_file is not None:
                self._log_file.write(json.dumps(asdict(entry)) + "\n")
                self._log_file.flush()

    def entries(self) -> list[LogEntry]:
        with self._lock:
            return list(self.log)

    # ------------------------------------------------------------ HTTP

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    header = await reader.readline()
                    if header in (b"\r\n", b"\n", b""):
                        break
                    key, _, value = header.decode("latin-1").partition(":")
                    headers[key.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if length else b""
                if not await self._respond(method, path, headers, body, writer):
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    async def _write(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        payload: bytes,
        extra: dict[str, str] | None = None,
    ) -> None:
        head = [
            f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}",
            "Content-Type: application/json",
            f"Content-Length: {len(payload)}",
            "Connection: keep-alive",
        ]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
        with contextlib.suppress(ConnectionError):
            await writer.drain()

    async def _respond(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; False closes the connection."""
        with self._lock:
            self.headers_seen.append(headers)
        if (
            self.require_key is not None
            and headers.get("authorization") != f"Bearer {self.require_key}"
        ):
            self._record(path, "", 0, "401")
            await self._write(
                writer,
                401,
                json.dumps(
                    {
                        "error": {
                            "message": f"Incorrect API key provided: {headers.get('authorization', '')}"
                        }
                    }
                ).encode(),
            )
            return True
        if method == "GET" and path.rstrip("/") == "/v1/models":
            await self._write(
                writer,
                200,
                json.dumps(
                    {"object": "list", "data": [{"id": self.model, "object": "model"}]}
                ).encode(),
            )
            return True
        if method != "POST" or path not in ("/v1/completions", "/v1/chat/completions"):
            await self._write(writer, 404, b'{"error": {"message": "no such route"}}')
            return True
        try:
            request = json.loads(body)
        except ValueError:
            await self._write(writer, 400, b'{"error": {"message": "body is not JSON"}}')
            return True
        chat = path.endswith("chat/completions")
        prompts = (
            [request["messages"][-1]["content"]]
            if chat
            else request["prompt"]
            if isinstance(request["prompt"], list)
            else [request["prompt"]]
        )
        with self._lock:
            self.requests += 1
            attempts = []
            for prompt in prompts:
                self._attempts[prompt] += 1
                attempts.append(self._attempts[prompt])
        chosen = (
            [self.faults(p, a) for p, a in zip(prompts, attempts)]
            if self.faults
            else [None] * len(prompts)
        )
        fault = next((f for f in chosen if f and f != "bad_choice"), None)
        bad = {p for p, f in zip(prompts, chosen) if f == "bad_choice"}
        refusal = self._refusal(request, chat, len(prompts))
        # Logged on arrival, before the latency: the log holds every request received, even
        # one whose client gave up or died while waiting for the answer.
        for prompt, attempt in zip(prompts, attempts):
            self._record(
                path,
                prompt,
                attempt,
                fault or (str(refusal[0]) if refusal else "bad_choice" if prompt in bad else "ok"),
            )
        if self.latency:
            await asyncio.sleep(self.latency)
        if refusal is not None and fault is None:
            await self._write(
                writer,
                refusal[0],
                json.dumps(
                    {"error": {"message": refusal[1], "type": "invalid_request_error"}}
                ).encode(),
            )
            return True
        if fault == "drop":
            writer.transport.abort()
            return False
        if fault in ("400", "401", "404", "500"):
            message = self._echoed(self.error_message or f"injected {fault}", headers)
            await self._write(
                writer, int(fault), json.dumps({"error": {"message": message}}).encode()
            )
            return True
        if fault == "429":
            message = self._echoed(self.error_message or "slow down", headers)
            await self._write(
                writer,
                429,
                json.dumps({"error": {"message": message}}).encode(),
                {"Retry-After": self.retry_after},
            )
            return True
        if fault == "malformed":
            await self._write(writer, 200, self.malformed_body or b'{"choices": [{"text": "trunc')
            return True
        if fault == "slow":
            await asyncio.sleep(self.slow_seconds)
        answer = self._chat(request, headers) if chat else self._completion(request, headers)
        for choice, prompt in zip(answer["choices"], prompts):
            if prompt in bad:
                choice.pop("text", None)
                choice.pop("message", None)
        await self._write(writer, 200, json.dumps(answer).encode())
        return True

    def _echoed(self, message: str, headers: dict[str, str]) -> str:
        if not self.echo_headers:
            return message
        return f"{message}; you sent Authorization: {headers.get('authorization', '(none)')}"

    def _refusal(self, request: dict[str, Any], chat: bool, prompts: int) -> tuple[int, str] | None:
        """(status, message) when the configured server refuses this request as asked."""
        if self.chat_only and not chat:
            return 404, (
                "This is a chat model and not supported in the v1/completions "
                "endpoint. Did you mean to use v1/chat/completions?"
            )
        if prompts > 1 and self.batch_refusal is not None:
            return self.batch_refusal, "prompt must be a string"
        for name, message in self.refuse.items():
            if name in request:
                return 400, message
        key = "top_logprobs" if chat else "logprobs"
        count = request.get(key)
        if (
            self.max_logprobs is not None
            and isinstance(count, int)
            and not isinstance(count, bool)
            and count > self.max_logprobs
        ):
            return 400, (
                f"Invalid '{key}': integer above maximum value. Expected a value <= "
                f"{self.max_logprobs}, but got {count} instead."
            )
        return None

    # ------------------------------------------------------------ answers

    def _reply(self, prompt: str, headers: dict[str, str]) -> str:
        return self.reply_to(prompt, headers) if self.reply_to else self.reply(prompt)

    def _generated(self, prompt: str, max_tokens: int, headers: dict[str, str]) -> str:
        return "".join(split_tokens(self._reply(prompt, headers))[: max(0, max_tokens)])

    def _top(self, prompt: str, k: int, headers: dict[str, str]) -> list[tuple[str, float]]:
        first = split_tokens(self._reply(prompt, headers))[:1] or [" "]
        pairs = [(first[0], -0.1)]
        pairs += [
            (f" {word}", -1.0 - index)
            for index, word in enumerate(VOCABULARY)
            if f" {word}" != first[0]
        ]
        return pairs[:k]

    @staticmethod
    def _max_tokens(request: dict[str, Any]) -> int:
        return int(request.get("max_tokens", request.get("max_completion_tokens", 16)))

    def _completion(self, request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        if not isinstance(request["prompt"], list):
            return self._one_completion(request, request["prompt"], 0, headers)
        answers = [
            self._one_completion(request, prompt, index, headers)
            for index, prompt in enumerate(request["prompt"])
        ]
        return {
            **answers[0],
            "choices": [a["choices"][0] for a in answers],
            "usage": {
                key: sum(a["usage"][key] for a in answers)
                for key in ("prompt_tokens", "completion_tokens")
            },
        }

    def _one_completion(
        self, request: dict[str, Any], prompt: str, index: int, headers: dict[str, str]
    ) -> dict[str, Any]:
        generated = self._generated(prompt, self._max_tokens(request), headers)
        choice: dict[str, Any] = {
            "index": index,
            "text": generated,
            "finish_reason": "length",
            "logprobs": None,
        }
        logprobs = request.get("logprobs")
        if request.get("echo") and self.echo_supported:
            choice["text"] = prompt + generated
        if logprobs is not None:
            tokens = split_tokens(prompt) if (request.get("echo") and self.echo_supported) else []
            tokens += split_tokens(generated)
            offsets, position = [], 0
            for token in tokens:
                offsets.append(position)
                position += len(token)
            values: list[float | None] = [pseudo_logprob(t) for t in tokens]
            if request.get("echo") and self.echo_supported and values:
                if self.echo_misaligned:
                    values = [v - 3.0 for v in values if v is not None]
                values[0] = None
            choice["logprobs"] = {
                "tokens": tokens,
                "token_logprobs": values,
                "text_offset": offsets,
                "top_logprobs": [dict(self._top(prompt, int(logprobs) or 1, headers))]
                * len(tokens),
            }
        return {
            "id": "cmpl-fake",
            "object": "text_completion",
            "model": self.model,
            "choices": [choice],
            "usage": {
                "prompt_tokens": len(split_tokens(prompt)),
                "completion_tokens": len(split_tokens(generated)),
            },
        }

    def _chat(self, request: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        prompt = request["messages"][-1]["content"]
        generated = self._generated(prompt, self._max_tokens(request), headers)
        choice: dict[str, Any] = {
            "index": 0,
            "finish_reason": "length",
            "logprobs": None,
            "message": {"role": "assistant", "content": generated},
        }
        if request.get("logprobs"):
            k = int(request.get("top_logprobs") or 1)
            choice["logprobs"] = {
                "content": [
                    {
                        "token": token,
                        "logprob": pseudo_logprob(token),
                        "top_logprobs": [
                            {"token": t, "logprob": v} for t, v in self._top(prompt, k, headers)
                        ],
                    }
                    for token in split_tokens(generated)
                ]
            }
        return {
            "id": "chat-fake",
            "object": "chat.completion",
            "model": self.model,
            "choices": [choice],
            "usage": {"completion_tokens": len(split_tokens(generated))},
        }


# ------------------------------------------------------------------------------ the real one


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """llama-cpp-python's server (`python -m llama_cpp.server`) on 127.0.0.1 and a free port.

    Bounded in time: it runs under coreutils `timeout` (killed after `lifetime` seconds even
    if the test process dies without cleaning up) and is terminated on `stop()`.

    `n_batch=1` evaluates prompts one token at a time. It is slower, but the batched CPU
    kernels of llama-cpp-python 0.3.36 as compiled on our development machine crash
    (SIGSEGV in llama_decode) on any multi-token batch of this Q4_1 model, and one token at
    a time gives the same numbers everywhere.
    """

    def __init__(
        self,
        gguf: str | Path,
        *,
        alias: str = "smollm2-135m",
        n_ctx: int = 2048,
        n_threads: int = 1,
        n_batch: int = 1,
        lifetime: float = 900.0,
        startup_timeout: float = 180.0,
    ):
        self.gguf = Path(gguf)
        self.alias = alias
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._args = [
            "timeout",
            "--signal=TERM",
            "--kill-after=10",
            str(int(lifetime)),
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.gguf),
            "--model_alias",
            alias,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(n_ctx),
            "--n_threads",
            str(n_threads),
            "--n_threads_batch",
            str(n_threads),
            "--n_batch",
            str(n_batch),
            "--n_ubatch",
            str(n_batch),
        ]
        self.startup_timeout = startup_timeout
        self.process: Any = None
        self._log: Any = None

    def start(self) -> LlamaServer:
        import subprocess
        import tempfile
        import urllib.error
        import urllib.request

        self._log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - the server's lifetime
        self.process = subprocess.Popen(
            self._args, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"llama_cpp.server exited with {self.process.returncode}:\n"
                    f"{self.output()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {self.startup_timeout:.0f} s")

    def output(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except Exception:
                self.process.kill()
                self.process.wait(5)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def first_attempt_faults(spec: str) -> Callable[[str, int], str | None]:
    """Faults on the first attempt of a deterministic share of prompts: "429:0.1,500:0.05"."""
    shares: list[tuple[str, float]] = []
    for part in spec.split(","):
        name, _, share = part.partition(":")
        shares.append((name.strip(), float(share)))

    def choose(prompt: str, attempt: int) -> str | None:
        if attempt != 1:
            return None
        draw = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:4], "big") / 2**32
        for name, share in shares:
            if draw < share:
                return name
            draw -= share
        return None

    return choose


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument(
        "--lifetime", type=float, default=600.0, help="stop after this many seconds"
    )
    parser.add_argument("--log", default=None, help="append a JSONL request log here")
    parser.add_argument("--require-key", default=None, help="answer 401 unless this bearer key")
    parser.add_argument(
        "--faults",
        default="",
        help="first-attempt faults by share of prompts, e.g. 429:0.1,500:0.1,drop:0.05",
    )
    args = parser.parse_args()
    server = FakeOpenAIServer(
        latency=args.latency,
        lifetime=args.lifetime,
        log_path=args.log,
        require_key=args.require_key,
        faults=first_attempt_faults(args.faults) if args.faults else None,
        retry_after="1",
    ).start()
    print(f"PORT {server.port}", flush=True)
    # Stop when the parent closes our stdin (or dies), or when the lifetime ends.
    watcher = threading.Thread(
        target=lambda: (sys.stdin.read(), server._stopped.set()), daemon=True
    )
    watcher.start()
    server._stopped.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
