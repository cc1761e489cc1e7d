"""Hosted OpenAI-compatible providers by spec prefix: `groq:MODEL` is `openai:MODEL` with the
provider's base URL, the environment variable that holds its key, and the endpoint its
models answer (`--base-url`, `--api-key-env` and `--api` still win when given).

Each provider's base URL can be pointed elsewhere through the environment
(`LEXBENCH_<PREFIX>_BASE_URL`, e.g. `LEXBENCH_GROQ_BASE_URL`; for `openai:` the OpenAI
SDK's own `OPENAI_BASE_URL` too): a proxy, a mirror, or the tests' fake server.

    >>> provider_options("groq", {})["base_url"]                       # doctest: +SKIP
    'https://api.groq.com/openai/v1'

Causes are named, not guessed at: a hosted provider's own URL with its key variable unset is
refused before any request (`missing_key`), naming the variable; a server the user named
(`--base-url`, or an override variable: a local vLLM, a proxy) needs no key. Where the URL
came from (the provider's default, which variable, or `--base-url`) travels with the options
(`base_url_from`), so a failed connection's hint names it. A provider's runs keep its prefix
in the model's readable name (`together:meta-llama/...`; `openai:` is the backend itself,
whose models keep their bare names), never in what is sent or in the fingerprint. (Runs
written before the prefix was kept show the bare name they recorded.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Provider:
    """One hosted provider: where it answers, the variable holding its key, its endpoint."""

    prefix: str
    base_url: str
    key_env: str
    api: str = "chat"
    note: str = ""

    @property
    def url_env(self) -> str:
        """The environment variable that points the provider elsewhere."""
        return f"LEXBENCH_{self.prefix.upper()}_BASE_URL"


PROVIDERS: dict[str, Provider] = {
    p.prefix: p
    for p in (
        Provider(
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            api="completions",
            note="chat models need --api chat",
        ),
        Provider("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
        Provider("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        Provider("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        Provider("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        Provider("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
        Provider("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
    )
}


#: `base_url_from` of a URL the user gave (the command line's option; the API's `base_url`).
GIVEN_URL = "--base-url"


def default_url_origin(prefix: str) -> str:
    """How a hint names a provider's default URL."""
    return f"{prefix}:'s default URL"


def url_and_origin(prefix: str, given_url: str | None = None) -> tuple[str, str]:
    """(the URL `prefix:` talks to, where it came from): `--base-url`, else the first
    override variable set (`$LEXBENCH_GROQ_BASE_URL`), else the provider's default."""
    if given_url:
        return given_url, GIVEN_URL
    provider = PROVIDERS[prefix]
    overrides = [provider.url_env] + (["OPENAI_BASE_URL"] if prefix == "openai" else [])
    for variable in overrides:
        if os.environ.get(variable):
            return os.environ[variable], f"${variable}"
    return provider.base_url, default_url_origin(prefix)


def provider_options(prefix: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The openai backend's options for `prefix`: the provider's defaults (its URL as the
    environment may override it), under the options the user gave; `provider` and
    `base_url_from` say whose model it is and where its URL came from."""
    provider = PROVIDERS[prefix]
    given = {k: v for k, v in given.items() if v is not None}
    url, origin = url_and_origin(prefix, given.get("base_url"))
    defaults = {
        "base_url": url,
        "base_url_from": origin,
        "api_key_env": provider.key_env,
        "api": provider.api,
        "provider": prefix,
    }
    return {**defaults, **given}


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        return (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return ""


def hosted_provider_at(url: str) -> Provider | None:
    """The hosted provider whose own service `url` is (by host name), or None: a server the
    user runs (vLLM, llama.cpp), a proxy or a mirror is none of them."""
    host = _host(url)
    return next((p for p in PROVIDERS.values() if host and host == _host(p.base_url)), None)


def missing_key(url: str, api_key_env: str) -> str | None:
    """The refusal when `url` is a hosted provider's own service and the variable meant to
    hold its key is unset or empty; None when the key is there or the server is the user's
    (it may need none). Said before any request: every request would fail with 401."""
    provider = hosted_provider_at(url)
    if provider is None or os.environ.get(api_key_env):
        return None
    return (
        f"the environment variable {api_key_env} is not set, and {_host(url)} "
        f"({provider.prefix}:) needs an API key: export {api_key_env}=YOUR_KEY before running "
        f"lexbench (or name another variable with --api-key-env; a server of your own, given "
        f"with --base-url, needs none)"
    )


def providers_markdown() -> str:
    """The table docs/models.md shows (and a test checks it matches)."""
    lines = [
        "| prefix | base URL | key variable | endpoint (--api) | URL override |",
        "|---|---|---|---|---|",
    ]
    for p in PROVIDERS.values():
        api = f"{p.api} ({p.note})" if p.note else p.api
        lines.append(f"| `{p.prefix}:` | {p.base_url} | `{p.key_env}` | {api} | `{p.url_env}` |")
    return "\n".join(lines)
