"""Every command x every option, given hostile values: no traceback, and every exit status
is one docs/guarantees.md documents (its table is read here, so the docs and the code
cannot drift apart).

The commands and their options are read from the argument parser itself, so a new command
or option is fuzzed without being listed. Each command line is the command's required
arguments (filled with values refused before any work: a path under a file, a model
backend that does not exist) plus one option given a wrong type, an empty value, an unknown
key, a folder where a file belongs or a file where a folder belongs. `lexbench.cli.main`
runs in-process; nothing loads a model (a watchdog fails any command line that runs longer
than WATCHDOG_S), and the response cache and `~/.cache/lexbench` are the test's own.
About 6,100 command lines in 5 s (pytest, 2 shared cores at load 6, `uptime`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import lexbench.cli
from lexbench.cli import main

GUARANTEES = Path(__file__).parents[2] / "docs" / "guarantees.md"
WATCHDOG_S = 20
MODEL_REFUSED = "nosuch:model"  # an unknown backend: refused before anything loads
LONG_NAME = "a" * 5_000  # longer than any file name (255 bytes) or Hub id (96 characters)
# Values a numeric option's range must name in its refusal ("must be a number from 0 ..."),
# never taken for an option ("-inf": "expected one argument").
OUT_OF_RANGE = frozenset({"nan", "-inf", "1e400", "99999999999999999999"})


def documented_statuses() -> dict[int, str]:
    """status -> meaning, from the exit-status table of docs/guarantees.md."""
    text = GUARANTEES.read_text(encoding="utf-8")
    table = text[text.index("**Exit statuses.**") :].split("\n\n")[1]
    rows = re.findall(r"^\|\s*(\d+)\s*\|\s*(.+?)\s*\|\s*$", table, flags=re.MULTILINE)
    return {int(status): meaning for status, meaning in rows}


def bad_input_status() -> int:
    [status] = [
        s for s, meaning in documented_statuses().items() if meaning.startswith("bad input")
    ]
    return status


def test_the_documented_table_is_the_one_main_uses():
    statuses = documented_statuses()
    assert set(statuses) == {0, 1, 2, 3, 4, 130}
    assert bad_input_status() == 2 and "interrupted" in statuses[130]
    # main's own summary names the same statuses.
    documented_in_code = {int(s) for s in re.findall(r"\b(\d+) ", main.__doc__ or "")}
    assert set(statuses) <= documented_in_code | {0}


# ------------------------------------------------------------------------------ the commands


def leaf_commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        yield path, parser
    for action in subparsers:
        for name, child in sorted(action.choices.items()):
            yield from leaf_commands(child, (*path, name))


class Places:
    """Files and folders the hostile values point at."""

    def __init__(self, root: Path):
        self.folder = root / "a-folder"
        self.folder.mkdir()
        self.file = root / "a-file.jsonl"
        self.file.write_text("")
        self.binary = root / "x.bin"
        self.binary.write_bytes(b"\xff\xfe\x00binary")

    @property
    def under_file(self) -> str:
        return str(self.file / "inside")


def is_flag(action: argparse.Action) -> bool:
    return action.nargs == 0


def hostile_values(action: argparse.Action, places: Places) -> list[str]:
    """Values refused by type, or pointing where the option cannot take them. A path option
    whose help says file or folder gets only the wrong kind (the right kind would run)."""
    from lexbench.commands.arguments import parse_option
    from lexbench.commands.paths import FILE, FOLDER, path_kind

    if action.type is parse_option:
        return ["noequals", "nosuch=1", 'seed="x"', "=1", ""]
    kind = path_kind(action)
    if kind == FILE:
        return ["", str(places.folder), places.under_file]
    if kind == FOLDER:
        return [str(places.file), str(places.binary), places.under_file]
    values = ["", "nosuch=1"]
    if action.choices is not None:
        return [*values, "NOSUCH"]
    if action.type is Path:
        return [
            *values,
            str(places.folder),
            str(places.file),
            str(places.binary),
            places.under_file,
        ]
    if action.type is not None and action.type is not str:  # numbers, ports, names
        return [*values, "abc", "nan", "-1", "-inf", "1e400", "99999999999999999999"]
    return [*values, str(places.folder), "\x1b[2J", LONG_NAME]


def poison(action: argparse.Action, places: Places) -> str | None:
    """A value that stops the command before any work (so another option's hostile value
    is all that is tested), or None: a model backend that does not exist, a path under a
    file (never downloaded instead), a study sample and an annotator name that are not ones."""
    if action.dest == "model":
        return MODEL_REFUSED
    if action.type is Path:  # a path given also keeps a command from downloading its default
        return places.under_file
    return {"sample": "NOSUCH", "annotators": "bad name!"}.get(action.dest)


def base_argv(
    path: tuple[str, ...], parser: argparse.ArgumentParser, places: Places, skip: str
) -> list[str]:
    """The command with its required arguments and every poison but the option `skip`."""
    argv = list(path)
    for action in parser._actions:
        if action.dest in (skip, "help") or is_flag(action):
            continue
        value = poison(action, places)
        if value is None and (action.required or not action.option_strings):
            if action.choices is not None:
                value = sorted(action.choices)[0]
            elif action.type is Path:
                value = places.under_file
            else:
                value = "someone"
        if value is None:
            continue
        argv += [action.option_strings[-1], value] if action.option_strings else [value]
    return argv


def cases(places: Places) -> Iterator[tuple[list[str], str, bool]]:
    """(command line, what it tries, whether its refusal must name a numeric range)."""
    from lexbench.commands.numbers import RANGED

    parser = lexbench.cli.build_parser()
    for path, command in leaf_commands(parser):
        yield base_argv(path, command, places, skip=""), "(the required arguments only)", False
        for action in command._actions:
            if action.dest == "help" or not action.option_strings:
                continue
            name = action.option_strings[-1]
            base = base_argv(path, command, places, skip=action.dest)
            if is_flag(action):
                yield [*base, name], name, False
                continue
            for value in hostile_values(action, places):
                what = f"{name} {value[:40]!r}"
                ranged = isinstance(action.type, RANGED) and value in OUT_OF_RANGE
                yield [*base, name, value], what, ranged
                yield [*base, f"{name}={value}"], what.replace(" ", "=", 1), ranged


class Watchdog(Exception):
    pass


@contextlib.contextmanager
def watchdog(seconds: int) -> Iterator[None]:
    def expire(*_: Any) -> None:
        raise Watchdog(f"ran over {seconds} s: it did work a refused input should not reach")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_main(argv: list[str]) -> tuple[int, str, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), watchdog(WATCHDOG_S):
        try:
            status = main(argv)
        except SystemExit as exit:  # argparse's refusals
            status = exit.code if isinstance(exit.code, int) else 2
    return status, err.getvalue(), out.getvalue()


@pytest.fixture
def places(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # ./runs, ./studies: the test's own
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "lexbench-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # One parser for every command line (building it is most of a refused line's cost).
    monkeypatch.setattr(lexbench.cli, "build_parser", functools.cache(lexbench.cli.build_parser))
    return Places(tmp_path)


def test_every_option_of_every_command_refuses_hostile_values_in_one_line(places):
    documented = documented_statuses()
    bad_input = bad_input_status()
    # Offline, a download is refused by the environment (exit 1), and named in one line.
    environment = next(
        s for s, meaning in documented.items() if meaning.startswith("the environment")
    )
    problems: list[str] = []
    seen = 0
    for argv, what, ranged in cases(places):
        seen += 1
        try:
            status, err, out = run_main(argv)
        except Exception as error:  # the failure this test looks for
            problems.append(f"lexbench {' '.join(argv)}: {type(error).__name__}: {error}")
            continue
        shown = " ".join(repr(a) if len(a) < 80 else f"'{a[:20]}...'" for a in argv)
        line = f"lexbench {shown} [{what}] -> {status}"
        errors = _error_lines(err)
        if "Traceback" in err:
            problems.append(f"{line}: a traceback")
        elif "[Errno" in err or "usage:" in err:
            problems.append(f"{line}: a raw OS error or a usage block: {err[-300:]!r}")
        elif ranged and "must be" not in err:
            problems.append(f"{line}: the range is not named: {errors}")
        elif status not in documented:
            problems.append(f"{line}: exit status not in docs/guarantees.md")
        elif status not in (0, environment, bad_input):  # nothing ran: no 3, 4 or 130
            problems.append(f"{line}: {err.strip().splitlines()[-1:]}")
        elif status == environment and not err and out:
            continue  # `doctor`: its findings on stdout, exit 1 when one it needs is missing
        elif status != 0 and len(errors) != 1:
            problems.append(f"{line}: {len(errors)} error lines: {err[-300:]!r}")
    assert seen > 1000, seen  # the parser walk found the commands
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} of {seen})"


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if re.match(r"^\S*lexbench.*error: ", line)]
