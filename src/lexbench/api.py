"""The Python API: the same operations as the `lexbench` commands, for any registered
benchmark (`lexbench.plugins`) and any model spec. One entry point, `run`, takes one
`RunRequest` (`lexbench.request`); plans of several runs are `lexbench.plan`'s.

    >>> from lexbench import api
    >>> from lexbench.request import RunRequest                         # doctest: +SKIP
    >>> run = api.run(RunRequest("lambda", model="smollm2-135m", limit=50))  # doctest: +SKIP
    >>> run = api.run("lambda", "smollm2-135m", limit=50)               # doctest: +SKIP
    >>> run.results["overall"]["accuracy"]                               # doctest: +SKIP
    >>> [spec.name for spec in api.benchmarks()][:4]
    ['lambda', 'scan', 'google', 'bats']
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from lexbench import plugins
from lexbench.contract import CHAT, BenchmarkSpec
from lexbench.models.base import Model
from lexbench.request import RunRequest, request_record
from lexbench.run.cache import ResponseCache, response_cache
from lexbench.run.evaluate import Evaluation, evaluate
from lexbench.wordings import PAPER, apply_variant, one_variant

__all__ = ["RunRequest", "benchmarks", "run"]


def benchmarks() -> list[BenchmarkSpec]:
    """Every registered benchmark (built-in and plugins), in suite order, then by name."""
    return sorted(
        plugins.benchmarks(),
        key=lambda s: (s.suite is None, s.suite.order if s.suite else 0, s.name),
    )


def run(
    request: RunRequest | str,
    model: str | Model | None = None,
    *,
    cache: ResponseCache | str | Path | None = None,
    pace: Callable[[], str] | None = None,
    **options: Any,
) -> Evaluation:
    """Run one `RunRequest` and write its run folder: the one entry point.

    Opens the request's model and response cache, builds the benchmark, runs it, and closes
    what it opened. An opened `model` (a `Model`) or `cache` (a `ResponseCache`) given here
    is used as is and left open: a plan opens each model once for all its cells. `pace`:
    what the progress line shows last, read at each redraw (a plan's cell i of N and the
    time the plan has left).

    The keyword form names the benchmark and the model and takes the builder's options as
    keywords, with `model_options=`, `out=`, `use_cache=`, `progress=`, `chat=`,
    `system_prompt=` and `prompt_variant=` (a wording; see `lexbench.wordings`):

    >>> run = api.run("scan", "smollm2-135m", limit=20)                 # doctest: +SKIP
    >>> run = api.run("google", "glove", limit_per_relation=50)          # doctest: +SKIP
    """
    if isinstance(request, str):
        request, model = keyword_request(request, model, cache, options)
    elif options:
        raise TypeError(f"api.run(request) takes no builder options, got {sorted(options)}")
    elif model is not None and not isinstance(model, Model):
        raise TypeError("api.run(request, model): the model must be an opened Model")
    opened = model if isinstance(model, Model) else None
    return _run(request, opened, cache if isinstance(cache, ResponseCache) else None, pace)


def keyword_request(
    benchmark: str, model: str | Model | None, cache: Any, options: Mapping[str, Any]
) -> tuple[RunRequest, Model | None]:
    """The request the keyword form of `run` describes, and the opened model it was given."""
    rest = dict(options)
    shared: dict[str, Any] = {
        "model_options": dict(rest.pop("model_options", None) or {}),
        "out": Path(rest.pop("out", "runs")),
        "use_cache": bool(rest.pop("use_cache", True)),
        "progress": bool(rest.pop("progress", True)),
        "chat": rest.pop("chat", None),
        "system_prompt": rest.pop("system_prompt", None),
        "wording": str(rest.pop("prompt_variant", None) or PAPER),
    }
    if isinstance(cache, (str, Path)):
        shared["cache"] = Path(cache)
    spec = model if isinstance(model, str) else None
    if isinstance(model, Model) and shared["model_options"]:
        raise ValueError(
            f"model options {sorted(shared['model_options'])} were given with an already "
            f"loaded model ({model.name}); pass them when loading it"
        )
    return RunRequest(benchmark, options=rest, model=spec, **shared), (
        model if isinstance(model, Model) else None
    )


def builder_options(spec: BenchmarkSpec, request: RunRequest) -> dict[str, Any]:
    """The options `spec.build` gets: the request's own, with the shared `limit`, `data`
    and item seed put under the names this benchmark gives them."""
    options = dict(request.options)
    if request.limit is not None:
        if spec.limit_option is None:
            raise ValueError(f"{spec.name} takes no --limit")
        options[spec.limit_option] = request.limit
    if request.data is not None:
        if spec.data_option is None:
            raise ValueError(f"{spec.name} reads no data files; it takes no --data")
        options[spec.data_option] = request.data
    if request.item_seed is not None:
        if spec.regenerate is None:
            raise ValueError(
                f"--sets draws fresh item sets, and {spec.name} reads fixed data; use "
                f"--prompt-variant all for its spread across wordings"
            )
        options = spec.regenerate.with_seed(options, request.item_seed)
    return options


def _run(
    request: RunRequest,
    model: Model | None,
    cache: ResponseCache | None,
    pace: Callable[[], str] | None = None,
) -> Evaluation:
    chosen = plugins.benchmark(request.benchmark)
    one_variant(chosen, request.wording)  # a misspelt wording fails before the model loads
    options = builder_options(chosen, request)
    check_input_paths(options)
    if chosen.build_progress:
        options.setdefault("progress", request.progress)  # building shows a bar of its own
    with (
        _model_of(chosen, request, model) as backend,
        response_cache(cache if cache is not None else request.cache, request.use_cache) as store,
    ):
        chosen.check(backend)
        refuse_unhonoured(chosen, options, backend, request)
        built = apply_variant(chosen, chosen.build(backend, **options), request.wording)
        use_chat = chat_for(chosen, backend, wants_chat(request))
        recorded = {k: v for k, v in options.items() if k != "progress"}
        return evaluate(
            built,
            backend,
            out_root=request.out,
            cache=store,
            progress=request.progress,
            chat=use_chat,
            system_prompt=request.system_prompt,
            run_options={"benchmark": request.benchmark, **recorded},
            request=request_record(request),
            source=chosen.source,
            pace=pace,
        )


@contextlib.contextmanager
def _model_of(spec: BenchmarkSpec, request: RunRequest, model: Model | None) -> Iterator[Model]:
    """The opened model given, or the request's model opened (and closed afterwards)."""
    from lexbench.models.registry import open_model

    if model is not None:
        yield model
        return
    with open_model(request.model or spec.default_model, request.model_options) as opened:
        yield opened


def refuse_unhonoured(
    spec: BenchmarkSpec, options: Mapping[str, Any], model: Model, request: RunRequest
) -> None:
    """Refuse, in one line, a shared option this benchmark declares it cannot honour
    (`BenchmarkSpec.cannot_honour`), before anything is built or sent."""
    if spec.cannot_honour is None:
        return
    reasons = spec.cannot_honour(options, model)
    if CHAT in reasons and (request.chat or request.system_prompt is not None):
        given = "--system-prompt" if request.system_prompt is not None else "--chat-template"
        raise ValueError(f"{given}: {reasons[CHAT]}; run it without {given}")


def wants_chat(request: RunRequest) -> bool | None:
    """Chat prompts as asked; a system prompt asks for them (it is the chat format's system
    turn), and is refused in one line with `--no-chat-template`."""
    if request.system_prompt is None:
        return request.chat
    if request.chat is False:
        raise ValueError(
            "--system-prompt is the chat format's system turn, and --no-chat-template sends "
            "plain prompts; drop one of them"
        )
    return True


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
            f"{backend.name} has no chat template (a base model?), so --chat-template (or "
            f"--system-prompt) cannot "
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
