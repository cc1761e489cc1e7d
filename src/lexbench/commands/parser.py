"""The parser of the `lexbench` command, built from every command module and every
registered benchmark.

Top-level verbs group sub-commands by benchmark (`lexbench generate lambda`, `lexbench run
scan`); flat commands stand alone (`lexbench rescore RUN`). Each module in
`lexbench.commands` with a `register(cli)` function adds its own commands, and every
registered benchmark (`lexbench.plugins`) adds its own through `BenchmarkSpec.commands`;
a benchmark without them gets `lexbench run NAME` and `lexbench export NAME` with the
generic options (`lexbench.commands.run`, `lexbench.commands.generic`).

`--include PATH` (anywhere on the line, repeatable) loads benchmarks from a module or
package folder that is not installed before the parser is built, so their commands exist.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import lexbench.commands
from lexbench import __version__
from lexbench.terminal import terminal_text


class UserError(Exception):
    """A mistake in the command's input: printed as one clear line, exit status 2."""


VERBS = {
    "generate": "generate a benchmark's items deterministically",
    "run": "evaluate a model on a benchmark and write a run folder",
    "human": "human baselines: serve a study in the browser, turn answers into run folders, CSV sheets",
    "export": "export a benchmark to other tools' formats",
    "finetune": "fine-tune a model as the papers did (SCAN's BATS training, E-KAR's baselines)",
}


# What argparse must read as a value, not as an option: every number a numeric option's
# range check should see and name ("-1", "-.5", "-1e400", "-inf", "-nan"); argparse's own
# pattern takes "-inf" for an unknown option and says "expected one argument".
NEGATIVE_NUMBER = re.compile(r"^-(\d|\.\d|inf(inity)?$|nan$)", re.IGNORECASE)


class Parser(argparse.ArgumentParser):
    """argparse's parser, refusing in one line: the problem and where help is, without the
    usage block (7-27 lines on a benchmark's run command) before it. Its sub-command
    parsers are of this class too (argparse makes them with the parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:  # named by the command they were given to, not by `lexbench`
            chosen(self, parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {terminal_text(message)} (see {self.prog} --help)\n")


def chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The (sub-)command parser the parsed `args` went down to: `lexbench run lambda`'s."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            child = action.choices.get(getattr(args, action.dest, None) or "")
            if child is not None:
                return chosen(child, args)
    return parser


class CommandLine:
    """The parser being built; command modules add to it through these two methods."""

    def __init__(self) -> None:
        self.parser = Parser(
            prog="lexbench",
            description="Generate, run, score and analyse lexical and analogical reasoning "
            "benchmarks (LAMBDA, SCAN, SetLexSem, E-KAR, Google, BATS).",
        )
        self.parser.add_argument("--version", action="version", version=f"lexbench {__version__}")
        self.parser.add_argument(
            "--include",
            action="append",
            default=[],
            metavar="PATH",
            help="also load the benchmarks of this module file or package "
            "folder (its BENCHMARKS or BENCHMARK); several as A,B or repeated, "
            "accepted anywhere on the line; $LEXBENCH_INCLUDE too",
        )
        self._top = self.parser.add_subparsers(dest="command", metavar="COMMAND")
        self._verbs: dict[str, argparse._SubParsersAction[Parser]] = {}
        # `run NAME` parsers waiting for the shared arguments, added after the benchmark's
        # own so that its options come first in its help.
        self._run_parsers: list[tuple[argparse.ArgumentParser, str]] = []

    def benchmark_command(
        self,
        verb: str,
        benchmark: str,
        help: str,
        handler: Callable[[argparse.Namespace], int] | None,
    ) -> argparse.ArgumentParser:
        """`lexbench VERB BENCHMARK ...`, e.g. verb "run", benchmark "lambda"."""
        if verb not in self._verbs:
            verb_parser = self._top.add_parser(verb, help=VERBS.get(verb, verb))
            self._verbs[verb] = verb_parser.add_subparsers(
                dest="benchmark", metavar="BENCHMARK", required=True
            )
        parser = self._verbs[verb].add_parser(
            benchmark, help=help, description=help.replace("%%", "%")
        )
        if verb == "export" and handler is not None:  # every export can check itself
            from lexbench.commands.export import add_verify_argument, with_verify

            add_verify_argument(parser)
            handler = with_verify(handler)
        parser.set_defaults(handler=handler)
        return parser

    def run_command(self, benchmark: str, help: str, command: Any) -> argparse.ArgumentParser:
        """`lexbench run BENCHMARK ...`: the benchmark adds its own arguments to the parser
        returned; the model, run and plan arguments every run shares are added after them,
        and `command` (a `lexbench.commands.requests.RunCommand`) turns its own into
        builder options. One handler runs them all (`lexbench.commands.run`)."""
        from lexbench import plugins
        from lexbench.commands.run import run_benchmark

        parser = self.benchmark_command("run", benchmark, help, run_benchmark)
        parser.set_defaults(run_command=command, run_parser=parser)
        self._run_parsers.append((parser, plugins.benchmark(benchmark).default_model))
        return parser

    def add_shared_run_arguments(self) -> None:
        """The model, run and plan arguments of every `run BENCHMARK` command."""
        from lexbench.commands.arguments import add_model_arguments, add_run_arguments

        for parser, default_model in self._run_parsers:
            add_model_arguments(parser, default_model=default_model)
            add_run_arguments(parser)
        self._run_parsers = []

    def command(
        self, name: str, help: str, handler: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        """A flat `lexbench NAME ...` command."""
        # argparse %-formats a help string but not a description: "95%%" would show doubled.
        parser = self._top.add_parser(name, help=help, description=help.replace("%%", "%"))
        parser.set_defaults(handler=handler)
        return parser

    def has(self, verb: str, benchmark: str) -> bool:
        """Whether `lexbench VERB BENCHMARK` exists already."""
        return verb in self._verbs and benchmark in self._verbs[verb].choices


def build_parser() -> argparse.ArgumentParser:
    from lexbench import plugins
    from lexbench.commands.generic import register_generic_export
    from lexbench.commands.run import register_generic_run

    cli = CommandLine()
    for module_info in sorted(
        pkgutil.iter_modules(lexbench.commands.__path__), key=lambda m: m.name
    ):
        module = importlib.import_module(f"lexbench.commands.{module_info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(cli)
    for spec in plugins.benchmarks():
        try:
            if spec.commands is not None:
                spec.commands(cli)
            if not cli.has("run", spec.name):
                register_generic_run(cli, spec)
            if not cli.has("export", spec.name):
                register_generic_export(cli, spec)
        except (argparse.ArgumentError, ValueError, ImportError, TypeError) as error:
            # A plugin's broken command line must not take the others down with it.
            print(
                f"lexbench: the commands of benchmark {spec.name!r} ({spec.source}) were not "
                f"added: {error}",
                file=sys.stderr,
            )
    cli.add_shared_run_arguments()
    from lexbench.commands.paths import mark_path_kinds

    mark_path_kinds(cli.parser)
    return cli.parser


def pop_includes(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the --include paths, the arguments without them): `--include P` and `--include=P`
    anywhere on the line."""
    paths: list[str] = []
    rest: list[str] = []
    items = list(argv)
    position = 0
    while position < len(items):
        argument = items[position]
        if argument == "--":
            rest.extend(items[position:])
            break
        if argument == "--include":
            if position + 1 >= len(items):
                raise UserError("--include needs a path")
            paths.extend(include_paths(items[position + 1]))
            position += 2
            continue
        if argument.startswith("--include="):
            paths.extend(include_paths(argument.split("=", 1)[1]))
        else:
            rest.append(argument)
        position += 1
    return paths, rest


def check_includes(paths: Sequence[str]) -> None:
    """Refuse (exit 2) an `--include` naming nothing importable: the user asked for its
    benchmarks, so going on without them would run something else than asked."""
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir() and not (path / "__init__.py").is_file():
            raise UserError(
                f"--include {raw}: a folder without __init__.py, where a module file "
                "(.py) or a package folder is expected"
            )
        if not path.exists():
            raise UserError(
                f"--include {raw}: no such file or folder (a module file or a package "
                "folder is expected)"
            )


def include_paths(value: str) -> list[str]:
    """One `--include` value: a path, or several separated by commas (as --model A,B takes
    several), unless the whole value is an existing path that holds a comma."""
    if "," not in value or Path(value).exists():
        return [value]
    return [part for part in value.split(",") if part]
