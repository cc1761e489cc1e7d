"""E-KAR explanation generation: the model writes E_Q (how the query's terms relate) and
E_A (for each candidate, how its terms relate and whether that matches the query), scored
against the human explanations.

As in the paper (§5.2 and Appendix A.1), the generator sees the whole problem for every
explanation it writes: the query, all four candidates and, in EASY mode, the gold E_Q;
the end of the input says which explanation to write. HARD mode generates E_Q and the four
E_A; EASY mode gives E_Q as input and generates the four E_A only. Two input formats:

* `paper` (default): Appendix A.1's string, verbatim --
  "query = t1 : t2 </s> (query explanation = E_Q </s>) candidate = t1 : t2 </s> ... </s>
  candidate = t1 : t2 </s> generate the explanation of Q" (or "of A" ... "of D").
* `instruct` (lexbench's, opt-in): the same information as plain instructions with
  lettered candidates, for chat and small instruction-tuned models.

Metrics per generated explanation: ROUGE-2 (precision, recall, F1; character-level for
Chinese) and the cosine similarity of sentence embeddings (the packaged English
all-MiniLM-L6-v2 by default: Chinese needs a multilingual or Chinese model named with
--similarity-model, else it is refused), plus over the run BERTScore F1 when a model is
named, and BLEURT and MoverScore when their checkpoints are named (else skipped, with the
reason in results.json and the report). Means come with 95% bootstrap intervals (10,000
resamples, seed 0).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lexbench.benchmarks.ekar.data import META_RELATIONS, EkarItem, limit_stratum
from lexbench.benchmarks.ekar.explain_prompts import (
    EXPLAIN_DECODING,
    PROMPT_FORMATS,
    explanation_prompt,
    first_line,
)
from lexbench.benchmarks.ekar.explain_report import explanation_report_markdown
from lexbench.benchmarks.ekar.prompts import MODES
from lexbench.contract import first_per_stratum
from lexbench.metrics.rouge import rouge_n
from lexbench.stats import bootstrap_interval
from lexbench.types import Decoding, Request, Response, Score


@dataclass
class ExplanationBenchmark:
    """E-KAR explanation generation as a `Benchmark`."""

    dataset: list[EkarItem]
    language: str = "en"
    split: str = "validation"
    mode: str = "hard"
    similarity: Any = None  # a SentenceSimilarity, or None to skip it
    bertscore_model: str | None = None
    bertscore_layers: int | None = None
    max_new_tokens: int = EXPLAIN_DECODING.max_new_tokens
    prompt_format: str = "paper"
    bleurt: Any = None  # a metrics.learned.MetricPlan (None: skipped)
    moverscore: Any = None  # a metrics.learned.MetricPlan (None: skipped)
    dataset_info: dict[str, Any] = field(default_factory=dict)
    name: str = "ekar-explain"

    def __post_init__(self) -> None:
        from lexbench.metrics.learned import plan_bleurt, plan_moverscore

        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; choose from {', '.join(MODES)}")
        if self.prompt_format not in PROMPT_FORMATS:
            raise ValueError(
                f"unknown prompt format {self.prompt_format!r}; choose from "
                f"{', '.join(PROMPT_FORMATS)}"
            )
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        missing = [
            i.id for i in self.dataset if len(i.explanations) != 5 or not all(i.explanations)
        ]
        if missing:
            raise ValueError(
                f"explanation generation needs the five reference explanations; "
                f"{len(missing)} item(s) lack them (e.g. {missing[:3]}): a blind "
                f"test file cannot be scored -- use train, validation or v1.1's "
                f"labelled test.json"
            )
        if self.similarity is not None:
            self.similarity.check_language(self.language)
        self.bleurt = self.bleurt or plan_bleurt(None)
        self.moverscore = self.moverscore or plan_moverscore(None)
        if self.bertscore_model:
            import importlib.util

            if importlib.util.find_spec("bert_score") is None:
                raise ImportError(
                    "--bertscore-model needs the optional package bert-score: "
                    "pip install bert-score"
                )

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "task": "explain",
            "language": self.language,
            "split": self.split,
            "mode": self.mode,
            "items": len(self.dataset),
            "dataset": self.dataset_info,
            "decoding": self.decoding.to_dict(),
            "prompt_format": self.prompt_format,
            "similarity_model": self.similarity.name if self.similarity is not None else None,
            # The encoder's content: new weights in the same folder make a new run folder.
            "similarity_weights_sha256": (
                self.similarity.weights_sha256() if self.similarity is not None else None
            ),
            "bertscore_model": self.bertscore_model,
            "bleurt": self.bleurt.to_dict(),
            "moverscore": self.moverscore.to_dict(),
        }

    @property
    def decoding(self) -> Decoding:
        return replace(EXPLAIN_DECODING, max_new_tokens=self.max_new_tokens)

    def items(self) -> list[EkarItem]:
        return self.dataset

    def targets(self, item: EkarItem) -> list[str]:
        """Which explanations are generated: E_Q (HARD only), then E_A for A-D."""
        return (["Q"] if self.mode == "hard" else []) + list(item.labels)

    def requests(self, item: EkarItem) -> list[Request]:
        return [
            Request(
                id=f"{item.id}:E{target}",
                kind="generate",
                prompt=explanation_prompt(item, target, self.mode, self.prompt_format),
                decoding=self.decoding,
            )
            for target in self.targets(item)
        ]

    def score(self, item: EkarItem, responses: Sequence[Response]) -> Score:
        targets = self.targets(item)
        references = [
            item.explanations[0 if t == "Q" else 1 + item.labels.index(t)] for t in targets
        ]
        outputs = [first_line(r.text) if r.error is None else "" for r in responses]
        failed = [t for t, r in zip(targets, responses) if r.error is not None]
        rouge = [rouge_n(o, ref, 2) for o, ref in zip(outputs, references)]
        similarities = (
            self.similarity.similarities(outputs, references)
            if self.similarity is not None
            else [None] * len(outputs)
        )
        per_target = {
            t: {
                "output": o,
                "raw_output": response.text,
                "reference": ref,
                "rouge2": r.to_dict(),
                "similarity": s,
            }
            for t, o, response, ref, r, s in zip(
                targets, outputs, responses, references, rouge, similarities
            )
        }
        mean_f1 = sum(r.f1 for r in rouge) / len(rouge)
        error = (
            "request_failed" if failed else ("empty_output" if not any(outputs) else "generated")
        )
        return Score(item.id, None, mean_f1, None, error, {"explanations": per_target})

    def sample(
        self,
        item: EkarItem,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        return {
            "id": item.id,
            "language": item.language,
            "question": ":".join(item.query),
            "choices": [":".join(c) for c in item.choices],
            "terms": item.terms,
            "relation": item.relation_code,
            "meta_relation": item.meta_relation,
            "mode": self.mode,
            "prompts": [r.prompt for r in requests],
            "correct": None,
            "value": score.value,
            "error_class": score.error_class,
            "errors": [r.error for r in responses if r.error],
            **score.details,
        }

    def summarize(self, items: Sequence[EkarItem], scores: Sequence[Score]) -> dict[str, Any]:
        groups: dict[str, dict[str, list[float]]] = {
            "E_Q": defaultdict(list),
            "E_A": defaultdict(list),
        }
        by_meta: dict[str, list[float]] = defaultdict(list)
        pairs: dict[str, tuple[list[str], list[str]]] = {"E_Q": ([], []), "E_A": ([], [])}
        for item, score in zip(items, scores):
            for target, row in score.details["explanations"].items():
                group = "E_Q" if target == "Q" else "E_A"
                for part in ("precision", "recall", "f1"):
                    groups[group][f"rouge2_{part}"].append(row["rouge2"][part])
                if row["similarity"] is not None:
                    groups[group]["similarity"].append(row["similarity"])
                pairs[group][0].append(row["output"])
                pairs[group][1].append(row["reference"])
            for meta in item.query_meta_relations:  # every relation of the query
                by_meta[meta].append(score.value)
        if self.bertscore_model:
            from lexbench.metrics.similarity import bertscore

            for group, (predictions, references) in pairs.items():
                if predictions:
                    groups[group]["bertscore_f1"] = bertscore(
                        predictions,
                        references,
                        self.bertscore_model,
                        language=self.language,
                        num_layers=self.bertscore_layers,
                    )
        skipped = self._learned_metrics(pairs, groups)
        tables = {
            group: {
                metric: bootstrap_interval(values).to_dict()
                for metric, values in sorted(metrics.items())
            }
            for group, metrics in groups.items()
            if metrics
        }
        return {
            "benchmark": "ekar-explain",
            "task": "explain",
            "config": self.config(),
            "items": len(items),
            "explanations": tables,
            "error_classes": _count(s.error_class for s in scores),
            "skipped_metrics": skipped,
            "rouge2_f1_by_meta_relation": [
                {
                    "meta_relation": m,
                    "name": META_RELATIONS.get(m, "unknown"),
                    **bootstrap_interval(by_meta[m]).to_dict(),
                }
                for m in [*META_RELATIONS, "unknown"]
                if by_meta.get(m)
            ],
        }

    def _learned_metrics(
        self,
        pairs: Mapping[str, tuple[list[str], list[str]]],
        groups: dict[str, dict[str, list[float]]],
    ) -> dict[str, str]:
        """BLEURT and MoverScore per explanation when planned; the reasons when skipped."""
        skipped = {}
        for plan in (self.bleurt, self.moverscore):
            if plan.skipped is not None:
                skipped[plan.name] = plan.skipped
            else:
                _run_learned(plan, pairs, groups)
        return skipped

    def report(self, results: Mapping[str, Any]) -> str:
        return explanation_report_markdown(results)


def _run_learned(
    plan: Any,
    pairs: Mapping[str, tuple[list[str], list[str]]],
    groups: dict[str, dict[str, list[float]]],
) -> None:
    from lexbench.metrics.learned import bleurt_scores, moverscore_scores

    scorer = bleurt_scores if plan.name == "bleurt" else moverscore_scores
    for group, (predictions, references) in pairs.items():
        if predictions:
            groups[group][plan.name] = scorer(plan, predictions, references)


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def load_explanation_benchmark(
    *,
    language: str = "en",
    split: str = "validation",
    mode: str = "hard",
    data: Any = None,
    revision: str = "v1.1",
    endpoint: str | None = None,
    limit: int | None = None,
    similarity_model: str | None = None,
    use_similarity: bool = True,
    bertscore_model: str | None = None,
    bertscore_layers: int | None = None,
    max_new_tokens: int = EXPLAIN_DECODING.max_new_tokens,
    prompt_format: str = "paper",
    bleurt_checkpoint: str | None = None,
    moverscore_model: str | None = None,
) -> ExplanationBenchmark:
    """An `ExplanationBenchmark` over one split (local `data` folder or the Hub)."""
    from lexbench.benchmarks.ekar.splits import load_split
    from lexbench.metrics.learned import plan_bleurt, plan_moverscore
    from lexbench.metrics.similarity import SentenceSimilarity

    # Refuse what cannot run before reading any data.
    similarity = SentenceSimilarity(similarity_model) if use_similarity else None
    if similarity is not None:
        similarity.check_language(language)
    bleurt, moverscore = plan_bleurt(bleurt_checkpoint), plan_moverscore(moverscore_model)
    loaded = load_split(language, split, data=data, revision=revision, endpoint=endpoint, mode=mode)
    items = first_per_stratum(loaded.items, limit, limit_stratum)
    info = {
        "source": loaded.source,
        "file": loaded.path.name,
        "sha256": loaded.sha256,
        "revision": revision if data is None else None,
        "limit": limit,
        **({"limit_per": "meta-relation"} if limit is not None else {}),
    }
    return ExplanationBenchmark(
        dataset=items,
        language=language,
        split=split,
        mode=mode,
        similarity=similarity,
        bertscore_model=bertscore_model,
        bertscore_layers=bertscore_layers,
        max_new_tokens=max_new_tokens,
        prompt_format=prompt_format,
        bleurt=bleurt,
        moverscore=moverscore,
        dataset_info=info,
    )


def run_ekar_explanations(
    model: Any, *, out: Any = "runs", cache: Any = None, progress: bool = True, **options: Any
) -> Any:
    """Generate E_Q/E_A with `model` (a `Model` or a spec such as "smollm2-135m"), score
    them, and write the run folder; returns the `Evaluation`. `options` are those of
    `load_explanation_benchmark`.

    >>> run_ekar_explanations("smollm2-135m", data="tests/fixtures/ekar/english")  # doctest: +SKIP
    """
    from lexbench.benchmarks.ekar.embedding import resolve_model
    from lexbench.run.evaluate import evaluate

    benchmark = load_explanation_benchmark(**options)
    if isinstance(model, str):
        model = resolve_model(model, "generate")
    return evaluate(benchmark, model, out_root=out, cache=cache, progress=progress)
