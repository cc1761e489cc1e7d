"""`lexbench doctor`: each check against real pieces of this machine and the fake server."""

from __future__ import annotations

import socket

from fake_openai_server import FakeOpenAIServer
from lexbench.cli import main
from lexbench.commands.doctor import (
    Check,
    check_gpu,
    check_packaged_model,
    check_packages,
    check_server,
    check_wordnet,
    format_checks,
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_wordnet_found_here_and_a_bad_directory_explains_itself(tiny_wordnet_env, tmp_path):
    found = check_wordnet()
    assert found.ok and found.detail.startswith(str(tiny_wordnet_env))
    bad = check_wordnet(str(tmp_path))
    assert not bad.ok and bad.required
    assert "apt-get install wordnet-base" in bad.fix and "missing" in bad.fix


def test_packaged_model_and_packages():
    model = check_packaged_model()
    assert model.ok and model.detail.endswith("MiB)")
    packages = {c.name: c for c in check_packages()}
    assert packages["package httpx"].ok
    for check in packages.values():
        assert check.ok or check.fix.startswith("pip install")


def test_gpu_check_says_what_it_found_and_how_to_get_one():
    gpu = check_gpu()
    assert gpu.detail and not gpu.required
    assert gpu.ok or "CUDA build of torch" in gpu.fix


def test_server_reachable_lists_its_models():
    with FakeOpenAIServer(model="served-model", lifetime=30) as server:
        check = check_server(server.url)
    assert check.ok
    assert "served-model" in check.detail and f"--base-url {server.url}" in check.detail


def test_server_missing_says_how_to_start_one():
    check = check_server(f"http://127.0.0.1:{free_port()}/v1", timeout=2)
    assert not check.ok and check.required
    assert "llama_cpp.server --model" in check.fix and "vllm serve" in check.fix


def test_server_refusing_the_key_names_the_variable_not_the_key(monkeypatch):
    monkeypatch.setenv("DOCTOR_KEY", "sk-doctor-wrong-key")
    with FakeOpenAIServer(require_key="sk-right", lifetime=30) as server:
        check = check_server(server.url, api_key_env="DOCTOR_KEY")
        wrong_path = check_server(server.url[:-3], api_key_env="NO_SUCH_VARIABLE_SET")
    assert not check.ok and "refused the key (HTTP 401)" in check.detail
    assert "$DOCTOR_KEY set" in check.detail and "$DOCTOR_KEY" in check.fix
    assert "sk-doctor-wrong-key" not in check.detail + check.fix
    assert not wrong_path.ok and "$NO_SUCH_VARIABLE_SET not set" in wrong_path.detail


def test_server_at_a_wrong_path_suggests_v1():
    with FakeOpenAIServer(lifetime=30) as server:
        check = check_server(server.url[:-3] + "/api")
    assert not check.ok and "HTTP 404" in check.detail and "/v1" in check.fix


def test_format_marks_required_and_optional_and_shows_fixes():
    text = format_checks(
        [
            Check("a", True, "here"),
            Check("b", False, "gone", "do X\nthen Y"),
            Check("c", False, "gone", "do Z", required=True),
        ],
        base_url_given=False,
    )
    assert "[     ok] a" in text and "[missing] b" in text and "[MISSING] c" in text
    assert "how to get it: do X" in text and "then Y" in text
    assert "no --base-url given" in text


def test_command_exit_status(capsys, tiny_wordnet_env):
    with FakeOpenAIServer(lifetime=30) as server:
        assert main(["doctor", "--base-url", server.url]) == 0
    out = capsys.readouterr().out
    assert "WordNet 3.0" in out and "fake-model" in out
    assert main(["doctor", "--base-url", f"http://127.0.0.1:{free_port()}/v1"]) == 1
    assert "how to get it" in capsys.readouterr().out
