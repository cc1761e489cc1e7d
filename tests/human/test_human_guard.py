"""The study server on a shared network: invite links, the request guard, malformed forms.

Each hostile request is refused with a clear status and nothing is written to the study.
Two annotators are two clients (cookie jars) with different secrets; the streaming test
talks to a real uvicorn server over a socket, since only a real server streams a body.
"""

from __future__ import annotations

import re
import select
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi")  # the `human` extra (fastapi, uvicorn)

from fastapi.testclient import TestClient

from lexbench.cli import main
from lexbench.human.app import create_app
from lexbench.human.database import DATABASE
from lexbench.human.guard import host_name
from lexbench.human.sampling import build_study
from lexbench.human.store import Study

BASE = "http://127.0.0.1:8765"
SAME_ORIGIN = {"Origin": BASE}


@pytest.fixture
def study(tmp_path):
    from lexbench.benchmarks.scan.benchmark import load_scan

    opened = build_study(tmp_path / "scan", "scan", load_scan(), sample=3)
    yield opened
    opened.close()


def token_and_stage(html: str) -> tuple[str, str]:
    token = re.search(r'name="token" value="([^"]+)"', html)
    stage = re.search(r'name="stage" value="([^"]+)"', html)
    assert token and stage, html[:300]
    return token.group(1), stage.group(1)


def joined(app, secret: str) -> TestClient:
    """A client (one machine's browser) that has opened its invite link."""
    client = TestClient(app, base_url=BASE)
    page = client.get(f"/join/{secret}")
    assert page.status_code == 200 and 'http-equiv="refresh"' in page.text
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    return client


def post_answer(client: TestClient, name: str, fields: dict[str, str], **kwargs):
    return client.post(
        f"/a/{name}/answer", data=fields, headers=SAME_ORIGIN, follow_redirects=False, **kwargs
    )


def written(study: Study) -> list[tuple[str, str]]:
    fresh = Study(study.directory)
    try:
        return [(a.annotator, a.typed) for a in fresh.answers()]
    finally:
        fresh.close()


def test_invite_links_keep_annotators_apart(study):
    alice_secret, bob_secret = study.invite("alice"), study.invite("bob")
    stored = study._db.execute("SELECT name, secret_sha256 FROM invites").fetchall()
    assert all(len(digest) == 64 and alice_secret not in digest for _, digest in stored)
    raw = (study.directory / DATABASE).read_bytes()
    assert alice_secret.encode() not in raw and bob_secret.encode() not in raw

    app = create_app(study, typed_names=False)  # as beyond loopback
    alice, bob = joined(app, alice_secret), joined(app, bob_secret)
    token, stage = token_and_stage(alice.post("/a/alice/begin").text)
    fields = {"token": token, "stage": stage, "answer": "sun", "client_ms": "900"}
    assert post_answer(alice, "alice", fields).status_code == 303
    assert alice.get("/", follow_redirects=False).headers["location"] == "/a/alice"

    # Bob's machine cannot read or answer Alice's items, and Alice cannot answer as Bob.
    assert bob.get("/a/alice").status_code == 403
    assert post_answer(bob, "alice", {**fields, "answer": "moon"}).status_code == 403
    bob_token, bob_stage = token_and_stage(bob.post("/a/bob/begin").text)
    assert post_answer(alice, "bob", {"token": bob_token, "stage": bob_stage}).status_code == 403

    # A forged secret: the link, and the cookie set by hand.
    stranger = TestClient(app, base_url=BASE)
    forged = stranger.get("/join/" + "x" * 43)
    assert forged.status_code == 403 and "not valid" in forged.text
    assert "set-cookie" not in forged.headers
    # The first character changed (every one of its 6 bits counts; the last character of a
    # 43-character token carries 2 padding bits, so changing it may leave the same bytes).
    forged_secret = ("B" if bob_secret[0] == "A" else "A") + bob_secret[1:]
    stranger.cookies.set(f"lexbench_{study.id}", forged_secret)
    assert stranger.get("/a/bob").status_code == 403
    assert post_answer(stranger, "bob", {"token": bob_token, "stage": bob_stage}).status_code == 403

    # Beyond loopback a typed name is no way in, for a new name or an invited one.
    for name in ("eve", "alice"):
        assert stranger.post("/start", data={"name": name}, headers=SAME_ORIGIN).status_code == 403
    assert stranger.get("/a/eve").status_code == 403
    assert "invitation" in stranger.get("/").text
    assert written(study) == [("alice", "sun")]
    assert Study(study.directory).annotators() == ["alice", "bob"]

    # Inviting again replaces the secret: the old link stops working.
    study.invite("alice")
    assert TestClient(app, base_url=BASE).get(f"/join/{alice_secret}").status_code == 403
    assert alice.get("/a/alice").status_code == 403


def test_typed_names_remain_for_the_local_case_but_not_for_invited_names(study):
    study.invite("alice")
    client = TestClient(create_app(study), base_url=BASE)
    begun = client.post("/start", data={"name": "carol"}, headers=SAME_ORIGIN)
    assert begun.status_code == 200 and "carol" in begun.text  # followed to /a/carol
    refused = client.post("/start", data={"name": "alice"}, headers=SAME_ORIGIN)
    assert refused.status_code == 403 and "invite link" in refused.text
    assert client.get("/a/alice").status_code == 403


def test_foreign_host_names_are_refused_dns_rebinding(study):
    app = create_app(study, hosts=["study.lab"])
    client = TestClient(app, base_url=BASE)
    rebound = client.get("/a/ann", headers={"Host": "attacker.example:8765"})
    assert rebound.status_code == 421 and 'name="token"' not in rebound.text
    assert "attacker.example" in rebound.text
    assert client.get("/", headers={"Host": ""}).status_code == 421
    for host in ("study.lab:8765", "STUDY.LAB", "localhost:8765", "[::1]:8765", "10.1.2.3"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host
    assert host_name("[::1]:8765") == "::1" and host_name("::1") == "::1"
    assert written(study) == []


def test_cross_origin_writes_are_refused(study):
    client = TestClient(create_app(study), base_url=BASE)
    token, stage = token_and_stage(client.post("/a/ann/begin").text)
    fields = {"token": token, "stage": stage, "answer": "sun"}
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:9999"},  # another port is another origin
        {"Origin": BASE, "Sec-Fetch-Site": "cross-site"},
    ):
        for path, data in (("/a/ann/answer", fields), ("/start", {"name": "mallory"})):
            refused = client.post(path, data=data, headers=headers, follow_redirects=False)
            assert refused.status_code == 403, (path, headers)
            assert "may not change this study" in refused.text
    assert written(study) == [] and Study(study.directory).annotators() == ["ann"]
    assert post_answer(client, "ann", fields).status_code == 303  # the page's own post
    assert written(study) == [("ann", "sun")]


@pytest.mark.parametrize("client_ms", ["inf", "1e400", "-inf", "nan", "NaN", "12ms"])
def test_a_bad_client_timer_is_a_400_page_not_a_traceback(study, client_ms):
    client = TestClient(create_app(study), base_url=BASE, raise_server_exceptions=False)
    token, stage = token_and_stage(client.post("/a/ann/begin").text)
    fields = {"token": token, "stage": stage, "answer": "sun", "client_ms": client_ms}
    refused = post_answer(client, "ann", fields)
    assert refused.status_code == 400 and "client_ms" in refused.text
    assert written(study) == []


def test_malformed_and_oversized_forms_are_refused(study):
    client = TestClient(create_app(study), base_url=BASE, raise_server_exceptions=False)
    token, stage = token_and_stage(client.post("/a/ann/begin").text)
    url = "/a/ann/answer"
    form = {**SAME_ORIGIN, "Content-Type": "application/x-www-form-urlencoded"}
    cases = {
        b"token=" + token.encode() + b"&stage=" + stage.encode() + b"&answer=%FF%FE": 400,
        b"token=" + token.encode() + b"&token=x&stage=" + stage.encode(): 400,
        b"answer=sun": 400,
        b"token=" + token.encode() + b"&stage=" + stage.encode() + b"&answer=" + b"a" * 20_000: 413,
    }
    for body, status in cases.items():
        refused = client.post(url, content=body, headers=form, follow_redirects=False)
        assert refused.status_code == status, (body[:60], refused.text[:200])
    huge_name = client.post("/start", content=b"name=" + b"n" * 20_000, headers=form)
    assert huge_name.status_code == 413
    assert written(study) == [] and Study(study.directory).annotators() == ["ann"]


# ------------------------------------------------------------------------------ real server


@pytest.fixture
def live_server(study):
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    from lexbench.human.app import server_options

    config = uvicorn.Config(create_app(study), **server_options("127.0.0.1", port, "error"))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start in 30 s"
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(timeout=30)


def read_all(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    parts = []
    while part := connection.recv(4096):
        parts.append(part)
    return b"".join(parts)


def test_a_huge_chunked_body_is_refused_while_it_streams(study, live_server):
    """A client announcing nothing and sending 1 KB chunks: the 413 comes back after about
    16 KB, and the test stops sending at 20 KB (a 400 MB body would never be read whole)."""
    with socket.create_connection(("127.0.0.1", live_server), timeout=10) as connection:
        connection.sendall(
            b"POST /a/ann/answer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"a" * 1024
        sent = 0
        try:
            while sent < 20 * 1024:
                connection.sendall(b"400\r\n" + chunk + b"\r\n")
                sent += len(chunk)
                # Stop once the answer is there, as a browser does: bytes sent after the
                # server closed would make its kernel reset the connection, dropping the 413.
                if select.select([connection], [], [], 0.01)[0]:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may close before we stop
        reply = read_all(connection)  # a server waiting for the whole body would time out
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b"16384 bytes" in reply
    # The server is unharmed and answers the next request.
    with socket.create_connection(("127.0.0.1", live_server), timeout=10) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert read_all(connection).startswith(b"HTTP/1.1 200")
    with socket.create_connection(("127.0.0.1", live_server), timeout=10) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n")
        assert read_all(connection).startswith(b"HTTP/1.1 421")
    assert written(study) == []


# ------------------------------------------------------------------------------ command line


@pytest.mark.parametrize("port", ["99999", "-1", "0", "http"])
def test_a_bad_port_is_refused_at_parse_time_and_creates_nothing(tmp_path, capsys, port):
    folder = tmp_path / "study"
    with pytest.raises(SystemExit) as stop:
        main(["human", "serve", "scan", "--study", str(folder), "--sample", "2", "--port", port])
    assert stop.value.code == 2
    assert "an integer from 1 to 65535" in capsys.readouterr().err
    assert not folder.exists()


@pytest.mark.parametrize(
    "option", [["--host", "http://0.0.0.0"], ["--host", "1.2.3.4:80"], ["--allow-host", "a:1"]]
)
def test_bad_host_options_are_refused_at_parse_time(tmp_path, capsys, option):
    folder = tmp_path / "study"
    with pytest.raises(SystemExit) as stop:
        main(["human", "serve", "scan", "--study", str(folder), *option])
    assert stop.value.code == 2 and option[1] in capsys.readouterr().err
    assert not folder.exists()


def test_invite_prints_a_link_whose_secret_only_the_hash_of_is_stored(study, capsys):
    assert main(["human", "invite", str(study.directory), "dana", "--url", "http://lab:8000/"]) == 0
    out, err = capsys.readouterr()
    link = out.strip()
    assert link.startswith("http://lab:8000/join/") and "dana" in err
    secret = link.rpartition("/")[2]
    assert study.invitee(secret) == "dana" and study.invitee(secret + "x") is None
    with pytest.raises(SystemExit):
        main(["human", "invite", str(study.directory), "dana", "--url", "ftp://lab"])


def test_a_port_in_use_is_reported_before_a_study_is_created(tmp_path, capsys):
    folder = tmp_path / "study"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        status = main(["human", "serve", "scan", "--study", str(folder), "--port", port])
    assert status == 1 and f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err
    assert not folder.exists()


def test_binding_beyond_loopback_warns_and_turns_typed_names_off(study, monkeypatch, capsys):
    import uvicorn

    from lexbench.human.app import is_loopback, serve, served_names

    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.5", "study.lab"))
    names = served_names("0.0.0.0", ["study.lab"])
    assert "study.lab" in names and socket.gethostname().lower() in names
    assert served_names("127.0.0.1") == ["127.0.0.1"]
    started = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: started.append((app, options)))
    serve(study, host="0.0.0.0", port=8123, allow_hosts=["study.lab"])
    err = capsys.readouterr().err
    assert "warning: serving on 0.0.0.0" in err and "lexbench human invite" in err
    [(app, options)] = started
    assert options["host"] == "0.0.0.0" and options["port"] == 8123
    client = TestClient(app, base_url="http://study.lab:8123")
    assert client.post("/start", data={"name": "eve"}).status_code == 403
    serve(study, port=8124)  # loopback: quiet, typed names on
    assert "warning" not in capsys.readouterr().err
    local = TestClient(started[1][0], base_url="http://127.0.0.1:8124")
    headers = {"Origin": "http://127.0.0.1:8124"}
    assert local.post("/start", data={"name": "eve"}, headers=headers).status_code == 200


def test_behind_a_proxy_only_invited_annotators_answer_unless_signup_is_opened(
    study, monkeypatch, capsys
):
    """Bound to loopback but reachable through a proxy's name (`--allow-host`): typed names
    are off, the start page says to open the invite link; `--open-signup` turns them on,
    with a warning."""
    import uvicorn

    from lexbench.human.app import serve

    started = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: started.append(app))
    proxied = {"Origin": "https://study.example.org", "Host": "study.example.org"}
    serve(study, port=8125, allow_hosts=["study.example.org"])
    client = TestClient(started[0], base_url=BASE)
    assert "invitation" in client.get("/", headers={"Host": "study.example.org"}).text
    refused = client.post("/start", data={"name": "stranger"}, headers=proxied)
    assert refused.status_code == 403
    assert client.post("/a/stranger/begin", headers=proxied).status_code == 403
    assert Study(study.directory).annotators() == [] and written(study) == []
    assert "warning" not in capsys.readouterr().err

    serve(study, port=8125, allow_hosts=["study.example.org"], open_signup=True)
    assert "--open-signup: anyone who reaches this study" in capsys.readouterr().err
    opened = TestClient(started[1], base_url=BASE)
    page = opened.post("/start", data={"name": "stranger"}, headers=proxied)
    assert page.status_code == 200 and 'name="token"' in page.text


def test_the_command_line_opens_signup_only_when_asked(tmp_path, monkeypatch, capsys):
    import uvicorn

    from lexbench.benchmarks.scan.benchmark import load_scan

    build_study(tmp_path / "s", "scan", load_scan(), sample=2).close()
    proxied = {"Origin": "https://study.example.org", "Host": "study.example.org"}
    statuses = []

    def run(app, **options):  # the study is open while the server runs: ask then
        client = TestClient(app, base_url=BASE)
        statuses.append(client.post("/start", data={"name": "x"}, headers=proxied).status_code)

    monkeypatch.setattr(uvicorn, "run", run)
    with socket.socket() as probe:  # a free port: the command checks it can listen there
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    serve = ["human", "serve", "scan", "--study", str(tmp_path / "s"), "--port", port]
    serve += ["--sample", "2"]
    assert main([*serve, "--allow-host", "study.example.org"]) == 0
    assert "typed names are off" in capsys.readouterr().out
    assert main([*serve, "--allow-host", "study.example.org", "--open-signup"]) == 0
    captured = capsys.readouterr()
    assert "typed names are on" in captured.out and "warning: --open-signup" in captured.err
    assert statuses == [403, 200]


def test_a_get_changes_nothing(study):
    """`GET /a/NAME` (an <img> on another site) neither creates an annotator nor starts the
    clock; the POST that does is origin-checked."""
    client = TestClient(create_app(study), base_url=BASE)
    page = client.get("/a/ann")
    assert page.status_code == 200 and 'action="/a/ann/begin"' in page.text
    assert 'name="token"' not in page.text
    assert Study(study.directory).annotators() == []
    assert study._db.execute("SELECT COUNT(*) FROM views").fetchone()[0] == 0
    refused = client.post("/a/ann/begin", headers={"Origin": "http://evil.example"})
    assert refused.status_code == 403 and Study(study.directory).annotators() == []

    begun = client.post("/a/ann/begin", headers=SAME_ORIGIN)
    assert begun.status_code == 200 and 'name="token"' in begun.text
    [(first_shown, times)] = study._db.execute("SELECT first_shown, times FROM views").fetchall()
    for _ in range(3):  # reloads read only
        assert client.get("/a/ann").text == begun.text
    assert study._db.execute("SELECT first_shown, times FROM views").fetchall() == [
        (first_shown, times)
    ]
    token, stage = token_and_stage(begun.text)
    after = post_answer(client, "ann", {"token": token, "stage": stage, "answer": "sun"})
    assert after.status_code == 303
    # The answer served the next step: its clock started with the POST, and the page shows it.
    assert study._db.execute("SELECT COUNT(*) FROM views").fetchone()[0] == 2
    assert token_and_stage(client.get("/a/ann").text)[0] != token


def test_two_origin_or_host_headers_are_refused(study):
    client = TestClient(create_app(study), base_url=BASE)
    token, stage = token_and_stage(client.post("/a/ann/begin").text)
    body = f"token={token}&stage={stage}&answer=sun".encode()
    for first, second in ((BASE, "http://evil.example"), ("http://evil.example", BASE)):
        refused = client.post(
            "/a/ann/answer",
            content=body,
            headers=[
                ("content-type", "application/x-www-form-urlencoded"),
                ("origin", first),
                ("origin", second),
            ],
        )
        assert refused.status_code == 403 and "more than one origin" in refused.text
    twice = client.get("/", headers=[("host", "127.0.0.1:8765"), ("host", "evil.example")])
    assert twice.status_code == 421
    assert written(study) == []


def exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        return read_all(connection)


def test_the_real_server_refuses_two_hosts_and_anything_after_the_port(study, live_server):
    """Through uvicorn itself, raw bytes on a socket: two Host headers were uvicorn's 400
    (h11 refuses them before the guard sees the request), and a Host with a word or a path
    after the port passed the Host check."""
    port = live_server
    good = f"127.0.0.1:{port}"
    twice = exchange(
        port,
        f"GET /a/ann HTTP/1.1\r\nHost: {good}\r\nHost: evil.example\r\n"
        "Connection: close\r\n\r\n".encode(),
    )
    assert twice.startswith(b"HTTP/1.1 421"), twice[:200]
    assert b"more than one Host header" in twice and b'name="token"' not in twice
    for host in (f"{good} evil", f"{good}/evil", f"{good}:80", f"user@{good}", f"{good}?x"):
        reply = exchange(
            port, f"GET /a/ann HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        )
        assert reply.startswith(b"HTTP/1.1 421"), (host, reply[:200])
        assert b'name="token"' not in reply
    for host in (good, "127.0.0.1", "localhost:1", f"[::1]:{port}"):
        reply = exchange(
            port, f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        )
        assert reply.startswith(b"HTTP/1.1 200"), (host, reply[:200])
    # Any other malformed request is still h11's 400, and the server answers the next one.
    assert exchange(port, b"GET / HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400")
    assert exchange(
        port, f"GET /healthz HTTP/1.1\r\nHost: {good}\r\nConnection: close\r\n\r\n".encode()
    ).startswith(b"HTTP/1.1 200")
    assert written(study) == []


def test_names_compare_case_insensitively(study):
    study.invite("bob")
    client = TestClient(create_app(study), base_url=BASE)
    for typed in ("Bob", "BOB", " bob"):
        refused = client.post("/start", data={"name": typed}, headers=SAME_ORIGIN)
        assert refused.status_code == 403 and "invite link" in refused.text, typed
        assert client.post(f"/a/{typed.strip()}/begin", headers=SAME_ORIGIN).status_code == 403
    # A typed (not invited) name keeps one spelling: CAROL resumes carol.
    client.post("/start", data={"name": "carol"}, headers=SAME_ORIGIN)
    resumed = client.post("/start", data={"name": "CAROL"}, follow_redirects=False)
    assert resumed.headers["location"] == "/a/carol"
    assert client.get("/a/Carol").status_code == 403
    assert Study(study.directory).annotators() == ["carol"] and written(study) == []
    assert study.spelled("BOB") == "bob" and study.invite("Bob") and study.invited() == {"bob"}
