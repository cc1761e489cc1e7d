"""Commands every registered benchmark has without writing any: `lexbench run NAME` and
`lexbench export NAME` for a benchmark that brings no such command of its own, and
`lexbench list`.

    lexbench run hypernyms --model smollm2-135m --limit 20 --option seed=1
    lexbench export hypernyms --format lm-eval -o hypernyms-task
    lexbench export hypernyms --format inspect -o hypernyms-inspect
    lexbench list

The generic `run` takes the model and run options every benchmark takes, `--limit N` (the
benchmark's `limit_option`), `--data PATH` and `--option KEY=VALUE` for any other builder
option (VALUE read as JSON when it parses, else as a string).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from lexbench.commands.common import (
    add_limit_argument,
    add_model_arguments,
    add_run_arguments,
    model_options,
    run_and_report,
    run_options,
    terminal_text,
)


def parse_option(text: str) -> tuple[str, Any]:
    """`key=value` -> ("key", value), the value read as JSON when it parses (`k=3`,
    `k=true`, `k=["a","b"]`), else kept as a string (`k=hyponym`)."""
    key, sep, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a name, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _generic_run(args: argparse.Namespace) -> int:
    from lexbench import api, plugins
    from lexbench.commands.builder_options import option_errors

    spec = plugins.benchmark(args.benchmark)
    options = _benchmark_options(args, spec)
    with option_errors(spec.name, dict(args.option or [])):  # --option nosuch=1: one line
        run_and_report(
            args,
            lambda cache: api.run(
                spec.name,
                args.model,
                model_options=model_options(args),
                cache=cache,
                use_cache=cache is not None,
                **run_options(args),
                **options,
            ),
        )
    return 0


def register_generic_run(cli: Any, spec: Any) -> None:
    """`lexbench run NAME` for the benchmark `spec`."""
    parser = cli.benchmark_command(
        "run", spec.name, f"evaluate a model on {spec.description}", _generic_run
    )
    _add_benchmark_options(parser, spec)
    add_model_arguments(parser, default_model=spec.default_model)
    add_run_arguments(parser)


def _benchmark_options(args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    options: dict[str, Any] = dict(args.option or [])
    if args.limit is not None:
        if spec.limit_option is None:
            raise ValueError(f"{spec.name} takes no --limit")
        options[spec.limit_option] = args.limit
    if args.data is not None:
        if spec.data_option is None:
            raise ValueError(f"{spec.name} reads no data files; it takes no --data")
        options[spec.data_option] = args.data
    return options


def _add_benchmark_options(parser: argparse.ArgumentParser, spec: Any) -> None:
    group = parser.add_argument_group("benchmark")
    if spec.limit_option is not None:
        add_limit_argument(group, "stratum the benchmark defines")
    else:
        parser.set_defaults(limit=None)
    group.add_argument("--data", type=Path, default=None, help="a data file or folder")
    group.add_argument(
        "--option",
        type=parse_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other option of the benchmark's builder (VALUE as JSON when "
        "it parses); repeatable",
    )


def _generic_export(args: argparse.Namespace) -> int:
    from lexbench import plugins
    from lexbench.export.command import export

    spec = plugins.benchmark(args.benchmark)
    print(export(spec.name, _benchmark_options(args, spec), args.format, args.output))
    return 0


def register_generic_export(cli: Any, spec: Any) -> None:
    """`lexbench export NAME` for the benchmark `spec`."""
    parser = cli.benchmark_command(
        "export", spec.name, f"export {spec.description} to other tools' formats", _generic_export
    )
    from lexbench.export.command import FORMAT_HELP, FORMATS

    parser.add_argument("--format", choices=FORMATS, required=True, help=FORMAT_HELP)
    parser.add_argument("-o", "--output", required=True, type=Path, help="output folder")
    _add_benchmark_options(parser, spec)


def _list(args: argparse.Namespace) -> int:
    from lexbench import api, plugins

    lines = ["Benchmarks:"]
    for spec in api.benchmarks():
        suite = " (in run all)" if spec.suite is not None else ""
        lines.append(f"  {spec.name:<12} {spec.description}{suite}  [{spec.source}]")
    lines.append("")
    lines.append("Model backends (MODEL spec prefix):")
    for kind, backend in sorted(plugins.backends().items()):
        lines.append(f"  {kind + ':':<18} {backend.module}  [{backend.source}]")
    from lexbench.models.registry import ALIASES

    lines.append("  aliases: " + ", ".join(f"{a} = {s}" for a, s in ALIASES.items()))
    from lexbench.models.providers import PROVIDERS

    lines.append("  hosted providers (openai backend; docs/models.md):")
    lines.extend(
        f"    {p.prefix + ':':<16} {p.base_url}  key in ${p.key_env}" for p in PROVIDERS.values()
    )
    broken = plugins.broken()
    if broken:
        lines.append("")
        lines.append("Not loaded:")
        lines.extend(f"  {b.name} ({b.source}): {b.reason}" for b in broken)
    print(terminal_text("\n".join(lines)))
    return 0


def register(cli: Any) -> None:
    cli.command(
        "list",
        "every benchmark and model backend lexbench can use, and where each "
        "comes from (built in, an installed plugin, an --include path)",
        _list,
    )
