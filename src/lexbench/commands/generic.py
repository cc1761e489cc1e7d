"""Commands every registered benchmark has without writing any: `lexbench export NAME`
for a benchmark that brings no export of its own (its `run NAME` is
`lexbench.commands.run`'s), and `lexbench list`.

    lexbench export hypernyms --format lm-eval -o hypernyms-task
    lexbench export hypernyms --format inspect -o hypernyms-inspect
    lexbench list

The generic export takes `--limit N` (the benchmark's `limit_option`), `--data PATH` and
`--option KEY=VALUE` for any other builder option (VALUE read as JSON when it parses, else
as a string).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lexbench.commands.run import add_benchmark_arguments
from lexbench.terminal import terminal_text


def _benchmark_options(args: argparse.Namespace, spec: Any) -> dict[str, Any]:
    """The builder options of a generic export: `--option`s, `--limit` and `--data` under
    the names the benchmark gives them, as a run's are (`api.builder_options`)."""
    from lexbench.api import builder_options
    from lexbench.request import RunRequest

    request = RunRequest(
        spec.name, options=dict(args.option or []), limit=args.limit, data=args.data
    )
    return builder_options(spec, request)


def _generic_export(args: argparse.Namespace) -> int:
    from lexbench import plugins
    from lexbench.export.formats import export

    spec = plugins.benchmark(args.benchmark)
    print(export(spec.name, _benchmark_options(args, spec), args.format, args.output))
    return 0


def register_generic_export(cli: Any, spec: Any) -> None:
    """`lexbench export NAME` for the benchmark `spec`."""
    parser = cli.benchmark_command(
        "export", spec.name, f"export {spec.description} to other tools' formats", _generic_export
    )
    from lexbench.export.formats import FORMAT_HELP, FORMATS

    parser.add_argument("--format", choices=FORMATS, required=True, help=FORMAT_HELP)
    parser.add_argument("-o", "--output", required=True, type=Path, help="output folder")
    add_benchmark_arguments(parser, spec)


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
