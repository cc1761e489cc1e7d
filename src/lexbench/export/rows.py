"""Any registered benchmark as plain rows: each item's fields and the requests lexbench sends
for it, with a manifest that names the benchmark, its options and a content hash, so the
rows can be scored again by the benchmark's own scorer (`lexbench.export.lm_eval`).

The benchmark is built for a stand-in language model that answers text generation, ranking
and log-likelihood requests (it is asked nothing), so a builder that chooses its requests
by what the model answers chooses those of a language model.

    >>> exported = export_set("hypernyms", {"count": 20})        # doctest: +SKIP
    >>> exported.rows[0]["prompt"]                                 # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.types import Request, canonical_json

#: What the stand-in model the benchmark is built for answers.
LANGUAGE_MODEL_KINDS = ("generate", "rank", "loglikelihood")
EXPORT_MODEL_NAME = "export"


#: The export option (not a builder's) that chooses the prompt mode: `--option chat=false`.
CHAT_OPTION = "chat"


@dataclass(frozen=True)
class ExportedSet:
    benchmark: str
    options: dict[str, Any]
    items: list[Any]
    requests: list[list[Request]]
    rows: list[dict[str, Any]]
    manifest: dict[str, Any]

    @property
    def chat(self) -> bool:
        """Whether lexbench sends the generation prompts in the model's chat format."""
        return bool(self.manifest.get("prompt_mode") == "chat")


def build_for_export(spec: Any, kinds: Sequence[str], options: Mapping[str, Any]) -> Any:
    """The benchmark `spec` built for the stand-in model that answers `kinds`; an option its
    builder does not take is one clear line, not a TypeError."""
    import inspect

    from lexbench.run.rescore import RecordedModel

    model = RecordedModel({"name": EXPORT_MODEL_NAME, "kinds": list(kinds)})
    try:
        return spec.build(model, **options)
    except TypeError as error:
        if "unexpected keyword argument" not in str(error):
            raise
        accepted = [
            name
            for name, parameter in inspect.signature(spec.build).parameters.items()
            if parameter.kind is parameter.KEYWORD_ONLY
        ]
        known = f" (it takes {', '.join(accepted)})" if accepted else ""
        raise ValueError(
            f"{spec.name}: unknown option: {str(error).rpartition(' argument ')[2]}{known}"
        ) from None


def prompt_mode(spec: Any, options: dict[str, Any]) -> str:
    """'chat' where lexbench wraps a chat model's generation prompts in its chat format (the
    benchmark's `chat_default`, as `lexbench run` does for a model with a chat template),
    else 'completion'; `chat` in `options` (popped: no builder takes it) overrides."""
    chosen = options.pop(CHAT_OPTION, None)
    if isinstance(chosen, str):
        chosen = chosen.lower() in ("1", "true", "yes", "chat")
    chat = spec.chat_default if chosen is None else bool(chosen)
    return "chat" if chat else "completion"


def _absolute(value: Any) -> Any:
    """A file or folder option as an absolute path, so the exported task's scorer finds it
    from any working directory; other values as they are."""
    if isinstance(value, Path):
        return str(value.resolve())
    if isinstance(value, str) and ("/" in value or "." in value) and Path(value).exists():
        return str(Path(value).resolve())
    return value


def item_json(item: Any) -> dict[str, Any]:
    """An item as plain JSON: its `to_dict()`, else its dataclass fields."""
    if hasattr(item, "to_dict"):
        return dict(item.to_dict())
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return json.loads(json.dumps(dataclasses.asdict(item), default=str))
    raise TypeError(
        f"cannot export item {getattr(item, 'id', item)!r}: it has no to_dict() "
        "and is not a dataclass"
    )


def request_json(request: Request) -> dict[str, Any]:
    return {"id": request.id, **request.cache_key_payload()}


def export_set(
    benchmark: str,
    options: Mapping[str, Any] | None = None,
    *,
    kinds: Sequence[str] = LANGUAGE_MODEL_KINDS,
) -> ExportedSet:
    """The benchmark `benchmark` built with `options`, as rows and a manifest."""
    from lexbench import __version__, plugins
    from lexbench.run.evaluate import apply_chat

    spec = plugins.benchmark(benchmark)
    options = {k: _absolute(v) for k, v in dict(options or {}).items() if v is not None}
    mode = prompt_mode(spec, options)
    built = build_for_export(spec, kinds, options)
    items = list(built.items())
    if not items:
        raise ValueError(f"{benchmark}: no items to export (check --limit and the options)")
    requests = [apply_chat(built.requests(item), mode == "chat") for item in items]
    rows = []
    for item, asked in zip(items, requests):
        rows.append(
            {
                "id": str(item.id),
                "prompt": asked[0].prompt if asked else "",
                "kind": asked[0].kind if asked else "",
                "item": canonical_json(item_json(item)),
                "requests": canonical_json([request_json(r) for r in asked]),
            }
        )
    digest = hashlib.sha256("\n".join(canonical_json(r) for r in rows).encode("utf-8"))
    manifest = {
        "benchmark": benchmark,
        "options": json.loads(json.dumps(options, default=str)),
        "benchmark_config": json.loads(json.dumps(built.config(), default=str)),
        "items": len(items),
        "content_sha256": digest.hexdigest(),
        "benchmark_source": spec.source,
        # What the stand-in model answered: the scorer rebuilds the same requests from it.
        "export_kinds": list(kinds),
        # How lexbench sends the generation prompts to a chat model (the other tool must
        # send them the same way: lm-eval's --apply_chat_template, inspect's chat template).
        "prompt_mode": mode,
        "lexbench_version": __version__,
    }
    return ExportedSet(benchmark, options, items, requests, rows, manifest)


def write_hf(out_dir: Any, exported: ExportedSet) -> Any:
    """The rows as a Hugging Face dataset (one `test` split) with its card."""
    from lexbench.export.files import write_hf_dataset

    spec_description = exported.manifest.get("benchmark_config", {}).get("name", exported.benchmark)
    return write_hf_dataset(
        out_dir,
        {"test": exported.rows},
        exported.manifest,
        name=f"{exported.benchmark} (lexbench)",
        description=f"The {spec_description} benchmark as lexbench generates it: `item` holds "
        "each item's fields (JSON), `requests` what lexbench asks a model for it "
        "(JSON), `prompt` the first request's text.",
    )
