"""State and secrets (issue 19, items 9, 11, 12, 14): the API key is masked before any text
is cut; credentials in --base-url connect but are written nowhere; a long Retry-After is a
failure said at once, a shorter one a wait said on stderr; an unknown bare model name fails
fast offline."""

from __future__ import annotations

import base64
import os
import threading
import time
from pathlib import Path

import pytest
from test_robust_output import lambda_command, only_run_folder

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import main
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.run.runner import execute
from lexbench.types import Decoding, Request

KEY = "sk-live-0123456789abcdefghijKLMNOP"


def requests(count: int = 2) -> list[Request]:
    return [
        Request(
            id=f"r{n}",
            kind="generate",
            prompt=f"question {n} :",
            decoding=Decoding(max_new_tokens=4),
        )
        for n in range(count)
    ]


def pieces(secret: str, size: int = 6) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def assert_no_piece(text: str, secret: str) -> None:
    leaked = [p for p in pieces(secret) if p in text]
    assert not leaked, f"{leaked[:3]} of the secret in {text!r}"


# ------------------------------------------------------------------------------ item 11


def test_mask_secrets_masks_every_long_piece_and_is_linear():
    from lexbench.models.secrets import mask_secrets

    text = f"a {KEY} b {KEY[:10]} c {KEY[-7:]} d {KEY[3:5]} e"
    masked = mask_secrets(text, [KEY])
    assert_no_piece(masked, KEY)
    assert masked.startswith("a *** b *** c *** d ") and masked.endswith(" e")
    assert mask_secrets("no secret here", [KEY]) == "no secret here"
    assert mask_secrets("short abc key", ["abc"]) == "short *** key"
    big = ("x" * 1_000_000) + KEY
    started = time.perf_counter()
    assert mask_secrets(big, [KEY]).endswith("x***")
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("offset", [275, 285, 292])
def test_an_echoed_key_across_the_cut_never_survives_in_an_error(tmp_cache, monkeypatch, offset):
    monkeypatch.setenv("LEXBENCH_ROBUST_KEY", KEY)
    message = "e" * offset + KEY + " was refused"
    with FakeOpenAIServer(faults=lambda p, a: "500", error_message=message, lifetime=30) as server:
        model = OpenAIModel(
            "fake-model",
            OpenAIOptions(base_url=server.url, api_key_env="LEXBENCH_ROBUST_KEY", max_retries=0),
        )
        responses, _ = execute(model, requests(1), cache=tmp_cache, progress=False)
    assert responses[0].error and "HTTP 500" in responses[0].error
    assert_no_piece(responses[0].error, KEY)


@pytest.mark.parametrize(
    "body",
    [
        # Not JSON: an 80-character excerpt, the key across its end.
        b'{"choices": [{"text": "' + b"m" * 40 + KEY.encode() + b'"}]  trailing junk',
        # JSON of the wrong shape: a 120-character excerpt, the key across its end.
        b'{"choices": "' + b"m" * 90 + KEY.encode() + b'"}',
    ],
    ids=["not-json", "wrong-shape"],
)
def test_an_echoed_key_in_a_malformed_body_never_survives(tmp_cache, monkeypatch, body):
    monkeypatch.setenv("LEXBENCH_ROBUST_KEY", KEY)
    with FakeOpenAIServer(
        faults=lambda p, a: "malformed", malformed_body=body, lifetime=30
    ) as server:
        model = OpenAIModel(
            "fake-model",
            OpenAIOptions(base_url=server.url, api_key_env="LEXBENCH_ROBUST_KEY", max_retries=0),
        )
        responses, _ = execute(model, requests(1), cache=tmp_cache, progress=False)
    assert responses[0].error and "malformed" in responses[0].error
    assert_no_piece(responses[0].error, KEY)


# ------------------------------------------------------------------------------ item 12

PASSWORD = "PW-secret-9876-zz"


def written_files(*roots: Path) -> list[Path]:
    return [
        p for root in roots for p in ([root] if root.is_file() else root.rglob("*")) if p.is_file()
    ]


def test_url_credentials_connect_but_are_written_nowhere(tmp_path, wordnet_index, capsys):
    with FakeOpenAIServer(lifetime=60) as server:
        url = server.url.replace("http://", f"http://lexuser:{PASSWORD}@")
        assert main(lambda_command(url, tmp_path)) == 0
        sent = dict(server.headers_seen[-1])
    expected = base64.b64encode(f"lexuser:{PASSWORD}".encode()).decode()
    assert sent["authorization"] == f"Basic {expected}"  # used for the connection
    printed = capsys.readouterr()
    assert PASSWORD not in printed.out + printed.err
    for path in written_files(tmp_path):
        assert PASSWORD.encode() not in path.read_bytes(), path
    config = (only_run_folder(tmp_path / "runs") / "config.json").read_text()
    assert f'"base_url": "{server.url}"' in config  # the URL, without them


def test_url_credentials_stay_out_of_failures_and_the_rerun_command(
    tmp_path, wordnet_index, capsys
):
    with FakeOpenAIServer(
        faults=lambda p, a: "500", error_message=f"echo {PASSWORD}", lifetime=60
    ) as server:
        url = server.url.replace("http://", f"http://lexuser:{PASSWORD}@")
        assert main(lambda_command(url, tmp_path)) == 4
    err = capsys.readouterr().err
    assert "lexbench run lambda" in err and server.url in err
    assert_no_piece(err, PASSWORD)
    for path in written_files(tmp_path):
        assert PASSWORD.encode() not in path.read_bytes(), path


def test_doctor_never_prints_url_credentials(capsys):
    from lexbench.commands.doctor import check_server

    with FakeOpenAIServer(lifetime=30, model="model\x1b[2J") as server:
        check = check_server(server.url.replace("http://", f"http://lexuser:{PASSWORD}@"))
    shown = f"{check.name} {check.detail} {check.fix}"
    assert check.ok and PASSWORD not in shown and "\x1b" not in shown


# ------------------------------------------------------------------------------ item 9


def test_a_long_retry_after_fails_those_requests_at_once(tmp_cache):
    with FakeOpenAIServer(faults=lambda p, a: "429", retry_after="3600", lifetime=60) as server:
        model = OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, max_retries=3))
        done: list = []
        worker = threading.Thread(
            target=lambda: done.append(
                execute(model, requests(3), cache=tmp_cache, progress=False)
            ),
            daemon=True,
        )
        started = time.monotonic()
        worker.start()
        worker.join(30)
    assert done, "the run waited for the server's hour-long Retry-After"
    responses, stats = done[0]
    assert time.monotonic() - started < 30
    assert stats.failed == 3
    for response in responses:
        assert "asked to wait 3600 s" in response.error and "--max-retry-wait 120" in response.error


def test_a_shorter_retry_after_is_waited_for_and_said(tmp_cache, capsys):
    with FakeOpenAIServer(
        faults=lambda p, a: "429" if a == 1 else None, retry_after="5", lifetime=60
    ) as server:
        model = OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, max_retry_wait=10))
        _responses, stats = execute(model, requests(2), cache=tmp_cache, progress=False)
    assert stats.failed == 0 and stats.retries == 2
    err = capsys.readouterr().err
    assert err.count("asked to wait (Retry-After, HTTP 429); waiting 5 s") == 1, err
    assert "--max-retry-wait 10 s caps this" in err


def test_max_retry_wait_is_a_command_line_option(tmp_path, wordnet_index, capsys):
    with FakeOpenAIServer(faults=lambda p, a: "429", retry_after="2", lifetime=60) as server:
        status = main(
            lambda_command(server.url, tmp_path, "--max-retries", "5", "--max-retry-wait", "1")
        )
    assert status == 4
    assert "asked to wait 2 s" in capsys.readouterr().err


# ------------------------------------------------------------------------------ item 14


@pytest.mark.parametrize("offline", [False, True])
def test_an_unknown_bare_model_name_fails_fast(
    tmp_path, wordnet_index, capsys, monkeypatch, offline
):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    if offline:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    else:
        from lexbench.models import hf_files

        monkeypatch.setattr(hf_files, "hub_reachable", lambda timeout=3.0: False)
    started = time.monotonic()
    status = main(
        [
            "run",
            "lambda",
            "--model",
            "nosuchmodel",
            "--per-relation",
            "1",
            "--no-cache",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2, err
    assert time.monotonic() - started < 20
    assert "no model 'nosuchmodel'" in err and "Traceback" not in err
    assert ("HF_HUB_OFFLINE is set" if offline else "cannot be reached") in err


def test_an_unknown_bare_model_name_fails_fast_here_as_it_is(
    tmp_path, wordnet_index, capsys, monkeypatch
):
    """This machine is offline: the real reachability check must answer in seconds."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    from lexbench.models.hf_files import hub_reachable

    if hub_reachable():
        pytest.skip("the Hub is reachable from here")
    started = time.monotonic()
    assert (
        main(
            [
                "run",
                "lambda",
                "--model",
                "nosuchmodel",
                "--per-relation",
                "1",
                "--no-cache",
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
        == 2
    )
    assert time.monotonic() - started < 20
    assert os.environ.get("HF_HUB_OFFLINE") is None


# ------------------------------------------------------------------------------ issue 37.3


def test_an_echoed_authorization_header_reaches_no_file_and_no_stream(
    tmp_path, wordnet_index, capsys
):
    """A server that repeats the Authorization header in its errors: neither user:PASS, nor
    the password, nor its Basic token may reach samples.jsonl, report.html, results,
    config.json, the cache or stderr."""
    user, password = "lexuser", "PASS"
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    # Every second prompt fails (with the echo); 429s are retried once, then answered.
    faults = {0: "500", 1: None}

    def fault(prompt: str, attempt: int) -> str | None:
        return faults[len(prompt) % 2] or ("429" if attempt == 1 else None)

    with FakeOpenAIServer(faults=fault, echo_headers=True, retry_after="0", lifetime=60) as server:
        url = server.url.replace("http://", f"http://{user}:{password}@")
        status = main(lambda_command(url, tmp_path, "--max-retries", "1"))
        echoed = [h.get("authorization") for h in server.headers_seen]
    assert status == 3 and f"Basic {token}" in echoed  # the server did echo it
    folder = only_run_folder(tmp_path / "runs")
    assert main(["report", str(folder), "-o", str(tmp_path / "report"), "--resamples", "10"]) == 0
    printed = capsys.readouterr()
    assert {"samples.jsonl", "results.json", "config.json"} <= {p.name for p in folder.iterdir()}
    assert (tmp_path / "report" / "report.html").is_file()
    samples = (folder / "samples.jsonl").read_text()
    assert "you sent Authorization: Basic ***" in samples + printed.err
    texts = [printed.out, printed.err] + [
        p.read_bytes().decode("utf-8", "replace") for p in written_files(tmp_path)
    ]
    for text in texts:
        assert password not in text and f"{user}:" not in text
        assert_no_piece(text, token)
