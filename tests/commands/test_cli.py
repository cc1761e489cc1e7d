"""Bad input on the command line: one clear line naming the problem, exit status 2."""

import pytest

from lexbench.cli import main


@pytest.mark.parametrize(
    "argv,message",
    [
        (["run", "lambda", "--model", "foo:bar", "--limit", "1"], "unknown backend 'foo'"),
        (
            ["run", "lambda", "--model", "hf:/nonexistent/model", "--limit", "1", "--no-cache"],
            "no model at /nonexistent/model",
        ),
        # A server model that is never contacted: the default packaged model would take 45 s
        # to de-quantise into the temporary cache before the missing file is noticed.
        (
            [
                "run",
                "lambda",
                "--items",
                "/nonexistent/items.jsonl",
                "--no-cache",
                "--model",
                "openai:fake-model",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ],
            "No such file",
        ),
        # Checked before the model loads (the packaged model takes a minute to unpack when new).
        (
            ["run", "lambda", "--items", "/nonexistent/items.jsonl", "--no-cache"],
            "No such file or folder (items): /nonexistent/items.jsonl",
        ),
        (
            ["generate", "lambda", "--relations", "troponym", "-o", "/tmp/never-written.jsonl"],
            "unknown relation(s) ['troponym']",
        ),
        (["rescore", "/nonexistent/run"], "is not a lexbench run folder"),
    ],
)
def test_bad_input_is_one_clear_line(argv, message, capsys, tiny_wordnet_env):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_argument_errors_come_from_argparse(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["run", "lambda", "--limit", "0"])
    assert stop.value.code == 2
    assert "must be an integer from 1" in capsys.readouterr().err


def test_every_benchmark_command_is_registered(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    listing = capsys.readouterr().out
    for name in ("lambda", "setlexsem", "scan", "google", "bats", "ekar"):
        assert name in listing
