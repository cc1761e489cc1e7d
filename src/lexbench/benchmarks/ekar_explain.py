"""E-KAR explanation generation: the model writes E_Q (how the query's terms relate) and
E_A (for each candidate, how its terms relate and whether that matches the query), scored
against the human explanations.

HARD mode generates E_Q and the four E_A; EASY mode gives the gold E_Q as input and
generates the four E_A only. Metrics per generated explanation: ROUGE-2 (precision,
recall, F1; character-level for Chinese) and the cosine similarity of sentence embeddings
(the packaged all-MiniLM-L6-v2 by default), plus BERTScore F1 over the run when a model is
named. Means come with 95% bootstrap intervals (10,000 resamples, seed 0).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lexbench.benchmarks.ekar import MODES, tuple_text
from lexbench.benchmarks.ekar_data import META_RELATIONS, EkarItem
from lexbench.metrics.rouge import rouge_n
from lexbench.stats import bootstrap_interval
from lexbench.types import Decoding, Request, Response, Score

# No stop string: small models often open with a newline, and a "\n" stop would cut the
# answer to nothing. The explanation is the first non-empty line of what comes back.
EXPLAIN_DECODING = Decoding(max_new_tokens=48, temperature=0.0)

_PROMPTS = {
    "en": {
        "query": "Explain in one sentence how the terms of the query are related.",
        "candidate": "Explain in one sentence how the terms of the candidate are related, and "
                     "whether that matches the query.",
        "query_label": "Query: ", "candidate_label": "Candidate: ",
        "given": "Explanation of the query: ", "answer": "Explanation:",
    },
    "zh": {
        "query": "请用一句话解释题干中词语之间的关系。",
        "candidate": "请用一句话解释该选项中词语之间的关系，以及它是否与题干相符。",
        "query_label": "题干：", "candidate_label": "选项：",
        "given": "题干解释：", "answer": "解释：",
    },
}


def first_line(text: str) -> str:
    """The first non-empty line, stripped: the generated explanation."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def query_explanation_prompt(item: EkarItem) -> str:
    """The E_Q prompt."""
    words = _PROMPTS[item.language]
    return (f"{words['query']}\n{words['query_label']}{tuple_text(item.query, item.language)}\n"
            f"{words['answer']}")


def candidate_explanation_prompt(item: EkarItem, index: int, mode: str) -> str:
    """The E_A prompt for candidate `index`; EASY mode includes the gold E_Q."""
    words = _PROMPTS[item.language]
    lines = [f"{words['query_label']}{tuple_text(item.query, item.language)}"]
    if mode == "easy":
        lines.append(f"{words['given']}{item.explanations[0]}")
    lines.append(f"{words['candidate_label']}{tuple_text(item.choices[index], item.language)}")
    lines.append(words["candidate"])
    lines.append(words["answer"])
    return "\n".join(lines)


@dataclass
class ExplanationBenchmark:
    """E-KAR explanation generation as a `Benchmark`."""

    dataset: list[EkarItem]
    language: str = "en"
    split: str = "validation"
    mode: str = "hard"
    similarity: Any = None                    # a SentenceSimilarity, or None to skip it
    bertscore_model: str | None = None
    bertscore_layers: int | None = None
    max_new_tokens: int = EXPLAIN_DECODING.max_new_tokens
    dataset_info: dict[str, Any] = field(default_factory=dict)
    name: str = "ekar-explain"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; choose from {', '.join(MODES)}")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        missing = [i.id for i in self.dataset if len(i.explanations) != 5]
        if missing:
            raise ValueError(f"explanation generation needs the five reference explanations; "
                             f"{len(missing)} item(s) have none (e.g. {missing[:3]}): a blind "
                             f"test split cannot be scored -- use train or validation")
        if self.bertscore_model:
            import importlib.util

            if importlib.util.find_spec("bert_score") is None:
                raise ImportError("--bertscore-model needs the optional package bert-score: "
                                  "pip install bert-score")

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name, "task": "explain", "language": self.language, "split": self.split,
            "mode": self.mode, "items": len(self.dataset), "dataset": self.dataset_info,
            "decoding": self.decoding.to_dict(),
            "similarity_model": self.similarity.name if self.similarity is not None else None,
            "bertscore_model": self.bertscore_model,
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
        out = []
        for target in self.targets(item):
            if target == "Q":
                prompt = query_explanation_prompt(item)
            else:
                prompt = candidate_explanation_prompt(item, item.labels.index(target), self.mode)
            out.append(Request(id=f"{item.id}:E{target}", kind="generate", prompt=prompt,
                               decoding=self.decoding))
        return out

    def score(self, item: EkarItem, responses: Sequence[Response]) -> Score:
        targets = self.targets(item)
        references = [item.explanations[0 if t == "Q" else 1 + item.labels.index(t)] for t in targets]
        outputs = [first_line(r.text) if r.error is None else "" for r in responses]
        failed = [t for t, r in zip(targets, responses) if r.error is not None]
        rouge = [rouge_n(o, ref, 2) for o, ref in zip(outputs, references)]
        similarities = (self.similarity.similarities(outputs, references)
                        if self.similarity is not None else [None] * len(outputs))
        per_target = {
            t: {"output": o, "raw_output": response.text, "reference": ref,
                "rouge2": r.to_dict(), "similarity": s}
            for t, o, response, ref, r, s in zip(targets, outputs, responses, references, rouge,
                                                 similarities)}
        mean_f1 = sum(r.f1 for r in rouge) / len(rouge)
        error = "request_failed" if failed else ("empty_output" if not any(outputs) else "generated")
        return Score(item.id, None, mean_f1, None, error, {"explanations": per_target})

    def sample(self, item: EkarItem, requests: Sequence[Request], responses: Sequence[Response],
               score: Score) -> dict[str, Any]:
        return {
            "id": item.id, "language": item.language, "question": ":".join(item.query),
            "choices": [":".join(c) for c in item.choices], "terms": item.terms,
            "relation": item.relation_code, "meta_relation": item.meta_relation,
            "mode": self.mode, "prompts": [r.prompt for r in requests],
            "correct": None, "value": score.value, "error_class": score.error_class,
            "errors": [r.error for r in responses if r.error], **score.details,
        }

    def summarize(self, items: Sequence[EkarItem], scores: Sequence[Score]) -> dict[str, Any]:
        groups: dict[str, dict[str, list[float]]] = {
            "E_Q": defaultdict(list), "E_A": defaultdict(list)}
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
            by_meta[item.meta_relation].append(score.value)
        if self.bertscore_model:
            from lexbench.metrics.similarity import bertscore

            for group, (predictions, references) in pairs.items():
                if predictions:
                    groups[group]["bertscore_f1"] = bertscore(
                        predictions, references, self.bertscore_model, language=self.language,
                        num_layers=self.bertscore_layers)
        tables = {
            group: {metric: bootstrap_interval(values).to_dict()
                    for metric, values in sorted(metrics.items())}
            for group, metrics in groups.items() if metrics}
        return {
            "benchmark": "ekar-explain", "task": "explain", "config": self.config(),
            "items": len(items), "explanations": tables,
            "error_classes": _count(s.error_class for s in scores),
            "rouge2_f1_by_meta_relation": [
                {"meta_relation": m, "name": META_RELATIONS.get(m, "unknown"),
                 **bootstrap_interval(by_meta[m]).to_dict()}
                for m in [*META_RELATIONS, "unknown"] if by_meta.get(m)],
        }

    def report(self, results: Mapping[str, Any]) -> str:
        config = results["config"]
        lines = [f"# E-KAR explanation generation ({config['language']}, {config['split']}, "
                 f"{config['mode']} mode)", "",
                 f"{results['items']} items; similarity model: {config['similarity_model']}; "
                 f"BERTScore model: {config['bertscore_model'] or 'none'}.", "",
                 "| explanation | metric | mean [95% bootstrap] | n |", "|---|---|---|---|"]
        for group, metrics in results["explanations"].items():
            for metric, interval in metrics.items():
                lines.append(f"| {group} | {metric} | {interval['estimate']:.3f} "
                             f"[{interval['low']:.3f}, {interval['high']:.3f}] | {interval['n']} |")
        lines += ["", "## ROUGE-2 F1 by meta-relation (item means)", "",
                  "| meta-relation | mean [95% bootstrap] | n |", "|---|---|---|"]
        for row in results["rouge2_f1_by_meta_relation"]:
            lines.append(f"| {row['meta_relation']} {row['name']} | {row['estimate']:.3f} "
                         f"[{row['low']:.3f}, {row['high']:.3f}] | {row['n']} |")
        lines += ["", f"Error classes: {results['error_classes']}"]
        return "\n".join(lines) + "\n"


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def load_explanation_benchmark(*, language: str = "en", split: str = "validation",
                               mode: str = "hard", data: Any = None, revision: str = "v1.1",
                               endpoint: str | None = None, limit: int | None = None,
                               similarity_model: str | None = None, use_similarity: bool = True,
                               bertscore_model: str | None = None,
                               bertscore_layers: int | None = None,
                               max_new_tokens: int = EXPLAIN_DECODING.max_new_tokens,
                               ) -> ExplanationBenchmark:
    """An `ExplanationBenchmark` over one split (local `data` folder or the Hub)."""
    from lexbench.benchmarks.ekar_data import load_split
    from lexbench.metrics.similarity import SentenceSimilarity

    loaded = load_split(language, split, data=data, revision=revision, endpoint=endpoint)
    items = loaded.items[:limit] if limit else loaded.items
    info = {"source": loaded.source, "file": loaded.path.name, "sha256": loaded.sha256,
            "revision": revision if data is None else None, "limit": limit}
    similarity = SentenceSimilarity(similarity_model) if use_similarity else None
    return ExplanationBenchmark(dataset=items, language=language, split=split, mode=mode,
                                similarity=similarity, bertscore_model=bertscore_model,
                                bertscore_layers=bertscore_layers,
                                max_new_tokens=max_new_tokens, dataset_info=info)


def run_ekar_explanations(model: Any, *, language: str = "en", split: str = "validation",
                          mode: str = "hard", data: Any = None, revision: str = "v1.1",
                          endpoint: str | None = None, limit: int | None = None,
                          similarity_model: str | None = None, use_similarity: bool = True,
                          bertscore_model: str | None = None, bertscore_layers: int | None = None,
                          max_new_tokens: int = EXPLAIN_DECODING.max_new_tokens,
                          out: Any = "runs", cache: Any = None, progress: bool = True) -> Any:
    """Generate E_Q/E_A with `model` (a `Model` or a spec such as "smollm2-135m"), score
    them, and write the run folder; returns the `Evaluation`.

    >>> run_ekar_explanations("smollm2-135m", data="tests/fixtures/ekar/english")  # doctest: +SKIP
    """
    from lexbench.benchmarks.base import evaluate
    from lexbench.benchmarks.ekar_embedding import resolve_model

    benchmark = load_explanation_benchmark(
        language=language, split=split, mode=mode, data=data, revision=revision,
        endpoint=endpoint, limit=limit, similarity_model=similarity_model,
        use_similarity=use_similarity, bertscore_model=bertscore_model,
        bertscore_layers=bertscore_layers, max_new_tokens=max_new_tokens)
    if isinstance(model, str):
        model = resolve_model(model, "generate")
    return evaluate(benchmark, model, out_root=out, cache=cache, progress=progress)
