"""lexbench's own scorer, for tasks exported to other tools (`lexbench.export.lm_eval`,
`lexbench.export.inspect_task`): the benchmark is rebuilt from the exported manifest (as
`lexbench rescore` rebuilds a run's), another tool's output for an item becomes a lexbench
`Response`, and the benchmark's `score` gives the verdict, so the other tool and lexbench
agree on the same outputs by construction.

A rank request (SCAN, Google, BATS) asks for the top-k next tokens. Another tool gives token
strings, not token ids, so a target word is found among them as lexbench's backend for
that model finds it:

* the other tool runs a transformers model whose tokenizer is at hand (inspect_ai's `hf/`
  provider, lm-eval's `hf` model): lexbench's transformers rule, the first token of
  " " + word (`lexbench.models.targets`), matched by its spelling in the vocabulary
  (inspect's top log-probabilities) or decoded (lm-eval's generated token);
* otherwise the strict prefix rule of lexbench's OpenAI-compatible backend
  (`lexbench.models.openai.targets`): a token that starts a word and equals the word, or is
  a prefix of it of at least min(3, len(word)) characters.

    >>> response = rank_response(Request("q", "rank", targets=("nucleus", "core")), [" nuc", " core"])
    >>> response.target_ranks, response.ranked[0].text
    ((1, 2), ' nuc')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.types import RankedToken, Request, Response, Score

MANIFEST = "lexbench-manifest.json"


class TokenizerTargets:
    """lexbench's transformers rule on token strings: a target is the first token of
    " " + word in `tokenizer`, spelled as the vocabulary spells it or decoded."""

    def __init__(self, tokenizer: Any, source: str):
        from lexbench.models.targets import FirstTokenIds

        self.tokenizer = tokenizer
        self.source = source
        self._first = FirstTokenIds(tokenizer)

    @classmethod
    def load(cls, model: str) -> TokenizerTargets:
        """The tokenizer of a local transformers folder (offline)."""
        from transformers import AutoTokenizer

        return cls(AutoTokenizer.from_pretrained(model, local_files_only=True), model)

    def spellings(self, word: str) -> set[str]:
        token_id = self._first(word)
        return {
            str(self.tokenizer.convert_ids_to_tokens(token_id)),
            self.tokenizer.decode([token_id]),
        }

    def ranks(self, tokens: Sequence[str], targets: Sequence[str]) -> tuple[int | None, ...]:
        found = []
        for word in targets:
            spellings = self.spellings(word)
            found.append(next((i for i, t in enumerate(tokens, 1) if t in spellings), None))
        return tuple(found)


def tokenizer_targets(model: str | None) -> TokenizerTargets | None:
    """lexbench's transformers rule for `model` when it names a local transformers folder
    (lm-eval's `pretrained`, inspect's `hf/FOLDER`), else None (the strict prefix rule)."""
    if not model or not (Path(model) / "config.json").is_file():
        return None
    return TokenizerTargets.load(model)


def rank_response(
    request: Request,
    tokens: Sequence[str],
    logprobs: Sequence[float] = (),
    targets: TokenizerTargets | None = None,
) -> Response:
    """A rank request's answer from the ranked token strings another tool returned, its
    targets found by `targets` (lexbench's transformers rule), else by the strict prefix
    rule."""
    from lexbench.models.openai.targets import strict_prefix_ranks

    ranked = tuple(
        RankedToken(-1, token, float(logprobs[i]) if i < len(logprobs) else 0.0)
        for i, token in enumerate(tokens[: request.top_k])
    )
    texts = [t.text for t in ranked]
    if targets is not None:
        ranks = targets.ranks(texts, request.targets)
    else:
        ranks = strict_prefix_ranks(texts, request.targets, word_start=True)
    return Response(request_id=request.id, ranked=ranked, target_ranks=ranks)


class ExportScorer:
    """Scores another tool's outputs for an exported benchmark with the benchmark's own
    scorer; the benchmark is built (once, on first use) from the manifest beside the task."""

    def __init__(self, manifest_path: str | Path):
        self.manifest_path = Path(manifest_path)
        self._benchmark: Any = None
        self._items: dict[str, Any] = {}
        self._requests: dict[str, list[Request]] = {}
        #: How rank targets are found (lm-eval's `pretrained` sets it: `use_model`).
        self.targets: TokenizerTargets | None = None

    def use_model(self, model: str | None) -> None:
        """Find rank targets by `model`'s tokenizer when it is a local transformers folder."""
        if self.targets is None or self.targets.source != model:
            self.targets = tokenizer_targets(model)

    def _load(self) -> None:
        from lexbench import plugins
        from lexbench.export.rows import LANGUAGE_MODEL_KINDS, build_for_export

        manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        source = str(manifest.get("benchmark_source") or "")
        if source.startswith("path "):
            plugins.include([source[len("path ") :]])
        spec = plugins.benchmark(manifest["benchmark"])
        kinds = list(manifest.get("export_kinds") or LANGUAGE_MODEL_KINDS)
        self._benchmark = build_for_export(spec, kinds, manifest.get("options", {}))
        self._items = {str(item.id): item for item in self._benchmark.items()}
        self._requests = {key: self._benchmark.requests(item) for key, item in self._items.items()}

    @property
    def benchmark(self) -> Any:
        """The benchmark as the export built it (its items, its requests)."""
        if self._benchmark is None:
            self._load()
        return self._benchmark

    def request(self, item_id: str) -> Request:
        """The one request lexbench sends for `item_id` (exported tasks have one per item)."""
        if self._benchmark is None:
            self._load()
        key = str(item_id)
        if key not in self._requests:
            raise KeyError(f"item {key!r} is not in the exported benchmark ({self.manifest_path})")
        return self._requests[key][0]

    def item(self, item_id: str) -> Any:
        """The benchmark's item `item_id`."""
        self.request(item_id)
        return self._items[str(item_id)]

    def score(self, item_id: str, response: Response) -> Score:
        """The benchmark's verdict on `response` to the request for `item_id`."""
        self.request(item_id)
        return self._benchmark.score(self._items[str(item_id)], [response])

    def process(self, doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float]:
        """lm-eval's `process_results`: `results` is [text] for a generation (a rank request
        is asked as one greedy token) and one (log-likelihood, is_greedy) pair per choice for
        a multiple-choice task."""
        request = self.request(str(doc["id"]))
        if request.kind == "generate":
            response = Response(request_id=request.id, text=str(results[0]))
        elif request.kind == "rank":
            response = rank_response(request, [str(results[0])], targets=self.targets)
        else:
            response = Response(
                request_id=request.id, loglikelihoods=tuple(float(r[0]) for r in results)
            )
        verdict = self.score(str(doc["id"]), response)
        return {"acc": 1.0 if verdict.correct else 0.0}
