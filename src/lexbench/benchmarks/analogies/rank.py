"""Completion analogies (a : b :: c : ?) ranked by a model: SCAN, Google, BATS, pair files.

What the benchmark asks depends only on what the model declares it answers:

* a model that answers `analogy` requests (static word vectors) gets the typed
  `AnalogyQuery` (with a method: 3CosAdd, 3CosMul, pair difference, the SCAN paper's own);
* any model that answers `rank` requests (causal LMs in process or behind a server, masked
  LMs) gets the template cut where the answer goes, "If a is like b, then c is like", with
  "." as the text after the answer.

Either way the request carries the accepted answers as its `targets` and the backend returns
their ranks (`lexbench.models.targets` says how each kind of backend matches a word), so
scoring never touches a tokenizer. Per item: the reciprocal rank of the first accepted answer
in the top k (0 when absent), acc@1, and recall@5/@10, the share of the distinct accepted
answers found in the top k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.data import Analogy, dataset_sha256
from lexbench.benchmarks.analogies.prompts import (
    ANSWER_SUFFIX,
    choose_shots,
    query_prompt,
    sentence,
)
from lexbench.benchmarks.analogies.tables import mrr_figure, report_markdown, summarize
from lexbench.types import VECTOR_METHODS, AnalogyQuery, Failure, Request, Response, Score

DEFAULT_TOP_K = 10
OOV_POLICIES = ("skip", "wrong")
REQUEST_KINDS = ("rank", "analogy")


@dataclass(frozen=True)
class RankOutcome:
    """Where the first accepted answer landed, and the recall the SCAN paper reports."""

    rank: int | None  # 1-based, None when absent from the top k
    recall_at_5: float
    recall_at_10: float

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0


def rank_outcome(target_ranks: Sequence[int | None], top_k: int = DEFAULT_TOP_K) -> RankOutcome:
    """Score the ranks of the accepted answers (None: not in the top k).

    >>> rank_outcome([None, 3, 7])
    RankOutcome(rank=3, recall_at_5=0.3333333333333333, recall_at_10=0.6666666666666666)
    """
    found = [r for r in target_ranks if r is not None and r <= top_k]

    def recall(k: int) -> float:
        return sum(1 for r in found if r <= k) / len(target_ranks) if target_ranks else 0.0

    return RankOutcome(min(found) if found else None, recall(5), recall(10))


@dataclass
class RankAnalogyBenchmark:
    """Any completion-analogy set as a `Benchmark` (SCAN, Google, BATS, pair files).

    `request_kind` is "analogy" for a model that answers word-vector queries (then `method`
    says how), else "rank". `oov_policy`: `skip` leaves an item the model cannot take (a
    question word or every answer out of vocabulary) out of the metrics, as gensim does;
    `wrong` counts it as a miss (reciprocal rank 0), as the SCAN paper does.
    """

    name: str
    dataset: list[Analogy]
    request_kind: str = "rank"
    shots: int = 0
    seed: int = 0
    method: str | None = None  # analogy requests only
    oov_policy: str = "skip"
    dataset_config: dict[str, Any] = field(default_factory=dict)
    shot_pool: list[Analogy] | None = None  # default: the whole dataset
    cluster_label: str = "mapping"
    _shots: dict[str, tuple[Analogy, ...]] = field(default_factory=dict, repr=False)
    _dataset_sha256: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.request_kind not in REQUEST_KINDS:
            raise ValueError(
                f"unknown request kind {self.request_kind!r}; choose from "
                f"{', '.join(REQUEST_KINDS)}"
            )
        if self.oov_policy not in OOV_POLICIES:
            raise ValueError(f"unknown oov policy {self.oov_policy!r}")
        if self.shots < 0:
            raise ValueError(f"shots must be 0 or more, got {self.shots}")
        if self.request_kind == "analogy":
            if self.method not in VECTOR_METHODS:
                raise ValueError(
                    f"a word-vector run needs a method from {', '.join(VECTOR_METHODS)}"
                )
            if self.shots:
                raise ValueError("word vectors take no shots; run them with --shots 0")
        elif self.method is not None:
            raise ValueError(
                f"--method applies to word-vector models, not to {self.request_kind} requests"
            )
        self._dataset_sha256 = dataset_sha256(self.dataset)
        pool = self.shot_pool if self.shot_pool is not None else self.dataset
        self._shots = {
            item.id: choose_shots(item, pool, self.shots, self.seed) for item in self.dataset
        }

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dataset": self.dataset_config,
            "items": len(self.dataset),
            "dataset_sha256": self._dataset_sha256,
            "request_kind": self.request_kind,
            "shots": self.shots,
            "seed": self.seed,
            "method": self.method,
            "top_k": DEFAULT_TOP_K,
            "oov_policy": self.oov_policy,
            "template": sentence("A", "B", "C", "D"),
            "answer_match": (
                "vocabulary word (folded as the model folds)"
                if self.request_kind == "analogy"
                else "the backend's first token of ' ' + word"
            ),
        }

    def items(self) -> list[Analogy]:
        return self.dataset

    def requests(self, item: Analogy) -> list[Request]:
        if self.request_kind == "analogy":
            return [
                Request(
                    id=item.id,
                    kind="analogy",
                    top_k=DEFAULT_TOP_K,
                    query=AnalogyQuery(item.a, item.b, item.c, method=self.method or "3cosadd"),
                    targets=item.accepted,
                )
            ]
        return [
            Request(
                id=item.id,
                kind="rank",
                prompt=query_prompt(item, self._shots[item.id]),
                answer_suffix=ANSWER_SUFFIX,
                top_k=DEFAULT_TOP_K,
                targets=item.accepted,
            )
        ]

    def score(self, item: Analogy, responses: Sequence[Response]) -> Score:
        response = responses[0]
        unscorable_correct = False if self.oov_policy == "wrong" else None
        if response.error is not None:
            oov = response.failure == Failure.OUT_OF_VOCABULARY
            return Score(
                item.id,
                unscorable_correct if oov else None,
                0.0,
                None,
                Failure.OUT_OF_VOCABULARY.value if oov else Failure.REQUEST_FAILED.value,
                {"error": response.error},
            )
        if len(response.target_ranks) != len(item.accepted):
            raise ValueError(
                f"{item.id}: the model returned {len(response.target_ranks)} target "
                f"ranks for {len(item.accepted)} targets"
            )
        known = response.target_known or (True,) * len(item.accepted)
        ranks = [r for r, k in zip(response.target_ranks, known) if k]
        if not ranks:
            return Score(item.id, unscorable_correct, 0.0, None, "answer_out_of_vocabulary", {})
        outcome = rank_outcome(ranks)
        top = response.ranked[0].text if response.ranked else None
        if outcome.rank == 1:
            error_class = "correct"
        elif outcome.rank is not None:
            error_class = "in_top_k"
        elif top is not None and top.strip().lower() in {
            w.lower() for term in (item.a, item.b, item.c) for w in term.split()
        }:
            # Diagnosis only: the top answer echoes a word of the question ("nucleus is like
            # nucleus").
            error_class = "question_word"
        else:
            error_class = "not_in_top_k"
        return Score(
            item.id,
            outcome.rank == 1,
            outcome.reciprocal_rank,
            top,
            error_class,
            {
                "rank": outcome.rank,
                "recall_at_5": outcome.recall_at_5,
                "recall_at_10": outcome.recall_at_10,
            },
        )

    def sample(
        self,
        item: Analogy,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        response = responses[0]
        return {
            **item.to_dict(),
            "prompt": requests[0].prompt,
            "shots": [s.id for s in self._shots.get(item.id, ())],
            "targets": list(requests[0].targets),
            "target_ranks": list(response.target_ranks),
            "ranked": [[t.token_id, t.text, round(t.logprob, 6)] for t in response.ranked],
            "answer": score.answer,
            "rank": score.details.get("rank"),
            "recall_at_5": score.details.get("recall_at_5"),
            "recall_at_10": score.details.get("recall_at_10"),
            "correct": score.correct,
            "value": score.value,
            "error_class": score.error_class,
            "error": response.error,
        }

    def summarize(self, items: Sequence[Analogy], scores: Sequence[Score]) -> dict[str, Any]:
        results = summarize(
            self.name,
            items,
            scores,
            cluster_label=self.cluster_label,
            per_mapping=len({i.mapping for i in items}) <= 100,
        )
        results["request_kind"] = self.request_kind
        results["method"] = self.method
        results["shots"] = self.shots
        return results

    def report(self, results: Mapping[str, Any]) -> str:
        return report_markdown(results)

    def figures(self, results: Mapping[str, Any], folder: Path) -> list[Path]:
        return [
            mrr_figure(
                folder / "figures" / "mrr_by_type.png",
                {"": results},
                title=f"{self.name}: MRR@10 by type",
            )
        ]


def request_kind_for(model: Any, method: str | None) -> tuple[str, str | None]:
    """("analogy", method) for word vectors (3CosAdd unless named), ("rank", None) for a model
    that ranks next tokens; an error naming the model when it does neither."""
    if model.supports("analogy"):
        return "analogy", method or "3cosadd"
    if method is not None:
        raise ValueError(f"--method applies to word-vector models; {model.name} ranks next tokens")
    if model.supports("rank"):
        return "rank", None
    raise ValueError(
        f"{model.name} can neither rank next tokens nor answer word-vector "
        "analogy queries, so it cannot run a ranking analogy set"
    )
