"""The transport of the OpenAI-compatible backend: connections, retry policy, rate limit,
secrets in error text (models/secrets.py).

Connections: a small keep-alive HTTP/1.1 client on asyncio streams (plain or TLS), one
request at a time per connection. It costs about a tenth of httpx's CPU per request, which
is what limits a client at hundreds of requests per second on one core (measured in
measurements/performance/openai_throughput.py; see the README, OpenAI-compatible servers). Where a proxy
applies to the URL (HTTP(S)_PROXY without a matching NO_PROXY), httpx carries the requests
instead, as before.

Retry policy: 429, 5xx, timeouts, dropped connections and malformed answers are retried with
exponential backoff and jitter, honouring Retry-After (never less, at most `max_wait`);
400/401/403/404/405/422 are permanent.
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lexbench.models.secrets import basic_token

# Longest response head (status line + headers) accepted, and longest body.
MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 256 * 1024 * 1024


# ------------------------------------------------------------------------------ replies


class TransportError(Exception):
    """The connection failed or closed before a whole answer arrived."""


class CannotConnect(TransportError):
    """No connection could be opened: the host name was not found, the connection was
    refused, the network or host is unreachable. Before the server has answered anything,
    this fails every request at once, unretried (`openai.send`): retrying a wrong URL only
    waits."""


def cannot_connect(error: BaseException) -> bool:
    """Whether opening a connection failed for good (a wrong host or port, no server)."""
    import errno
    import socket

    unreachable = (errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL)
    return isinstance(error, (socket.gaierror, ConnectionRefusedError)) or (
        isinstance(error, OSError) and error.errno in unreachable
    )


@dataclass(frozen=True)
class Reply:
    """One HTTP answer: status, headers (lower-case names) and the raw body."""

    status: int
    headers: dict[str, str]
    body: bytes
    reason: str = ""

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


def error_detail(reply: Reply) -> str:
    """The server's error message, from OpenAI-style JSON when there is one; whole (the
    caller masks secrets in it, then cuts it short)."""
    try:
        data = reply.json()
        if isinstance(data, dict):
            error = data.get("error", data.get("detail", data))
            if isinstance(error, dict):
                error = error.get("message", error)
            return str(error)
    except ValueError:
        pass
    return reply.text or reply.reason


def unreachable_hint(base_url: str, origin: str, reason: str) -> str:
    """Why no request could be sent, naming where the URL came from (`origin`: "--base-url",
    an override variable such as "$LEXBENCH_GROQ_BASE_URL", or the provider's default), so
    the user looks at the right thing: the option, the variable, or the network."""
    if origin == "--base-url":
        return (
            f"connection error: cannot connect to {base_url}: check --base-url "
            f"(no server answers there: {reason})"
        )
    if origin.startswith("$"):
        return (
            f"connection error: cannot connect to {base_url}: check {origin}, which set it "
            f"(no server answers there: {reason})"
        )
    return (
        f"connection error: cannot connect to {base_url}, {origin} (no --base-url given): "
        f"is this machine online? ({reason})"
    )


def permanent_hint(
    status: int, api_key_env: str, base_url: str, detail: str = "", origin: str = "--base-url"
) -> str:
    if status in (401, 403):
        if not os.environ.get(api_key_env):
            return (
                f"The environment variable {api_key_env} is not set, and this server wants "
                f"an API key: export {api_key_env}=YOUR_KEY (or name another variable with "
                f"--api-key-env)."
            )
        return (
            f"Check the API key in the environment variable {api_key_env} "
            f"(set --api-key-env to use another variable)."
        )
    if status == 404 and "chat" in detail.lower() and "completions" in detail.lower():
        return (
            "The model answers only the chat endpoint: use --api chat (generate, and rank "
            "through chat top_logprobs, at most 20 on hosted APIs; loglikelihood needs a "
            "completions endpoint with echo)."
        )
    if status == 404:
        return (
            f"Check the URL ({origin}; it usually ends in /v1) and the model name; "
            f"GET {base_url}/models lists the models the server has."
        )
    return "The server refused the request itself; retrying would not help."


# ------------------------------------------------------------------------------ connections


class Connection:
    """One keep-alive HTTP/1.1 connection (plain or TLS), one request at a time. It opens
    on first use and again after the server closed it; any failure closes it."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None, head_prefix: bytes):
        self._host, self._port, self._tls = host, port, tls
        self._head_prefix = head_prefix
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def usable(self) -> bool:
        return (
            self._writer is not None
            and not self._writer.is_closing()
            and self._reader is not None
            and not self._reader.at_eof()
        )

    async def post(self, path: str, body: bytes) -> Reply:
        if not self.usable:
            self.close()
            try:
                self._reader, self._writer = await asyncio.open_connection(
                    self._host,
                    self._port,
                    ssl=self._tls,
                    limit=MAX_HEAD_BYTES,
                    server_hostname=self._host if self._tls else None,
                )
            except (OSError, ssl.SSLError) as error:
                failure = CannotConnect if cannot_connect(error) else TransportError
                raise failure(f"{type(error).__name__}: {error}") from None
        reader, writer = self._reader, self._writer
        assert reader is not None and writer is not None
        try:
            writer.write(
                b"POST %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s"
                % (path.encode("ascii"), self._head_prefix, len(body), body)
            )
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                status, reason, headers = _parse_head(head)
                if status >= 200:
                    break  # 1xx (100 Continue) heads precede the answer
            payload = await _read_body(reader, headers)
        except asyncio.IncompleteReadError as error:
            self.close()
            what = "closed the connection" if not error.partial else "closed mid-answer"
            raise TransportError(f"the server {what}") from None
        except (OSError, ssl.SSLError, asyncio.LimitOverrunError, ValueError) as error:
            self.close()
            raise TransportError(f"{type(error).__name__}: {error}") from None
        except BaseException:
            # Cancelled (timeout, the run stopping): the answer may still come, so this
            # connection cannot carry another request.
            self.close()
            raise
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Reply(status, headers, payload, reason)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


def _parse_head(head: bytes) -> tuple[int, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ValueError(f"not an HTTP status line: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if parts[0] == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive":
        headers["connection"] = "close"
    return int(parts[1]), parts[2] if len(parts) > 2 else "", headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks: list[bytes] = []
        total = 0
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":
                    pass  # trailers
                return b"".join(chunks)
            total += size
            if total > MAX_BODY_BYTES:
                raise ValueError(f"answer longer than {MAX_BODY_BYTES} bytes")
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = headers.get("content-length")
    if length is not None:
        size = int(length)
        if size > MAX_BODY_BYTES:
            raise ValueError(f"answer longer than {MAX_BODY_BYTES} bytes")
        return await reader.readexactly(size) if size else b""
    headers["connection"] = "close"  # the body ends where the connection does
    return await reader.read(MAX_BODY_BYTES)


class _HttpxConnection:
    """The same `post` through httpx, for URLs a proxy applies to."""

    def __init__(self, client: Any, origin: str):
        self._client, self._origin = client, origin
        self.usable = True

    async def post(self, path: str, body: bytes) -> Reply:
        import httpx

        try:
            answer = await self._client.post(self._origin + path, content=body)
        except httpx.TimeoutException:
            raise TimeoutError() from None
        except httpx.ConnectError as error:
            raise CannotConnect(f"{type(error).__name__}: {error}") from None
        except httpx.TransportError as error:
            raise TransportError(f"{type(error).__name__}: {error}") from None
        return Reply(
            answer.status_code,
            {k.lower(): v for k, v in answer.headers.items()},
            answer.content,
            answer.reason_phrase,
        )

    def close(self) -> None:
        pass


class ConnectionPool:
    """Connections to one base URL: idle ones are reused, new ones opened on demand (the
    caller bounds how many are in use at once). `path(endpoint)` is the request path."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        url_credentials: tuple[str, str] | None,
        timeout: float,
        tls: ssl.SSLContext | None = None,
    ):
        parts = urlsplit(base_url)
        self.scheme = parts.scheme
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self._prefix = parts.path.rstrip("/")
        self._query = f"?{parts.query}" if parts.query else ""
        self.timeout = timeout
        host_header = f"[{self.host}]" if ":" in self.host else self.host
        if parts.port:
            host_header += f":{parts.port}"
        headers = {
            "Host": host_header,
            "User-Agent": "lexbench",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }
        # Credentials given in the URL go as HTTP Basic (as httpx does with a URL's user
        # info), so the URL itself, in logs and messages, never carries them.
        if url_credentials is not None:
            headers["Authorization"] = f"Basic {basic_token(url_credentials)}"
        elif api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._headers = headers
        self._head_prefix = "".join(f"{k}: {v}\r\n" for k, v in headers.items()).encode("latin-1")
        self._tls = tls
        self._idle: list[Any] = []
        self._all: list[Any] = []
        self._httpx: Any = None
        self.proxied = _proxy_applies(parts.scheme, self.host)
        # Set once the server has answered: a refusal after that is a server restarting,
        # worth retrying; before it, a wrong URL or no server (`CannotConnect`).
        self.answered = False
        self.unreachable = ""  # why no connection could be made, before any answer

    def path(self, endpoint: str) -> str:
        return f"{self._prefix}/{endpoint}{self._query}"

    def acquire(self) -> Any:
        while self._idle:
            connection = self._idle.pop()
            if connection.usable:
                return connection
            connection.close()
        if self.proxied:
            return _HttpxConnection(self._httpx_client(), f"{self.scheme}://{self._netloc()}")
        if self.scheme == "https" and self._tls is None:
            # Built once: loading the CA bundle costs ~20 ms.
            self._tls = tls_context()
        connection = Connection(
            self.host, self.port, self._tls if self.scheme == "https" else None, self._head_prefix
        )
        self._all.append(connection)
        return connection

    def release(self, connection: Any) -> None:
        if connection.usable:
            self._idle.append(connection)

    def _netloc(self) -> str:
        return self._headers["Host"]

    def _httpx_client(self) -> Any:
        if self._httpx is None:
            import httpx

            headers = {k: v for k, v in self._headers.items() if k != "Host"}
            self._httpx = httpx.AsyncClient(
                headers=headers, timeout=httpx.Timeout(self.timeout), trust_env=True
            )
        return self._httpx

    async def aclose(self) -> None:
        for connection in self._all:
            connection.close()
        self._all.clear()
        self._idle.clear()
        if self._httpx is not None:
            await self._httpx.aclose()
            self._httpx = None


def tls_context() -> ssl.SSLContext:
    """Certificates as httpx finds them: SSL_CERT_FILE / SSL_CERT_DIR when set, else
    certifi's bundle when installed, else the system's."""
    if os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(
            cafile=os.environ.get("SSL_CERT_FILE") or None,
            capath=os.environ.get("SSL_CERT_DIR") or None,
        )
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _proxy_applies(scheme: str, host: str) -> bool:
    """Whether the environment names a proxy for this URL (HTTP(S)_PROXY, ALL_PROXY) that
    NO_PROXY does not exempt: then httpx, which speaks to proxies, carries the requests."""
    proxies = urllib.request.getproxies()
    if not (proxies.get(scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(host)
