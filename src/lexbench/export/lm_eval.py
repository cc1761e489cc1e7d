"""Any registered benchmark as an lm-evaluation-harness task whose scorer is the benchmark's
own: `process_results` rebuilds the benchmark from the exported manifest (as `lexbench
rescore` does), turns lm-eval's output into lexbench `Response`s and calls its `score`, so
lm-eval and lexbench give the same verdicts on the same outputs.

lm-eval has two request types that match lexbench's: `generate_until` (one `generate`
request per item, greedy, a fixed token budget and stop strings) and `multiple_choice` (one
`loglikelihood` request per item; lm-eval gives the summed log-probability of each
continuation, so lexbench's scorer sees no token counts). A benchmark whose items need
other requests (ranking the next word, several requests per item) cannot be an lm-eval
task; the error says so and points to the Hugging Face export.

The task's YAML is written through PyYAML (quoting is its job, not ours); the parquet path
in it is absolute, because lm-eval resolves data files against the working directory, so
re-export after moving the folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.export.rows import ExportedSet

UTILS = '''"""lexbench's own scorer for this task (see lexbench.export.lm_eval)."""

from pathlib import Path

from lexbench.export.lm_eval import ExportScorer

_SCORER = ExportScorer(Path(__file__).with_name("lexbench-manifest.json"))


def process_results(doc, results):
    return _SCORER.process(doc, results)
'''


def task_name(benchmark: str) -> str:
    return "lexbench_" + "".join(c if c.isalnum() else "_" for c in benchmark)


def _single_kind(exported: ExportedSet) -> str:
    shapes = {tuple(r.kind for r in asked) for asked in exported.requests}
    if shapes == {("generate",)}:
        return "generate"
    if shapes == {("loglikelihood",)}:
        return "loglikelihood"
    found = ", ".join("+".join(shape) or "none" for shape in sorted(shapes))
    raise ValueError(
        f"{exported.benchmark}: lm-eval takes one generate or one log-likelihood "
        f"request per item; this benchmark asks {found} per item. Export it "
        f"with --format hf instead"
    )


def _generation_kwargs(exported: ExportedSet) -> dict[str, Any]:
    decodings = {
        json.dumps(asked[0].decoding.to_dict(), sort_keys=True) for asked in exported.requests
    }
    if len(decodings) != 1:
        raise ValueError(
            f"{exported.benchmark}: its items decode differently; an lm-eval "
            f"task has one generation setting"
        )
    decoding = exported.requests[0][0].decoding
    if not decoding.greedy or decoding.stop_at_word_end:
        raise ValueError(
            f"{exported.benchmark}: lm-eval has no sampled decoding with a seed "
            f"per request and no stop-at-first-whole-word criterion; export the "
            f"greedy, fixed-budget protocol"
        )
    return {
        "until": list(decoding.stop),
        "max_gen_toks": decoding.max_new_tokens,
        "do_sample": False,
        "temperature": 0.0,
    }


def write_lm_eval_task(out_dir: str | Path, exported: ExportedSet) -> Path:
    """Write `<name>.yaml`, `utils.py`, `data/test.parquet` and the manifest; returns the folder."""
    import yaml

    from lexbench.export.files import write_parquet

    kind = _single_kind(exported)
    out = Path(out_dir).resolve()
    name = task_name(exported.benchmark)
    rows = [dict(row) for row in exported.rows]
    config: dict[str, Any] = {
        "task": name,
        "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": {"test": str(out / "data" / "test.parquet")}},
        "test_split": "test",
        "doc_to_text": "prompt",
        "process_results": "!function utils.process_results",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {
            "version": 1.0,
            "lexbench_content_sha256": exported.manifest["content_sha256"],
        },
    }
    if kind == "generate":
        config.update(
            {
                "output_type": "generate_until",
                "doc_to_target": "id",
                "generation_kwargs": _generation_kwargs(exported),
            }
        )
    else:
        for row, asked in zip(rows, exported.requests):
            row["choices"] = list(asked[0].continuations)
        config.update(
            {"output_type": "multiple_choice", "doc_to_choice": "choices", "doc_to_target": 0}
        )
    write_parquet(rows, out / "data" / "test.parquet")
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    # lm-eval reads `!function` as a tag; PyYAML quotes the string, so unquote that one value.
    text = text.replace("'!function utils.process_results'", "!function utils.process_results")
    (out / f"{name}.yaml").write_text(text, encoding="utf-8")
    (out / "utils.py").write_text(UTILS, encoding="utf-8")
    (out / "lexbench-manifest.json").write_text(
        json.dumps(exported.manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return out


class ExportScorer:
    """Scores lm-eval's outputs with the exported benchmark's own scorer."""

    def __init__(self, manifest_path: str | Path):
        self.manifest_path = Path(manifest_path)
        self._items: dict[str, Any] | None = None
        self._benchmark: Any = None
        self._requests: dict[str, Sequence[Any]] = {}

    def _load(self) -> None:
        from lexbench import plugins
        from lexbench.export.rows import EXPORT_MODEL_NAME, LANGUAGE_MODEL_KINDS
        from lexbench.run.rescore import RecordedModel

        manifest = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        source = str(manifest.get("benchmark_source") or "")
        if source.startswith("path "):
            plugins.include([source[len("path ") :]])
        spec = plugins.benchmark(manifest["benchmark"])
        model = RecordedModel({"name": EXPORT_MODEL_NAME, "kinds": list(LANGUAGE_MODEL_KINDS)})
        self._benchmark = spec.build(model, **manifest.get("options", {}))
        self._items = {str(item.id): item for item in self._benchmark.items()}
        self._requests = {key: self._benchmark.requests(item) for key, item in self._items.items()}

    def process(self, doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float]:
        from lexbench.types import Response

        if self._items is None:
            self._load()
        assert self._items is not None
        key = str(doc["id"])
        item, asked = self._items[key], self._requests[key]
        if asked[0].kind == "generate":
            response = Response(request_id=asked[0].id, text=str(results[0]))
        else:  # multiple_choice: one (log-likelihood, is_greedy) pair per continuation
            response = Response(
                request_id=asked[0].id, loglikelihoods=tuple(float(r[0]) for r in results)
            )
        score = self._benchmark.score(item, [response])
        return {"acc": 1.0 if score.correct else 0.0}
