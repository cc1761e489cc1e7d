"""A server that echoes the credentials in its answers (issue 43, item 6): the API key, the
Basic `user:password` of a --base-url and its base64 token come back in completions, chat
replies, top log-probability tokens and error bodies. None of them may reach any file a run
or a report writes (the run folder, the cache with its write-ahead log, report.html) or the
terminal: each is masked before the answer is stored. Masking changes nothing where no
secret is: the same runs against a server that echoes nothing give the same cache keys,
run folders and samples whether or not credentials were given."""

from __future__ import annotations

import base64
import hashlib
import sqlite3
from pathlib import Path

import pytest

from fake_openai_server import FakeOpenAIServer, default_reply
from lexbench.cli import main

# Each 6-character stretch of every secret holds a capital letter or a letter past `f`, so
# no hash, digit run or lower-case word written by a run can hold one by chance.
KEY = "sk-LIVE-7Qz9Wx4Rt8Yp2Nm6KbZ"
USER, PASSWORD = "probeUSR", "Pw9Xq7Zr5TkQ"
USER_PASS = f"{USER}:{PASSWORD}"
TOKEN = base64.b64encode(USER_PASS.encode()).decode()
KEY_ENV = "LEXBENCH_PROBE_SECRET_KEY"


def pieces(secret: str, size: int = 6) -> set[str]:
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


SECRET_PIECES = sorted(pieces(KEY) | pieces(PASSWORD) | pieces(TOKEN) | {USER_PASS})


def echo_of(prompt: str, headers: dict[str, str]) -> str | None:
    """What the server repeats in its answer to `prompt`: the credential of the
    Authorization header it was sent, the key, user:password, or nothing."""
    sent = headers.get("authorization", "").split(" ")[-1]
    choice = hashlib.sha256(prompt.encode()).digest()[0] % 4
    return [sent, KEY, USER_PASS, None][choice]


def echoing_reply(prompt: str, headers: dict[str, str]) -> str:
    echo = echo_of(prompt, headers)
    return default_reply(prompt) if echo is None else f" {echo}{default_reply(prompt)}"


def failing_now_and_then(prompt: str, attempt: int) -> str | None:
    """A third of the prompts fail for good, with the secrets in their error bodies."""
    return "500" if hashlib.sha256(prompt.encode()).digest()[1] % 3 == 0 else None


def commands(url: str, root: Path, key: bool = True) -> dict[str, list[str]]:
    common = [
        "--model",
        "openai:fake-model",
        "--base-url",
        url,
        *(["--api-key-env", KEY_ENV] if key else []),
        "--max-retries",
        "0",
        "--cache",
        str(root / "cache.sqlite"),
        "--out",
        str(root / "runs"),
        "--no-progress",
    ]
    scan = ["run", "scan", "--limit", "1", "--types", "science"]
    return {
        "lambda": ["run", "lambda", "--per-relation", "4", *common],
        "scan": [*scan, *common],
        "setlexsem": ["run", "setlexsem", "--grid", "small", "--limit", "1", *common],
        # Chat replies and chat's top log-probabilities (another run folder each).
        "lambda-chat": ["run", "lambda", "--per-relation", "2", "--api", "chat", *common],
        "scan-chat": [*scan, "--api", "chat", *common],
    }


def every_written_byte(root: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def leaks(text: bytes) -> list[str]:
    return [piece for piece in SECRET_PIECES if piece.encode() in text]


def test_the_secrets_have_no_stretch_a_run_could_write_by_chance():
    for piece in SECRET_PIECES:
        assert any(c.isupper() or "g" <= c <= "z" for c in piece), piece


@pytest.fixture
def key_set(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)


def test_echoed_credentials_reach_no_file_and_no_stream(tmp_path, wordnet_index, capsys, key_set):
    with FakeOpenAIServer(
        reply_to=echoing_reply,
        faults=failing_now_and_then,
        error_message=f"refused {KEY} for {USER_PASS}",
        echo_headers=True,
        lifetime=300,
    ) as server:
        url = server.url.replace("http://", f"http://{USER}:{PASSWORD}@")
        statuses = {name: main(argv) for name, argv in commands(url, tmp_path).items()}
        authorizations = {h.get("authorization") for h in server.headers_seen}
    assert authorizations == {f"Basic {TOKEN}"}  # the URL's credentials, sent as HTTP Basic
    assert set(statuses.values()) == {3}, (statuses, capsys.readouterr().err)  # some failed
    folders = sorted(p.parent for p in (tmp_path / "runs").rglob("results.json"))
    assert len(folders) == 5
    report = tmp_path / "report"
    assert main(["report", *map(str, folders), "-o", str(report), "--resamples", "10"]) == 0
    assert (report / "report.html").is_file()
    printed = capsys.readouterr()
    samples = "".join((folder / "samples.jsonl").read_text() for folder in folders)
    # The server did echo: masked answers and masked errors are in the samples.
    assert samples.count("***") > 20 and "refused ***" in samples
    assert "Basic ***" in samples  # the error body's echoed Authorization header
    written = every_written_byte(tmp_path)
    assert any(p.name == "cache.sqlite" for p in written) and report / "report.html" in written
    found = {str(path): leaks(data) for path, data in written.items() if leaks(data)}
    found.update({stream: leaks(text.encode()) for stream, text in printed._asdict().items()})
    assert not {where: what for where, what in found.items() if what}
    # The warning says so once per run, in our words.
    assert printed.err.count("answers held the API key or the --base-url credentials") == 5


def cache_keys(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return sorted(row[0] for row in db.execute("SELECT key FROM responses"))


def test_masking_changes_nothing_where_the_answers_hold_no_secret(
    tmp_path, wordnet_index, capsys, monkeypatch
):
    """The same five runs against a server that echoes nothing, once without credentials
    and once with a key and a --base-url user:password: the same cache keys, the same run
    folders (their hashes), byte-identical samples."""
    outcomes = []
    with FakeOpenAIServer(lifetime=300) as server:
        for credentials in (False, True):
            root = tmp_path / ("with" if credentials else "without")
            url = server.url
            if credentials:
                monkeypatch.setenv(KEY_ENV, KEY)
                url = url.replace("http://", f"http://{USER}:{PASSWORD}@")
            runs = commands(url, root, key=credentials)
            assert all(main(argv) == 0 for argv in runs.values())
            folders = sorted(p.parent for p in (root / "runs").rglob("results.json"))
            outcomes.append(
                (
                    cache_keys(root / "cache.sqlite"),
                    [f.relative_to(root / "runs") for f in folders],
                    [(f / "samples.jsonl").read_bytes() for f in folders],
                )
            )
    assert len(outcomes[0][1]) == 5
    assert outcomes[0] == outcomes[1]
    assert "answers held the API key" not in capsys.readouterr().err


def test_doctor_masks_credentials_a_server_echoes_in_its_model_list(key_set):
    from lexbench.commands.doctor import check_server

    with FakeOpenAIServer(lifetime=30, model=f"m-{KEY}-{USER_PASS}-{TOKEN}") as server:
        url = server.url.replace("http://", f"http://{USER}:{PASSWORD}@")
        check = check_server(url, KEY_ENV)
    shown = f"{check.name} {check.detail} {check.fix}"
    assert check.ok and "serves m-***" in shown, shown
    assert leaks(shown.encode()) == []
