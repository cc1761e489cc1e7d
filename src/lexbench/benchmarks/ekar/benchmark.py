"""E-KAR question answering: pick the candidate tuple most analogous to the query.

Three methods, one benchmark:

* `loglikelihood`: each candidate's verbalisation is scored as a continuation of the query
  ("tea : teapot : teacup ::" + " passenger : bus : taxi"); the four continuations share one
  context, so the transformers backend runs the context once and scores them against its KV
  cache. The answer is the candidate with the highest score under the chosen normalisation
  (`sum`, `per_token` or `per_char`); all three accuracies are reported.
* `generate`: the model sees the lettered candidates and answers with a letter, which
  `extract_letter` finds robustly ("B", "(B)", "Answer: c", "the answer is D.", "答案：B", or
  the text of a candidate); outputs with no letter are counted apart as `unparsed`.
* `embedding`: the paper's static-vector baseline (see `ekar_embedding`).
* `contextual`: the paper's untuned contextual-embedding baseline (BERT/RoBERTa
  representations, see `ekar_contextual`).

Modes: `hard` (query and candidates only) and `easy` (the query's explanation as well).
Accuracy is tabulated per meta-relation (R1-R5) and per sub-relation with Wald and Wilson
95% intervals; an item counts under every relation annotated for its query (an item
annotated R3.8 and R3.9 counts in both rows, and once in R3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.data import (
    LABELS,
    RELATION_NAMES,
    UNKNOWN_RELATION,
    EkarItem,
    limit_stratum,
)
from lexbench.benchmarks.ekar.letters import Extraction, extract_letter
from lexbench.benchmarks.ekar.splits import load_split
from lexbench.contract import first_per_stratum

__all__ = ["EkarBenchmark", "Extraction", "extract_letter", "load_benchmark", "run_ekar"]
from lexbench.benchmarks.ekar.prompts import (
    GENERATE_DECODING,
    METHODS,
    MODES,
    NORMALISATIONS,
    VECTOR_METHODS,
    candidate_continuations,
    choice_prompt,
    loglikelihood_context,
    tuple_text,
)
from lexbench.benchmarks.ekar.tables import report_markdown, summarize_qa
from lexbench.types import Request, Response, Score

# ------------------------------------------------------------------------------ scoring


def normalised_scores(
    loglikelihoods: Sequence[float], token_counts: Sequence[int], continuations: Sequence[str]
) -> dict[str, list[float]]:
    """The three scores of each candidate: summed log-probability, per token, per character
    (characters of the continuation without its leading space)."""
    chars = [max(1, len(c.strip())) for c in continuations]
    return {
        "sum": [float(v) for v in loglikelihoods],
        "per_token": [float(v) / max(1, n) for v, n in zip(loglikelihoods, token_counts)],
        "per_char": [float(v) / n for v, n in zip(loglikelihoods, chars)],
    }


def best_index(values: Sequence[float]) -> int | None:
    """Index of the highest finite value (the first on a tie), None if none is finite."""
    finite = [(v, -i) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    return -max(finite)[1] if finite else None


@dataclass
class EkarBenchmark:
    """E-KAR question answering as a `Benchmark`."""

    dataset: list[EkarItem]
    language: str = "en"
    split: str = "validation"
    mode: str = "hard"
    method: str = "loglikelihood"
    normalisation: str = "per_char"
    dataset_info: dict[str, Any] = field(default_factory=dict)
    name: str = "ekar"

    def __post_init__(self) -> None:
        for value, allowed, what in (
            (self.mode, MODES, "mode"),
            (self.method, METHODS, "method"),
            (self.normalisation, NORMALISATIONS, "normalisation"),
        ):
            if value not in allowed:
                raise ValueError(f"unknown {what} {value!r}; choose from {', '.join(allowed)}")
        if self.method in VECTOR_METHODS and self.mode == "easy":
            raise ValueError(
                f"the {self.method} baseline compares term vectors only; EASY mode "
                "(the query's explanation) does not apply to it -- use --mode hard"
            )
        if self.mode == "easy":
            missing = [i.id for i in self.dataset if i.query_explanation is None]
            if missing:
                raise ValueError(
                    f"EASY mode needs each query's explanation; {len(missing)} "
                    f"item(s) have none (e.g. {missing[:3]}); use --mode hard"
                )

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "task": "qa",
            "language": self.language,
            "split": self.split,
            "mode": self.mode,
            "method": self.method,
            "normalisation": self.normalisation if self.method == "loglikelihood" else None,
            "items": len(self.dataset),
            "dataset": self.dataset_info,
            "decoding": GENERATE_DECODING.to_dict() if self.method == "generate" else None,
        }

    def items(self) -> list[EkarItem]:
        return self.dataset

    def requests(self, item: EkarItem) -> list[Request]:
        if self.method == "generate":
            return [
                Request(
                    id=item.id,
                    kind="generate",
                    prompt=choice_prompt(item, self.mode),
                    decoding=GENERATE_DECODING,
                )
            ]
        if self.method in VECTOR_METHODS:
            # One typed `analogy` request (a TupleChoiceQuery): the word-vector backend and
            # the contextual encoder both answer it with one cosine per candidate.
            from lexbench.benchmarks.ekar.embedding import tuple_request

            return [tuple_request(item)]
        return [
            Request(
                id=item.id,
                kind="loglikelihood",
                prompt=loglikelihood_context(item, self.mode),
                continuations=candidate_continuations(item),
            )
        ]

    def score(self, item: EkarItem, responses: Sequence[Response]) -> Score:
        response = responses[0]
        gold = item.answer
        if response.error is not None:
            # The vectors cannot answer when a query term has no known word: the baseline
            # fails on that item (counted wrong), which is not an infrastructure failure.
            error = response.failure.value if response.failure else "request_failed"
            return Score(
                item.id,
                None if gold is None else False,
                0.0 if gold else math.nan,
                None,
                error,
                {"error": response.error},
            )
        details: dict[str, Any] = {}
        if self.method == "generate":
            extraction = extract_letter(
                response.text, [tuple_text(c, item.language) for c in item.choices]
            )
            answer = extraction.letter
            details["extraction"] = extraction.how
        elif self.method in VECTOR_METHODS:
            cosines = list(response.choice_scores or response.loglikelihoods)
            choice = best_index(cosines)
            answer = None if choice is None else LABELS[choice]
            details["cosines"] = [c if math.isfinite(c) else None for c in cosines]
            details["extraction"] = "cosine" if choice is not None else "out_of_vocabulary"
        else:
            by_norm = normalised_scores(
                response.loglikelihoods, response.continuation_tokens, candidate_continuations(item)
            )
            picks = {norm: best_index(values) for norm, values in by_norm.items()}
            details["scores"] = by_norm
            details["continuation_tokens"] = list(response.continuation_tokens)
            details["answers"] = {
                norm: None if p is None else LABELS[p] for norm, p in picks.items()
            }
            if gold is not None:
                details["correct_by"] = {norm: a == gold for norm, a in details["answers"].items()}
            choice = picks[self.normalisation]
            answer = None if choice is None else LABELS[choice]
        if gold is None:
            return Score(item.id, None, math.nan, answer, "unlabelled", details)
        if answer is None:
            error = "unparsed" if self.method == "generate" else "out_of_vocabulary"
            return Score(item.id, False, 0.0, None, error, details)
        correct = answer == gold
        return Score(
            item.id, correct, float(correct), answer, "correct" if correct else "wrong", details
        )

    def sample(
        self,
        item: EkarItem,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        request, response = requests[0], responses[0]
        row: dict[str, Any] = {
            "id": item.id,
            "language": item.language,
            "question": ":".join(item.query),
            "choices": [":".join(c) for c in item.choices],
            "terms": item.terms,
            "gold": item.answer,
            "relation": item.relation_code,
            "relation_name": RELATION_NAMES.get(item.relation_code, UNKNOWN_RELATION),
            "meta_relation": item.meta_relation,
            "relations": list(item.query_relation_codes),
            "meta_relations": list(item.query_meta_relations),
            "mode": self.mode,
            "method": self.method,
            "prompt": request.prompt,
            "answer": score.answer,
            "correct": score.correct,
            "value": None if math.isnan(score.value) else score.value,
            "error_class": score.error_class,
            "error": response.error,
        }
        if self.method == "generate":
            row["output"] = response.text
        else:
            row["continuations"] = list(request.continuations)
        row.update(score.details)
        return row

    def summarize(self, items: Sequence[EkarItem], scores: Sequence[Score]) -> dict[str, Any]:
        return summarize_qa(items, scores, self.config())

    def report(self, results: Mapping[str, Any]) -> str:
        return report_markdown(results)

    def figures(self, results: Mapping[str, Any], folder: str | Path) -> list[Path]:
        """Accuracy by meta-relation with Wilson 95% whiskers: figures/accuracy_by_meta_relation.png."""
        from lexbench.report.figures import bar_with_intervals

        rows = [r for r in results.get("by_meta_relation", []) if r["n"] > 0]
        if not rows:
            return []
        labels = [f"{r['meta_relation']} {r['name']}" for r in rows]
        config = results.get("config", {})
        title = (
            f"E-KAR {config.get('language', '')} {config.get('split', '')}: "
            f"{config.get('method', '')}, {config.get('mode', '')}"
        )
        path = bar_with_intervals(
            Path(folder) / "figures" / "accuracy_by_meta_relation.png",
            labels,
            [r["accuracy"] for r in rows],
            [r["wilson"]["low"] for r in rows],
            [r["wilson"]["high"] for r in rows],
            title=title,
            ylabel="accuracy (Wilson 95%)",
        )
        return [path]


# ------------------------------------------------------------------------------ API


def load_benchmark(
    *,
    language: str = "en",
    split: str = "validation",
    mode: str = "hard",
    method: str = "loglikelihood",
    normalisation: str = "per_char",
    data: str | Path | None = None,
    revision: str = "v1.1",
    endpoint: str | None = None,
    limit: int | None = None,
) -> EkarBenchmark:
    """An `EkarBenchmark` over one split, read from `data` or downloaded from the Hub
    (EASY mode on v1.0's test split reads test_easy_blind.json)."""
    loaded = load_split(language, split, data=data, revision=revision, endpoint=endpoint, mode=mode)
    items = first_per_stratum(loaded.items, limit, limit_stratum)
    info = {
        "source": loaded.source,
        "file": loaded.path.name,
        "sha256": loaded.sha256,
        "revision": revision if data is None else None,
        "limit": limit,
        **({"limit_per": "meta-relation"} if limit is not None else {}),
        "blind": loaded.blind,
    }
    return EkarBenchmark(
        dataset=items,
        language=language,
        split=split,
        mode=mode,
        method=method,
        normalisation=normalisation,
        dataset_info=info,
    )


def run_ekar(
    model: Any,
    *,
    language: str = "en",
    split: str = "validation",
    mode: str = "hard",
    method: str = "loglikelihood",
    normalisation: str = "per_char",
    data: str | Path | None = None,
    revision: str = "v1.1",
    endpoint: str | None = None,
    limit: int | None = None,
    out: str | Path = "runs",
    cache: Any = None,
    progress: bool = True,
) -> Any:
    """Evaluate `model` (a `Model`, or a spec such as "smollm2-135m" or "glove"; with
    method="contextual", the path of a transformers encoder) on E-KAR QA and write its run
    folder; returns the `Evaluation`.

    >>> run_ekar("glove", data="tests/fixtures/ekar/english", method="embedding")  # doctest: +SKIP
    >>> run_ekar("path/to/bert", data="tests/fixtures/ekar/english", method="contextual")  # doctest: +SKIP
    """
    from lexbench.benchmarks.ekar.embedding import check_coverage, resolve_model
    from lexbench.run.evaluate import evaluate

    benchmark = load_benchmark(
        language=language,
        split=split,
        mode=mode,
        method=method,
        normalisation=normalisation,
        data=data,
        revision=revision,
        endpoint=endpoint,
        limit=limit,
    )
    from lexbench.benchmarks.ekar.contextual import ContextualTupleModel, check_encoder_language

    if isinstance(model, str) and method == "contextual":
        model = ContextualTupleModel(model)
    elif isinstance(model, str):
        model = resolve_model(model, method)
    check_coverage(model, benchmark.items())
    check_encoder_language(model, language)
    return evaluate(benchmark, model, out_root=out, cache=cache, progress=progress)
