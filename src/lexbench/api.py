"""The Python API: the same operations as the `lexbench` commands, for any registered
benchmark (`lexbench.plugins`) and any model spec.

    >>> from lexbench import api                                        # doctest: +SKIP
    >>> run = api.run("lambda", "smollm2-135m", limit=50)               # doctest: +SKIP
    >>> run.results["overall"]["accuracy"]                               # doctest: +SKIP
    >>> [spec.name for spec in benchmarks()][:4]
    ['lambda', 'scan', 'google', 'bats']
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexbench import plugins
from lexbench.benchmarks.base import BenchmarkSpec
from lexbench.models.base import Model
from lexbench.run.cache import ResponseCache, response_cache
from lexbench.run.cells import cell_options, open_run_model
from lexbench.run.evaluate import Evaluation, evaluate
from lexbench.wordings import PAPER, apply_variant, one_variant

__all__ = ["benchmarks", "run"]


def benchmarks() -> list[BenchmarkSpec]:
    """Every registered benchmark (built-in and plugins), in suite order, then by name."""
    return sorted(
        plugins.benchmarks(),
        key=lambda s: (s.suite is None, s.suite.order if s.suite else 0, s.name),
    )


def run(
    benchmark: str,
    model: str | Model | None = None,
    *,
    model_options: Mapping[str, Any] | None = None,
    out: str | Path = "runs",
    cache: ResponseCache | str | Path | None = None,
    use_cache: bool = True,
    progress: bool = True,
    chat: bool | None = None,
    **options: Any,
) -> Evaluation:
    """Evaluate `model` on `benchmark` and write its run folder: the one entry point.

    Opens the model (a spec such as "smollm2-135m", "openai:NAME", "glove"; or a `Model`
    you opened, which is left open; None: the benchmark's default model) and the response
    cache, builds the benchmark with `options` (those of its builder), runs it, and closes
    what it opened. `chat=None` takes the benchmark's measured default for chat models.

    `prompt_variant=NAME` asks in another of the benchmark's wordings (default: the
    paper's; see `lexbench.wordings`). Within a run plan (`lexbench.robustness.plan`) the
    plan's cell in force (`lexbench.run.cells`) changes the options: its seed, its wording.

    >>> run = api.run("scan", "smollm2-135m", limit=20)                 # doctest: +SKIP
    >>> run = api.run("google", "glove", limit_per_relation=50)          # doctest: +SKIP
    """
    chosen = plugins.benchmark(benchmark)
    options = cell_options(chosen, options)  # a plan's cell: another seed or wording
    variant = str(options.pop("prompt_variant", None) or PAPER)
    one_variant(chosen, variant)  # a misspelt wording fails before the model loads
    check_input_paths(options)
    if chosen.build_progress:
        options.setdefault("progress", progress)  # building shows a bar of its own
    spec_or_model = chosen.default_model if model is None else model
    with (
        open_run_model(spec_or_model, model_options) as backend,
        response_cache(cache, use_cache) as store,
    ):
        chosen.check(backend)
        built = apply_variant(chosen, chosen.build(backend, **options), variant)
        use_chat = chat_for(chosen, backend, chat)
        recorded = {k: v for k, v in options.items() if k != "progress"}
        return evaluate(
            built,
            backend,
            out_root=out,
            cache=store,
            progress=progress,
            chat=use_chat,
            run_options={"benchmark": benchmark, **recorded},
            source=chosen.source,
        )


def chat_for(spec: BenchmarkSpec, backend: Model, chat: bool | None) -> bool:
    """Whether the run wraps its prompts in the model's chat format, said plainly when a
    model without a chat template (a base model such as gemma3-270m) changes the answer:
    asked for (`--chat-template`) it is refused in one line; the benchmark's default for
    chat models gives way to plain completion prompts, with a line on stderr."""
    wanted = spec.chat_default if chat is None else chat
    if not wanted or backend.has_chat_template() or not backend.supports("generate"):
        return bool(wanted and backend.has_chat_template())
    if chat:
        raise ValueError(
            f"{backend.name} has no chat template (a base model?), so --chat-template cannot "
            f"wrap {spec.name}'s prompts; run it with --no-chat-template (plain completion "
            f"prompts)"
        )
    print(
        f"lexbench: {backend.name} has no chat template: {spec.name} sends "
        f"its prompts as plain text (completion prompts; config.json records chat: false)",
        file=sys.stderr,
    )
    return False


def check_input_paths(options: Mapping[str, Any]) -> None:
    """Fail before any model is loaded when an input file or folder the options name is
    missing (loading a model can take a minute; a typo should not)."""
    for name in ("items", "data"):
        value = options.get(name)
        if isinstance(value, (str, Path)) and not Path(value).expanduser().exists():
            raise FileNotFoundError(f"No such file or folder ({name}): {value}")
