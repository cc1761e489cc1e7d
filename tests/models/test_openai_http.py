"""The backend's own HTTP/1.1 client (issue 18): answers with Content-Length, chunked or
close-delimited bodies, keep-alive reuse, a server that closes idle connections, and the
httpx path for URLs a proxy applies to."""

from __future__ import annotations

import asyncio
import json

import pytest

from lexbench.models.openai.http import ConnectionPool, TransportError, _proxy_applies

ANSWER = json.dumps({"choices": [{"text": " hi"}]}).encode()


def chunked(body: bytes) -> bytes:
    half = len(body) // 2
    return b"%x\r\n%s\r\n%x;ext=1\r\n%s\r\n0\r\nTrailer: x\r\n\r\n" % (
        half,
        body[:half],
        len(body) - half,
        body[half:],
    )


STYLES = {
    "length": lambda body: (
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
        True,
    ),
    "chunked": lambda body: (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body),
        True,
    ),
    "close": lambda body: (
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
        False,
    ),
    "http10": lambda body: (b"HTTP/1.0 200 OK\r\n\r\n" + body, False),
    "continue": lambda body: (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: %d"
        b"\r\n\r\n%s" % (len(body), body),
        True,
    ),
}


async def serve(style: str, seen: list[bytes], connections: list[int]) -> asyncio.AbstractServer:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            length = int(
                next(
                    line.split(b":")[1]
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
            )
            seen.append(head + await reader.readexactly(length))
            answer, keep = STYLES[style](ANSWER)
            writer.write(answer)
            await writer.drain()
            if not keep:
                break
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_body_framing_reads_whole_and_reuses_what_it_can(style):
    async def main() -> tuple[list, list[bytes], list[int]]:
        seen: list[bytes] = []
        connections: list[int] = []
        server = await serve(style, seen, connections)
        port = server.sockets[0].getsockname()[1]
        pool = ConnectionPool(
            f"http://127.0.0.1:{port}/v1", api_key="sk-abc", url_credentials=None, timeout=5
        )
        replies = []
        for _ in range(3):
            connection = pool.acquire()
            replies.append(await connection.post(pool.path("completions"), b'{"a":1}'))
            pool.release(connection)
            await asyncio.sleep(0.01)
        await pool.aclose()
        server.close()
        return replies, seen, connections

    replies, seen, connections = asyncio.run(main())
    assert [r.status for r in replies] == [200] * 3
    assert all(r.json() == {"choices": [{"text": " hi"}]} for r in replies)
    assert seen[0].startswith(b"POST /v1/completions HTTP/1.1\r\n")
    assert b"Authorization: Bearer sk-abc\r\n" in seen[0] and seen[0].endswith(b'{"a":1}')
    keeps_alive = STYLES[style](b"")[1]
    assert len(connections) == (1 if keeps_alive else 3)


def test_a_server_closing_an_idle_connection_costs_no_failed_request():
    async def main() -> list[int]:
        statuses = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            await writer.drain()
            writer.close()  # keep-alive announced, then the idle connection is closed

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = ConnectionPool(
            f"http://127.0.0.1:{port}/v1", api_key=None, url_credentials=None, timeout=5
        )
        for _ in range(3):
            connection = pool.acquire()
            statuses.append((await connection.post("/v1/x", b"{}")).status)
            pool.release(connection)
            await asyncio.sleep(0.05)  # the close reaches us while idle
        await pool.aclose()
        server.close()
        return statuses

    assert asyncio.run(main()) == [200, 200, 200]


def test_a_dropped_answer_is_a_transport_error():
    async def main() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"cut')
            await writer.drain()
            writer.transport.abort()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = ConnectionPool(
            f"http://127.0.0.1:{port}/v1", api_key=None, url_credentials=None, timeout=5
        )
        connection = pool.acquire()
        with pytest.raises(TransportError, match="closed mid-answer"):
            await connection.post("/v1/x", b"{}")
        assert not connection.usable
        await pool.aclose()
        server.close()

    asyncio.run(main())


def test_a_proxy_in_the_environment_sends_requests_through_httpx(monkeypatch):
    for name in (
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)
    assert not _proxy_applies("https", "api.openai.com")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert _proxy_applies("https", "api.openai.com")
    assert not _proxy_applies("http", "127.0.0.1")
    monkeypatch.setenv("NO_PROXY", "api.openai.com")
    assert not _proxy_applies("https", "api.openai.com")
    pool = ConnectionPool("https://example.org/v1", api_key=None, url_credentials=None, timeout=5)
    assert pool.proxied


def test_the_httpx_path_answers_like_the_direct_one(monkeypatch):
    from fake_openai_server import FakeOpenAIServer
    from lexbench.models.openai import http as openai_http
    from lexbench.models.openai.backend import OpenAIModel
    from lexbench.models.openai.options import OpenAIOptions
    from lexbench.types import Decoding, Request

    asked = [
        Request(id=f"q{n}", kind="generate", prompt=f"q {n} :", decoding=Decoding(max_new_tokens=2))
        for n in range(6)
    ]
    with FakeOpenAIServer(lifetime=30) as server:
        options = OpenAIOptions(base_url=server.url, max_concurrency=16)
        direct = OpenAIModel("fake-model", options).generate(asked)
        monkeypatch.setattr(openai_http, "_proxy_applies", lambda scheme, host: True)
        through_httpx = OpenAIModel("fake-model", options).generate(asked)
    assert through_httpx == direct and all(r.error is None for r in direct)


def test_https_through_the_own_client(tmp_path):
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)
    client_side = ssl.create_default_context(cafile=str(cert))

    async def main() -> list[int]:
        seen: list[bytes] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break
                seen.append(head)
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                await reader.readexactly(length)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER)
                )
                await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_side)
        port = server.sockets[0].getsockname()[1]
        pool = ConnectionPool(
            f"https://127.0.0.1:{port}/v1",
            api_key="sk-tls",
            url_credentials=None,
            timeout=5,
            tls=client_side,
        )
        statuses = []
        for _ in range(2):
            connection = pool.acquire()
            statuses.append((await connection.post(pool.path("completions"), b"{}")).status)
            pool.release(connection)
        await pool.aclose()
        server.close()
        assert (
            seen[0].startswith(b"POST /v1/completions")
            and f"Host: 127.0.0.1:{port}".encode() in seen[0]
        )
        return statuses

    assert asyncio.run(main()) == [200, 200]
