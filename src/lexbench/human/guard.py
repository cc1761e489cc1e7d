"""The study server's gate: every request passes here before the app sees it.

    unknown Host header                     -> 421  (DNS rebinding: a page on
                                                     attacker.example resolving to this
                                                     machine must not read an item page;
                                                     so does a Host that is not a bare
                                                     `name[:port]`: `127.0.0.1:80 evil`,
                                                     `127.0.0.1:80/evil`)
    POST from another origin, or Origin: null -> 403  (a page the annotator has open elsewhere
                                                     must not write into the study; so does
                                                     a second Origin header)
    a second Host header                    -> 421  (h11, which uvicorn reads requests
                                                     with, refuses one before the guard
                                                     sees it: `GuardedH11Protocol` answers
                                                     that refusal 421 instead of 400)
    a body over `max_body` bytes            -> 413  (refused while it streams in: a 400 MB
                                                     chunked POST is never held in memory)

An IP-literal Host is always accepted: a rebinding attack needs a name of its own, and a
name is what it cannot make us accept. Names are `localhost` plus those the server was
told (`--allow-host`, the machine's own names when it binds beyond loopback). The Origin of
a state-changing request must name the very host and port the request was sent to; a
request without Origin (curl, scripts) is no cross-site request and is let through, the
browser always sends one with a form POST. Plain ASGI, so it wraps any app.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost"})
# A Host header as a browser sends it (RFC 9110: uri-host [":" port]): a name or an IPv4
# address, or an IPv6 address in brackets, and at most a port after it. Nothing else: not
# a space, a path, a user or a second port (`127.0.0.1:8765 evil`, `127.0.0.1:8765/evil`).
_HOST_HEADER = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?")


class BodyTooLarge(Exception):
    """Raised from `receive` once a request body passes the limit."""


def host_name(host_header: str) -> str:
    """The name part of a Host header or an Origin's netloc, lower-cased, brackets off.

    >>> host_name("[::1]:8765"), host_name("Study.Lab:80"), host_name("10.0.0.2")
    ('::1', 'study.lab', '10.0.0.2')
    """
    text = host_header.strip().lower()
    if text.startswith("["):
        return text[1:].partition("]")[0]
    return text.rpartition(":")[0] if text.count(":") == 1 else text


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class RequestGuard:
    """ASGI middleware: Host allow-list, same-origin state changes, bounded bodies."""

    def __init__(
        self, app: ASGIApp, *, allowed_hosts: Iterable[str] = (), max_body: int = 16_384
    ) -> None:
        self.app = app
        self.allowed_hosts = LOOPBACK_NAMES | {h.strip().lower() for h in allowed_hosts if h}
        self.max_body = max_body

    def host_allowed(self, host_header: str) -> bool:
        if _HOST_HEADER.fullmatch(host_header) is None:
            return False
        name = host_name(host_header)
        return bool(name) and (is_ip_literal(name) or name in self.allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        repeated: set[str] = set()
        for key, value in scope["headers"]:
            name = key.decode("latin-1").lower()
            if name in headers:
                repeated.add(name)
            headers[name] = value.decode("latin-1")
        # One Host, one Origin: with two, a check of one while the app (or a proxy) reads
        # the other would check nothing.
        if "host" in repeated:
            await _refuse(send, 421, "more than one Host header")
            return
        host = headers.get("host", "")
        if not self.host_allowed(host):
            await _refuse(send, 421, f"this study is not served under the name {host!r}")
            return
        if scope["method"] not in SAFE_METHODS:
            twice = sorted(repeated & {"origin", "sec-fetch-site"})
            problem = f"more than one {twice[0]} header" if twice else None
            problem = problem or _cross_origin(headers, host)
            if problem:
                await _refuse(send, 403, problem)
                return
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            await _refuse(send, 413, f"request body over {self.max_body} bytes")
            return
        received = 0
        started = False

        async def bounded_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded_receive, tracking_send)
        except BodyTooLarge:
            if started:  # the app answered before reading it all; nothing more to say
                return
            await _refuse(send, 413, f"request body over {self.max_body} bytes")


def _cross_origin(headers: dict[str, str], host: str) -> str | None:
    """Why a state-changing request is refused as cross-origin, or None."""
    if headers.get("sec-fetch-site", "") == "cross-site":
        return "a request from another site may not change this study"
    origin = headers.get("origin")
    if origin is None:
        return None
    if origin.strip().lower() == "null":
        return "a request from an opaque origin (Origin: null) may not change this study"
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.strip().lower():
        return f"a request from {origin!r} may not change this study (served as {host!r})"
    return None


async def _refuse(send: Send, status: int, reason: str) -> None:
    body = f"{status}: {reason}\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


@functools.cache
def guarded_h11_protocol() -> type:
    """uvicorn's h11 protocol class, but a request h11 refuses for its two Host headers is
    answered 421, as the guard answers it, instead of h11's 400: which of two names a
    request is for is not known, so it is misdirected. The study server reads requests
    with it whatever else is installed (httptools would hand both headers to the guard)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            # Called while h11's RemoteProtocolError is being handled: it says why.
            if "multiple host" not in str(sys.exception()).lower():
                super().send_400_response(msg)
                return
            import h11

            body = b"421: more than one Host header\n"
            headers = [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                (b"connection", b"close"),
            ]
            for event in (
                h11.Response(status_code=421, headers=headers, reason=b"Misdirected Request"),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    return GuardedH11Protocol
