"""lexbench's own scorer, for tasks exported to other tools (`lexbench.export.lm_eval`,
`lexbench.export.inspect_task`): the benchmark is rebuilt from the exported manifest (as
`lexbench rescore` rebuilds a run's), another tool's output for an item becomes a lexbench
`Response`, and the benchmark's `score` gives the verdict, so the other tool and lexbench
agree on the same outputs by construction.

A rank request (SCAN, Google, BATS) asks for the top-k next tokens. Another tool gives token
strings, not token ids, so a target word is found among them by the strict prefix rule of
lexbench's OpenAI-compatible backend (`lexbench.models.openai_targets`): a token that starts
a word and equals the word, or is a prefix of it of at least min(3, len(word)) characters.

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


def rank_response(
    request: Request, tokens: Sequence[str], logprobs: Sequence[float] = ()
) -> Response:
    """A rank request's answer from the ranked token strings another tool returned."""
    from lexbench.models.openai_targets import strict_prefix_ranks

    ranked = tuple(
        RankedToken(-1, token, float(logprobs[i]) if i < len(logprobs) else 0.0)
        for i, token in enumerate(tokens[: request.top_k])
    )
    ranks = strict_prefix_ranks([t.text for t in ranked], request.targets, word_start=True)
    return Response(request_id=request.id, ranked=ranked, target_ranks=ranks)


class ExportScorer:
    """Scores another tool's outputs for an exported benchmark with the benchmark's own
    scorer; the benchmark is built (once, on first use) from the manifest beside the task."""

    def __init__(self, manifest_path: str | Path):
        self.manifest_path = Path(manifest_path)
        self._benchmark: Any = None
        self._items: dict[str, Any] = {}
        self._requests: dict[str, list[Request]] = {}

    def _load(self) -> None:
        from lexbench import plugins
        from lexbench.export.rows import EXPORT_MODEL_NAME, LANGUAGE_MODEL_KINDS
        from lexbench.run.rescore import RecordedModel

        manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        source = str(manifest.get("benchmark_source") or "")
        if source.startswith("path "):
            plugins.include([source[len("path ") :]])
        spec = plugins.benchmark(manifest["benchmark"])
        kinds = list(manifest.get("export_kinds") or LANGUAGE_MODEL_KINDS)
        model = RecordedModel({"name": EXPORT_MODEL_NAME, "kinds": kinds})
        self._benchmark = spec.build(model, **manifest.get("options", {}))
        self._items = {str(item.id): item for item in self._benchmark.items()}
        self._requests = {key: self._benchmark.requests(item) for key, item in self._items.items()}

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
            response = rank_response(request, [str(results[0])])
        else:
            response = Response(
                request_id=request.id, loglikelihoods=tuple(float(r[0]) for r in results)
            )
        verdict = self.score(str(doc["id"]), response)
        return {"acc": 1.0 if verdict.correct else 0.0}
