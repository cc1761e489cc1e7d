"""Every numeric option has a range argparse checks at parse time (issues 29.5, 30.5, 30.7)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexbench.cli import build_parser, main
from lexbench.commands.numbers import PORT, RANGED, SEED, TIMEOUT, FloatRange, IntRange
from lexbench.models.openai.retry import parse_retry_after, wait_text

# Argument types that are not numbers (they parse strings into something else).
# Text options with their own checks (a host, a study link): not numbers.
NOT_NUMBERS = {
    "str",
    "Path",
    "parse_option",
    "data_override",
    "host_address",
    "host_name_option",
    "study_url",
    "server_url",
    "variant_name",
    "system_prompt",
}


def _walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))
        else:
            yield path, action


def test_every_numeric_option_of_the_parser_tree_has_a_range() -> None:
    unranged = []
    numeric = 0
    for path, action in _walk(build_parser()):
        kind = action.type
        if kind is None or isinstance(kind, RANGED):
            numeric += isinstance(kind, RANGED)
            continue
        name = getattr(kind, "__name__", repr(kind))
        if kind in (int, float) or name not in NOT_NUMBERS:
            unranged.append(f"{' '.join(path)} {'/'.join(action.option_strings)} ({name})")
    assert not unranged, "numeric options without a range: " + "; ".join(unranged)
    assert numeric > 150  # the walk saw the whole tree, not one parser


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["run", "lambda", "--timeout", "nan"], "argument --timeout: must be a number from 0"),
        (
            ["run", "lambda", "--temperature", "nan"],
            "--temperature: must be a number from 0 to 100",
        ),
        (["run", "lambda", "--temperature", "inf"], "got 'inf'"),
        (["run", "setlexsem", "--temperature", "-1"], "--temperature: must be a number"),
        (["run", "scan", "--requests-per-minute", "nan"], "--requests-per-minute: must be"),
        (["run", "ekar", "--max-retry-wait", "1e400"], "--max-retry-wait: must be"),
        (
            ["generate", "lambda", "-o", "x.jsonl", "--per-relation", "99999999999999"],
            "--per-relation: must be an integer from 1 to 100000",
        ),
        (["run", "lambda", "--limit", "-3"], "--limit: must be an integer from 1"),
        (["run", "lambda", "--limit", "0"], "--limit: must be an integer from 1"),
        (["run", "google", "--shots", "-1"], "--shots: must be an integer from 0"),
        (["run", "scan", "--batch-size", "0"], "--batch-size: must be an integer from 1"),
        (
            ["human", "serve", "lambda", "--study", "S", "--port", "99999"],
            "--port: must be an integer from 1 to 65535",
        ),
        (["human", "serve", "lambda", "--study", "S", "--port", "-1"], "--port: must be"),
        (["report", "--seed", "-5"], "--seed: must be an integer from 0 to 4294967295"),
        (["run", "lambda", "--sets", "100000000"], "--sets: must be an integer from 1 to 1000,"),
        (["contamination", "lambda", "--sets", "5000"], "--sets: must be an integer from 1"),
        (["run", "lambda", "--samples", "1000000"], "--samples: must be an integer from 1 to"),
        (["compare", "--resamples", "2147483647"], "--resamples: must be an integer from 1"),
        (["run", "setlexsem", "--max-new-tokens", "99999999"], "--max-new-tokens: must be"),
        (["run", "lambda", "--timeout", "-inf"], "--timeout: must be a number from 0"),
        (["finetune", "scan-bats", "--model", "m", "--eval-every", "0"], "'epoch' or an integer"),
        (["finetune", "scan-bats", "--model", "m", "--lora-dropout", "1"], "(exclusive)"),
    ],
)
def test_an_out_of_range_number_exits_2_naming_the_range_and_makes_nothing(
    argv: list[str],
    fragment: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--out", str(tmp_path / "runs")] if argv[0] == "run" else argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no run folder, no study folder


#: Options whose count multiplies the work (runs, requests, resamples, tokens): each bounded
#: far below a C int, so no value is taken that could only run for ever.
MULTIPLIERS = {
    "sets": 1_000,
    "samples": 1_000,
    "resamples": 10_000_000,
    "paper_resamples": 10_000_000,
    "unpaired_resamples": 10_000_000,
    "max_new_tokens": 131_072,
    "reasoning_max_new_tokens": 131_072,
}


def test_options_that_multiply_the_work_are_bounded() -> None:
    seen = set()
    for path, action in _walk(build_parser()):
        if action.dest in MULTIPLIERS and action.option_strings:
            assert isinstance(action.type, IntRange), (path, action.dest)
            assert action.type.high <= MULTIPLIERS[action.dest], (path, action.dest)
            seen.add(action.dest)
    assert seen == set(MULTIPLIERS)


def test_ranges_take_what_they_allow() -> None:
    assert SEED("0") == 0 and SEED("4294967295") == 2**32 - 1
    assert PORT("0") == 0 and PORT("65535") == 65535
    assert TIMEOUT("0.5") == 0.5
    assert IntRange(-2, 2)(" -2 ") == -2
    assert FloatRange(0.0, 1.0, high_open=True)("0.99") == 0.99
    for bad in ("0", "-1", "nan", "inf", "-inf", "1e400", "ten", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="must be a number from 0"):
            TIMEOUT(bad)
    with pytest.raises(argparse.ArgumentTypeError, match=r"got '1\.5'"):
        IntRange(0, 3)("1.5")


def test_a_huge_retry_after_is_capped_and_read_as_over_a_year() -> None:
    seconds = parse_retry_after("1e308")
    assert seconds is not None and seconds <= 366 * 86_400
    assert wait_text(seconds) == "over a year"
    assert wait_text(parse_retry_after("inf") or 0.0) == "over a year"
    assert wait_text(90.4) == "90 s"
