"""Resolve a model spec ("kind:name") to a backend, importing the backend lazily.

    smollm2-135m                  the embedded SmolLM2 (alias of hf:smollm2-135m)
    gemma3-270m                   the packaged Gemma 3 270M base (alias of hf:gemma3-270m)
    hf:PATH|HUB_ID|FILE.gguf      transformers causal LM
    openai:NAME                   an OpenAI-compatible server (--base-url; default OpenAI's)
    groq:NAME, together:NAME, ... a hosted provider by prefix (`lexbench.models.providers`)
    vectors:NAME|PATH             static word vectors (GloVe, word2vec, fastText)
    mlm:PATH|HUB_ID               a masked LM (BERT-style)

A backend is one module with a `load(name, options) -> Model` function, registered by an
entry point in the `lexbench.models` group (`lexbench.plugins`): lexbench's own backends
the same way as another package's. Options a backend does not take are an error, never
silently ignored.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from lexbench.models.base import Model
from lexbench.models.providers import PROVIDERS, missing_key, provider_options, url_and_origin

ALIASES: dict[str, str] = {
    "smollm2-135m": "hf:smollm2-135m",
    "smollm2": "hf:smollm2-135m",
    "gemma3-270m": "hf:gemma3-270m",
    "glove-6b-50d": "vectors:glove-6b-50d",
    "glove": "vectors:glove-6b-50d",
}
DEFAULT_MODEL = "smollm2-135m"


def backend_modules() -> dict[str, str]:
    """Each backend kind (the spec prefix) and the module that loads it."""
    from lexbench import plugins

    return {kind: backend.module for kind, backend in plugins.backends().items()}


def split_spec(spec: str) -> tuple[str, str]:
    """("hf", "gpt2") from "hf:gpt2"; aliases expanded; a bare path means hf."""
    spec = ALIASES.get(spec, spec)
    kind, sep, name = spec.partition(":")
    backends = backend_modules()
    if sep and kind in PROVIDERS and kind not in backends:
        if not name:
            raise ValueError(f"model spec {spec!r} names no model after '{kind}:'")
        return "openai", name
    if sep and kind in backends:
        if not name:
            raise ValueError(f"model spec {spec!r} names no model after '{kind}:'")
        return kind, name
    if sep and len(kind) > 1 and "/" not in kind:
        raise ValueError(
            f"unknown backend {kind!r} in {spec!r}; known: {', '.join(backends)}, the "
            f"hosted providers {', '.join(p for p in PROVIDERS if p not in backends)} "
            f"(or an alias: {', '.join(ALIASES)})"
        )
    return "hf", spec


def missing_key_of_spec(
    spec: str, base_url: str | None = None, api_key_env: str | None = None
) -> str | None:
    """The refusal of `providers.missing_key` for a model spec as typed (`together:NAME`,
    `openai:NAME`) with the command line's --base-url and --api-key-env, before anything
    loads; None for any other backend, or when the key is set."""
    kind, _name = split_spec(spec)
    prefix = ALIASES.get(spec, spec).partition(":")[0]
    if kind != "openai" or prefix not in PROVIDERS:
        return None
    url, _origin = url_and_origin(prefix, base_url)
    return missing_key(url, api_key_env or PROVIDERS[prefix].key_env)


def load_model(spec: str, options: Mapping[str, Any] | None = None) -> Model:
    """The backend for `spec`, with `options` (None values dropped) passed to it."""
    kind, name = split_spec(spec)
    module = importlib.import_module(backend_modules()[kind])
    clean = {k: v for k, v in (options or {}).items() if v is not None}
    prefix = ALIASES.get(spec, spec).partition(":")[0]
    if kind == "openai" and prefix in PROVIDERS:  # its URL, key variable and endpoint
        clean = provider_options(prefix, clean)
    return module.load(name, clean)


@contextmanager
def open_model(model: str | Model, options: Mapping[str, Any] | None = None) -> Iterator[Model]:
    """The one "model from a spec or an object" helper: a spec is loaded (with `options`) and
    closed on exit; a `Model` given by the caller is used as is and left open for them.

    >>> with open_model("glove", {"restrict": 1000}) as model:   # doctest: +SKIP
    ...     model.supports("analogy")
    True
    """
    if isinstance(model, Model):
        if options:
            raise ValueError(
                f"model options {sorted(options)} were given with an already "
                f"loaded model ({model.name}); pass them when loading it"
            )
        yield model
        return
    loaded = load_model(model, options)
    try:
        yield loaded
    finally:
        loaded.close()
