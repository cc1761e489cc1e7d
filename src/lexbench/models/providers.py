"""Hosted OpenAI-compatible providers by spec prefix: `groq:MODEL` is `openai:MODEL` with the
provider's base URL, the environment variable that holds its key, and the endpoint its
models answer (`--base-url`, `--api-key-env` and `--api` still win when given).

Each provider's base URL can be pointed elsewhere through the environment
(`LEXBENCH_<PREFIX>_BASE_URL`, e.g. `LEXBENCH_GROQ_BASE_URL`; for `openai:` the OpenAI
SDK's own `OPENAI_BASE_URL` too): a proxy, a mirror, or the tests' fake server.

    >>> provider_options("groq", {})["base_url"]                       # doctest: +SKIP
    'https://api.groq.com/openai/v1'
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


def provider_options(prefix: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The openai backend's options for `prefix`: the provider's defaults (its URL as the
    environment may override it), under the options the user gave."""
    provider = PROVIDERS[prefix]
    overrides = [provider.url_env] + (["OPENAI_BASE_URL"] if prefix == "openai" else [])
    url = next((os.environ[v] for v in overrides if os.environ.get(v)), provider.base_url)
    defaults = {"base_url": url, "api_key_env": provider.key_env, "api": provider.api}
    return {**defaults, **{k: v for k, v in given.items() if v is not None}}


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
