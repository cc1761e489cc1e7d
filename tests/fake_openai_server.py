"""A small OpenAI-compatible server for tests and benchmarks, with injectable faults.

Stdlib only (asyncio streams, a minimal HTTP/1.1 with keep-alive), bound to 127.0.0.1,
stopping by itself after `lifetime` seconds. Answers are deterministic functions of the
prompt, so two runs against it give identical results.

Endpoints: POST /v1/completions (prompt, max_tokens, logprobs, echo), POST
/v1/chat/completions (messages, logprobs/top_logprobs), GET /v1/models.

Faults are chosen per request by `faults(prompt, attempt)` (attempt counts from 1 for each
distinct prompt) and are one of:

    "429"        Too Many Requests with Retry-After: `retry_after`
    "500"        Internal Server Error
    "drop"       close the connection without answering
    "slow"       answer after `slow_seconds` (longer than the client's timeout)
    "malformed"  200 with a body that is not JSON
    "400" "401" "404"   permanent errors

Every request is logged (`log`: time, path, prompt, attempt, outcome), in memory and, with
`log_path`, as JSONL flushed per line so another process can follow it.

Run standalone (prints `PORT <n>`, serves until stdin closes or the lifetime ends):

    python tests/fake_openai_server.py --latency 0.1 [--log requests.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
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

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           429: "Too Many Requests", 500: "Internal Server Error"}
VOCABULARY = ("apple", "river", "stone", "happy", "large", "quick", "green", "light",
              "north", "small", "ancient", "bright", "silent", "warm", "open", "young")


@dataclass(frozen=True)
class LogEntry:
    time: float
    path: str
    prompt: str
    attempt: int
    outcome: str            # "ok" or the fault injected


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

    def __init__(self, *, latency: float = 0.0,
                 faults: Callable[[str, int], str | None] | None = None,
                 reply: Callable[[str], str] = default_reply, retry_after: str = "1",
                 slow_seconds: float = 3.0, require_key: str | None = None,
                 echo_supported: bool = True, model: str = "fake-model",
                 lifetime: float = 300.0, log_path: str | Path | None = None):
        self.latency = latency
        self.faults = faults
        self.reply = reply
        self.retry_after = retry_after
        self.slow_seconds = slow_seconds
        self.require_key = require_key
        self.echo_supported = echo_supported
        self.model = model
        self.lifetime = lifetime
        self.log: list[LogEntry] = []
        self.headers_seen: list[dict[str, str]] = []
        self._log_file = open(log_path, "a", encoding="utf-8") if log_path else None
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
            try:
                await asyncio.wait_for(self._until_stopped(), timeout=self.lifetime)
            except TimeoutError:
                pass
            self._server.close()

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

    async def _write(self, writer: asyncio.StreamWriter, status: int, payload: bytes,
                     extra: dict[str, str] | None = None) -> None:
        head = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}",
                "Content-Type: application/json", f"Content-Length: {len(payload)}",
                "Connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
        try:
            await writer.drain()
        except ConnectionError:
            pass

    async def _respond(self, method: str, path: str, headers: dict[str, str], body: bytes,
                       writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False closes the connection."""
        with self._lock:
            self.headers_seen.append(headers)
        if method == "GET" and path.rstrip("/") == "/v1/models":
            await self._write(writer, 200, json.dumps(
                {"object": "list", "data": [{"id": self.model, "object": "model"}]}).encode())
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
        prompt = (request["messages"][-1]["content"] if chat else request["prompt"])
        if self.require_key is not None and headers.get("authorization") != f"Bearer {self.require_key}":
            self._record(path, prompt, 0, "401")
            await self._write(writer, 401, json.dumps({"error": {
                "message": f"Incorrect API key provided: {headers.get('authorization', '')}"}}).encode())
            return True
        with self._lock:
            self._attempts[prompt] += 1
            attempt = self._attempts[prompt]
        fault = self.faults(prompt, attempt) if self.faults else None
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault == "drop":
            self._record(path, prompt, attempt, "drop")
            writer.transport.abort()
            return False
        if fault in ("400", "401", "404", "500"):
            self._record(path, prompt, attempt, fault)
            await self._write(writer, int(fault), json.dumps(
                {"error": {"message": f"injected {fault}"}}).encode())
            return True
        if fault == "429":
            self._record(path, prompt, attempt, "429")
            await self._write(writer, 429, b'{"error": {"message": "slow down"}}',
                              {"Retry-After": self.retry_after})
            return True
        if fault == "malformed":
            self._record(path, prompt, attempt, "malformed")
            await self._write(writer, 200, b'{"choices": [{"text": "trunc')
            return True
        if fault == "slow":
            await asyncio.sleep(self.slow_seconds)
        self._record(path, prompt, attempt, "slow" if fault == "slow" else "ok")
        answer = self._chat(request) if chat else self._completion(request)
        await self._write(writer, 200, json.dumps(answer).encode())
        return True

    # ------------------------------------------------------------ answers

    def _generated(self, prompt: str, max_tokens: int) -> str:
        return "".join(split_tokens(self.reply(prompt))[:max(0, max_tokens)])

    def _top(self, prompt: str, k: int) -> list[tuple[str, float]]:
        first = split_tokens(self.reply(prompt))[:1] or [" "]
        pairs = [(first[0], -0.1)]
        pairs += [(f" {word}", -1.0 - index) for index, word in enumerate(VOCABULARY)
                  if f" {word}" != first[0]]
        return pairs[:k]

    def _completion(self, request: dict[str, Any]) -> dict[str, Any]:
        prompt = request["prompt"]
        generated = self._generated(prompt, int(request.get("max_tokens", 16)))
        choice: dict[str, Any] = {"index": 0, "text": generated, "finish_reason": "length",
                                  "logprobs": None}
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
                values[0] = None
            choice["logprobs"] = {
                "tokens": tokens, "token_logprobs": values, "text_offset": offsets,
                "top_logprobs": [dict(self._top(prompt, int(logprobs) or 1))] * len(tokens)}
        return {"id": "cmpl-fake", "object": "text_completion", "model": self.model,
                "choices": [choice],
                "usage": {"prompt_tokens": len(split_tokens(prompt)),
                          "completion_tokens": len(split_tokens(generated))}}

    def _chat(self, request: dict[str, Any]) -> dict[str, Any]:
        prompt = request["messages"][-1]["content"]
        generated = self._generated(prompt, int(request.get("max_tokens", 16)))
        choice: dict[str, Any] = {"index": 0, "finish_reason": "length", "logprobs": None,
                                  "message": {"role": "assistant", "content": generated}}
        if request.get("logprobs"):
            k = int(request.get("top_logprobs") or 1)
            choice["logprobs"] = {"content": [{
                "token": token, "logprob": pseudo_logprob(token),
                "top_logprobs": [{"token": t, "logprob": v} for t, v in self._top(prompt, k)],
            } for token in split_tokens(generated)]}
        return {"id": "chat-fake", "object": "chat.completion", "model": self.model,
                "choices": [choice],
                "usage": {"completion_tokens": len(split_tokens(generated))}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--lifetime", type=float, default=600.0, help="stop after this many seconds")
    parser.add_argument("--log", default=None, help="append a JSONL request log here")
    parser.add_argument("--require-key", default=None, help="answer 401 unless this bearer key")
    args = parser.parse_args()
    server = FakeOpenAIServer(latency=args.latency, lifetime=args.lifetime, log_path=args.log,
                              require_key=args.require_key).start()
    print(f"PORT {server.port}", flush=True)
    # Stop when the parent closes our stdin (or dies), or when the lifetime ends.
    watcher = threading.Thread(target=lambda: (sys.stdin.read(), server._stopped.set()),
                               daemon=True)
    watcher.start()
    server._stopped.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
