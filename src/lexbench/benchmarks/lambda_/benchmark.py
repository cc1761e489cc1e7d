"""LAMBDA: two-shot lexical analogies over WordNet relations.

An item shows two support pairs that share a hidden relation and a query word:

    happy : unhappy
    large : small
    ancient :

and the model must give one word. It is right when that word is in R(E), the whole set of
words WordNet relates to the query, not only the sampled gold F.

Two generation profiles, both deterministic (sorted vocabularies, a seeded `random.Random`
per relation, never the global PRNG or set iteration order):

* `strict` (default): the paper's text. Vocabulary W = lowercase alphabetic lemmas of 4-15
  characters; B, D, F are single words passing W's filter; the six tokens are distinct and
  none is a substring of another. The scoring set keeps every member of R(E).
* `listing`: the paper's generation script, to reproduce its published numbers: lemmas of
  any length above 3 (alphabetic), no substring filter, B/D/F may be multi-word or
  capitalised; like the script (`len({A,B,C,D,E,F}) < 6: continue`), the six tokens must be
  distinct strings.

The query line is `E : ?` as the paper prints it; `--prompt-style completion` ends the prompt
at `E :` instead, where the answer goes (see `prompt_text`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from lexbench.benchmarks.lambda_.drift import DriftFinder, drift_finder
from lexbench.benchmarks.lambda_.items import LambdaItem, dumps_items
from lexbench.benchmarks.lambda_.prompts import (
    ANSWER_GUARD,
    PROMPT_STYLES,
    Sampling,
    decoding_for,
    prompt_text,
)
from lexbench.benchmarks.lambda_.taxonomy import (
    ERROR_CLASSES,
    Verdict,
    base_forms,
    classify,
    is_surface_variant,
)
from lexbench.contract import first_per_stratum
from lexbench.hashing import sha256_text
from lexbench.lexicon.wordnet.index import RelationIndex
from lexbench.models.base import Model
from lexbench.types import Request, Response, Score

__all__ = ["ERROR_CLASSES", "Verdict", "base_forms", "is_surface_variant", "parse_and_score"]


# ------------------------------------------------------------------------------ items


# ------------------------------------------------------------------------------ prompts


# ------------------------------------------------------------------------------ scoring


def parse_and_score(
    output: str, item: LambdaItem, index: RelationIndex | None, drift: DriftFinder | None = None
) -> Verdict:
    """Score a raw model output against R(E) and file a wrong answer.

    The answer is the first normalised word of the output; a multi-word candidate ("hot
    dog") also matches when the output begins with all of its words. Wrong answers get a
    class of `lambda_taxonomy.ERROR_CLASSES` (see that module). `drift` widens semantic
    drift beyond the index's relations (similar-to, sister terms, glosses, GloVe); without
    an index, drift cannot be told apart and falls under support_copy/other.
    """
    support = [w for pair in item.support for w in pair]
    return classify(output, item.query, item.candidates, support, index, drift)


# ------------------------------------------------------------------------------ benchmark


@dataclass
class LambdaBenchmark:
    """LAMBDA as a `Benchmark`: items, requests, score, summarize, report.

    With `sampling` (temperature > 0) every item gets one request per seed; the main tables
    describe the first sample (one run at that temperature, as the paper ran it) and
    `results["sampling"]` gives every sample's accuracy with their mean and SD.
    """

    # The taxonomy's memos are order-independent and only this scorer touches them.
    scores_in_background: ClassVar[bool] = True
    dataset: list[LambdaItem]
    index: RelationIndex | None
    protocol: str = "paper"
    prompt_style: str = "paper"
    dataset_config: dict[str, Any] = field(default_factory=dict)
    name: str = "lambda"
    # Sampling (plain values, so a run's recorded options rebuild it): see `Sampling`.
    temperature: float = 0.0
    top_p: float = 1.0
    sampling_seed: int = 0
    samples: int = 1
    # None: built on first use from the index (WordNet sense table, GloVe when installed).
    drift: DriftFinder | None = None
    # Beyond the paper: graded credit as a second score (`lambda_.graded`); None: none.
    graded: str | None = None
    graded_scorer: Any = None

    def __post_init__(self) -> None:
        decoding_for(self.protocol)  # validates
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"unknown prompt style {self.prompt_style!r}")
        self.sampling = Sampling(
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.sampling_seed,
            samples=self.samples,
        )

    def _drift(self) -> DriftFinder | None:
        if self.drift is None and self.index is not None:
            self.drift = drift_finder(self.index)
        return self.drift

    def config(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "dataset": self.dataset_config,
            "dataset_sha256": sha256_text(dumps_items(self.dataset)),
            "items": len(self.dataset),
            "protocol": self.protocol,
            "prompt_style": self.prompt_style,
            "decoding": decoding_for(self.protocol, self.sampling).to_dict(),
            "answer_guard": ANSWER_GUARD,
        }
        if not self.sampling.greedy:  # greedy configs (and their run folders) stay as before
            out["sampling"] = self.sampling.to_dict()
        if self.graded is not None:  # likewise: only a graded run records it
            from lexbench.benchmarks.lambda_.graded import DEFINITIONS

            out["graded"] = {"kind": self.graded, "definition": DEFINITIONS[self.graded]}
        return out

    def _graded(self) -> Any:
        if self.graded_scorer is None and self.graded is not None:
            from lexbench.benchmarks.lambda_.graded import load_graded_scorer

            self.graded_scorer = load_graded_scorer(self.graded)
        return self.graded_scorer

    def items(self) -> list[LambdaItem]:
        return self.dataset

    def requests(self, item: LambdaItem) -> list[Request]:
        text = prompt_text(item, self.prompt_style)
        if self.sampling.greedy:
            return [
                Request(
                    id=item.id, kind="generate", prompt=text, decoding=decoding_for(self.protocol)
                )
            ]
        return [
            Request(
                id=f"{item.id}@seed{seed}",
                kind="generate",
                prompt=text,
                decoding=decoding_for(self.protocol, self.sampling, seed),
            )
            for seed in self.sampling.seeds
        ]

    def score(self, item: LambdaItem, responses: Sequence[Response]) -> Score:
        drift = self._drift()
        per_sample: list[dict[str, Any]] = []
        for seed, response in zip(self.sampling.seeds, responses):
            if response.error is not None:
                per_sample.append(
                    {"seed": seed, "answer": None, "correct": None, "error_class": "request_failed"}
                )
                continue
            verdict = parse_and_score(response.text, item, self.index, drift)
            per_sample.append(
                {
                    "seed": seed,
                    "answer": verdict.answer,
                    "correct": verdict.correct,
                    "error_class": verdict.error_class,
                }
            )
        first = per_sample[0]
        details: dict[str, Any] = {"samples": per_sample} if not self.sampling.greedy else {}
        graded = self._graded()
        if graded is not None:
            credit, nearest = (None, None)
            if first["correct"] is not None:
                credit, nearest = graded.credit(
                    first["answer"],
                    first["error_class"],
                    item.candidates,
                    responses[0].text,
                    whole_line=self.protocol == "phrase",
                )
            details.update(graded=credit, graded_nearest=nearest)
        if first["correct"] is None:
            return Score(
                item.id, None, 0.0, None, "request_failed", {**details, "error": responses[0].error}
            )
        return Score(
            item.id,
            first["correct"],
            float(first["correct"]),
            first["answer"],
            first["error_class"],
            details,
        )

    def sample(
        self,
        item: LambdaItem,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        row = {
            **item.to_dict(),
            "prompt": requests[0].prompt,
            "output": responses[0].text,
            "generated_tokens": responses[0].generated_tokens,
            "answer": score.answer,
            "correct": score.correct,
            "value": score.value,
            "error_class": score.error_class,
            "error": responses[0].error,
        }
        if self.graded is not None:
            row["graded"] = score.details.get("graded")
            row["graded_nearest"] = score.details.get("graded_nearest")
        if not self.sampling.greedy:
            row["samples"] = [
                {
                    **verdict,
                    "output": response.text,
                    "generated_tokens": response.generated_tokens,
                    "error": response.error,
                }
                for verdict, response in zip(score.details["samples"], responses)
            ]
        return row

    def summarize(self, items: Sequence[LambdaItem], scores: Sequence[Score]) -> dict[str, Any]:
        from lexbench.benchmarks.lambda_.analysis import summarize

        results = summarize(items, scores)
        drift = self._drift()
        results["error_taxonomy_drift_signals"] = drift.signals if drift else []
        if not self.sampling.greedy:
            results["sampling"] = {**self.sampling.to_dict(), **results.get("sampling", {})}
        if self.graded is not None:
            from lexbench.benchmarks.lambda_.graded import graded_summary

            results["graded"] = graded_summary(
                self.graded,
                [item.relation for item in items],
                [score.details.get("graded") for score in scores],
            )
        return results

    def report(self, results: Mapping[str, Any]) -> str:
        from lexbench.benchmarks.lambda_.analysis import report_markdown

        return report_markdown(results)


def rescore(
    samples: Sequence[Mapping[str, Any]],
    index: RelationIndex | None,
    drift: DriftFinder | None = None,
) -> list[Score]:
    """Score a run's samples.jsonl again from the raw outputs (after a scorer change);
    sampled runs are re-scored sample by sample."""
    if drift is None and index is not None:
        drift = drift_finder(index)
    scores = []
    for row in samples:
        item = LambdaItem.from_dict(row)
        sampled = row.get("samples")
        if sampled:
            # Seeds are consecutive from the first (see `Sampling.seeds`); any positive
            # temperature rebuilds them.
            sampling = {
                "temperature": 1.0,
                "sampling_seed": sampled[0]["seed"],
                "samples": len(sampled),
            }
            responses = [
                Response(request_id=item.id, text=s.get("output") or "", error=s.get("error"))
                for s in sampled
            ]
        else:
            sampling = {}
            responses = [
                Response(request_id=item.id, text=row.get("output") or "", error=row.get("error"))
            ]
        bench = LambdaBenchmark(dataset=[], index=index, drift=drift, **sampling)
        scores.append(bench.score(item, responses))
    return scores


def build_lambda(
    model: Model,
    *,
    limit: int | None = None,
    protocol: str = "paper",
    prompt_style: str = "paper",
    profile: str = "strict",
    seed: int = 42,
    per_relation: int = 1000,
    relations: Sequence[str] | None = None,
    items: str | Path | None = None,
    wordnet: str | Path | None = None,
    progress: bool = True,
    wordnet_lmf: str | Path | None = None,
    language: str | None = None,
    tokenizer: str | None = None,
    max_answer_tokens: int = 2,
    graded: str | None = None,
    **extra: Any,
) -> Any:
    """LAMBDA: generated items (or a generated file), the first `limit` per relation.
    `wordnet_lmf`/`language`/`tokenizer`/`max_answer_tokens`: see `lambda_.lmf`."""
    from lexbench.benchmarks.lambda_.items import LambdaConfig, read_items
    from lexbench.benchmarks.lambda_.lmf import WordSource, lambda_dataset
    from lexbench.lexicon.wordnet.index import PAPER_RELATIONS
    from lexbench.lexicon.wordnet.index_cache import load_index

    source = WordSource(
        wordnet_lmf=None if wordnet_lmf is None else str(wordnet_lmf),
        language=language,
        tokenizer=tokenizer,
        max_answer_tokens=max_answer_tokens,
    )
    index: RelationIndex
    if source.wordnet_lmf is not None:
        from lexbench.lexicon.wordnet.index import relations_for
        from lexbench.lexicon.wordnet.lmf import lmf_index

        # The index `lambda_dataset` draws from (built or read once).
        index = lmf_index(source.wordnet_lmf, language, relations_for(relations or PAPER_RELATIONS))
        # Another language: the error taxonomy follows that wordnet's own links only
        # (WordNet 3.0's senses and English GloVe would say nothing true about it).
        extra.setdefault("drift", DriftFinder(related=index))
        if graded is not None:
            raise ValueError(
                "--graded path and glove measure English (WordNet 3.0, GloVe); they do not "
                "apply to a --wordnet-lmf wordnet"
            )
    else:
        index = load_index(wordnet, progress=progress)
    if items is not None:
        dataset = read_items(items)
        dataset_config: dict[str, Any] = {"file": str(items)}
    else:
        config = LambdaConfig(
            profile=profile,
            seed=seed,
            per_relation=per_relation,
            relations=tuple(relations or PAPER_RELATIONS),
        )
        drawn = lambda_dataset(config, source, wordnet, progress)
        dataset = drawn.items
        dataset_config = {**drawn.config.to_dict(), **drawn.extra_config}
    dataset = limit_per_relation(dataset, limit)
    dataset_config = {**dataset_config, "limit_per_relation": limit}
    if graded is not None:
        from lexbench.benchmarks.lambda_.graded import load_graded_scorer

        scorer = load_graded_scorer(graded, None if wordnet is None else str(wordnet))
        extra.update(graded=graded, graded_scorer=scorer)
    return LambdaBenchmark(
        dataset=dataset,
        index=index,
        protocol=protocol,
        prompt_style=prompt_style,
        dataset_config=dataset_config,
        **extra,
    )


def limit_per_relation(items: Sequence[Any], limit: int | None) -> list[Any]:
    """The first `limit` items of each relation (items are already in random order)."""
    return first_per_stratum(items, limit, lambda item: item.relation)
