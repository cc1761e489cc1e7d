"""SAT-style multiple-choice analogies (a : b :: which c : d?): items, readers, benchmark."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.tables import report_markdown, summarize
from lexbench.types import Failure, PairChoiceQuery, Request, Response, Score

# A stem or choice line of Turney's SAT format: two words, then their parts of speech.
_PAIR_LINE = re.compile(r"^\S+\s+\S+\s+[a-z]+:[a-z]+\s*$")


@dataclass(frozen=True)
class ChoiceAnalogy:
    """a : b :: ? — pick the pair among `choices` that stands in the same relation."""

    id: str
    a: str
    b: str
    choices: tuple[tuple[str, str], ...]
    answer: int
    type: str = "all"
    mapping: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "a": self.a,
            "b": self.b,
            "choices": [list(c) for c in self.choices],
            "answer": self.answer,
            "type": self.type,
            "mapping": self.mapping,
        }


def _choice_item(
    number: int,
    a: str,
    b: str,
    choices: Sequence[Sequence[str]],
    answer: int,
    kind: str,
    source: str,
) -> ChoiceAnalogy:
    pairs = tuple((str(c), str(d)) for c, d in choices)
    if len(pairs) < 2 or not 0 <= answer < len(pairs):
        raise ValueError(
            f"{source}: question {number} needs two or more choices and an answer "
            f"index among them (got {len(pairs)} choices, answer {answer})"
        )
    item_id = f"q{number:04d}"
    return ChoiceAnalogy(item_id, a, b, pairs, answer, kind or "all", item_id)


def read_choice_file(path: str | Path) -> list[ChoiceAnalogy]:
    """SAT-style multiple-choice analogies by path, in either of two formats:

    * JSON lines `{"stem": [a, b], "choice": [[c, d], ...], "answer": i}` (0-based; an
      optional "prefix" or "relation" becomes the type) — the format of the public
      analogy-question collections (SAT, U2, U4, ...);
    * Turney's SAT text format: blocks of a source line, the stem "a b pos:pos", the choices
      one per line, then the answer letter, blocks separated by blank lines, `#` comments.

    Each question is its own cluster (these sets carry no relation labels)."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no multiple-choice analogy file at {path}")
    text = path.read_text(encoding="utf-8")
    items: list[ChoiceAnalogy] = []
    if text.lstrip().startswith("{"):
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                a, b = row["stem"]
                kind = str(row.get("relation") or row.get("prefix") or "all")
                items.append(
                    _choice_item(
                        len(items),
                        a,
                        b,
                        row["choice"],
                        int(row["answer"]),
                        kind,
                        f"{path}:{number}",
                    )
                )
            except (ValueError, KeyError, TypeError) as error:
                if isinstance(error, ValueError) and "question" in str(error):
                    raise
                raise ValueError(
                    f"{path}:{number}: expected a JSON object with stem, choice "
                    f"and answer ({error})"
                ) from None
    else:
        lines = [line.strip() for line in text.splitlines() if not line.startswith("#")]
        blocks: list[list[str]] = [[]]
        for line in lines:
            if line:
                blocks[-1].append(line)
            elif blocks[-1]:
                blocks.append([])
        for block in (b for b in blocks if b):
            if len(block[-1]) != 1 or not block[-1].isalpha():
                if not items and not any(_PAIR_LINE.match(line) for line in block):
                    continue  # a header block before the first question (no pair lines)
                raise ValueError(
                    f"{path}: not a SAT block (source, stem, choices, answer letter): {block[:3]}"
                )
            # The stem is the first "word word pos:pos" line; the lines before it are the
            # source ("ML:1 ..." or a file header glued to the first block): the last of
            # them names the item's type, and none is ever read as a stem.
            stem_at = next((i for i, line in enumerate(block[:-1]) if _PAIR_LINE.match(line)), None)
            if stem_at is None or len(block) - 1 - stem_at < 3:
                raise ValueError(
                    f"{path}: not a SAT block (source, stem, two or more choices, "
                    f"answer letter): {block[:3]}"
                )
            pairs = [line.split()[:2] for line in block[stem_at:-1]]
            if any(len(pair) != 2 for pair in pairs):
                raise ValueError(f"{path}: a stem or choice line lacks two words in {block[:3]}")
            answer = ord(block[-1].lower()) - ord("a")
            source = block[stem_at - 1] if stem_at else "all"
            items.append(
                _choice_item(
                    len(items), pairs[0][0], pairs[0][1], pairs[1:], answer, source, str(path)
                )
            )
    if not items:
        raise ValueError(f"{path}: no questions found")
    return items


@dataclass
class ChoiceAnalogyBenchmark:
    """Multiple-choice analogies: word vectors score the choices with a method (pairdiff by
    default) through a `PairChoiceQuery`; a language model ranks them by
    log P(" c is like d." | "If a is like b, then") (summed over tokens; the per-token mean is
    kept in each sample too)."""

    name: str
    dataset: list[ChoiceAnalogy]
    request_kind: str = "loglikelihood"  # or "analogy" for word vectors
    method: str | None = None
    dataset_config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.request_kind not in ("loglikelihood", "analogy"):
            raise ValueError(
                f"multiple-choice analogies need loglikelihood or analogy requests, "
                f"not {self.request_kind!r}"
            )
        if self.request_kind == "analogy" and self.method is None:
            self.method = "pairdiff"
        if self.request_kind == "loglikelihood" and self.method is not None:
            raise ValueError("--method applies to word-vector models")

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dataset": self.dataset_config,
            "items": len(self.dataset),
            "request_kind": self.request_kind,
            "method": self.method,
            "template": "If a is like b, then | c is like d.",
        }

    def items(self) -> list[ChoiceAnalogy]:
        return self.dataset

    def requests(self, item: ChoiceAnalogy) -> list[Request]:
        if self.request_kind == "analogy":
            query = PairChoiceQuery(item.a, item.b, item.choices, method=self.method or "pairdiff")
            return [Request(id=item.id, kind="analogy", query=query, top_k=len(item.choices))]
        return [
            Request(
                id=item.id,
                kind="loglikelihood",
                prompt=f"If {item.a} is like {item.b}, then",
                continuations=tuple(f" {c} is like {d}." for c, d in item.choices),
            )
        ]

    def _order(self, response: Response) -> list[int]:
        scores = (
            response.choice_scores if self.request_kind == "analogy" else response.loglikelihoods
        )
        return sorted(
            (i for i in range(len(scores)) if math.isfinite(scores[i])),
            key=lambda i: (-scores[i], i),
        )

    def score(self, item: ChoiceAnalogy, responses: Sequence[Response]) -> Score:
        response = responses[0]
        if response.error is not None:
            failure = response.failure or Failure.REQUEST_FAILED
            return Score(item.id, None, 0.0, None, failure.value, {"error": response.error})
        order = self._order(response)
        rank = order.index(item.answer) + 1 if item.answer in order else None
        chosen = order[0] if order else None
        return Score(
            item.id,
            rank == 1,
            1.0 / rank if rank else 0.0,
            ":".join(item.choices[chosen]) if chosen is not None else None,
            "correct" if rank == 1 else "wrong_choice",
            {
                "rank": rank,
                "recall_at_5": float(rank is not None and rank <= 5),
                "recall_at_10": float(rank is not None and rank <= 10),
                "order": order,
            },
        )

    def sample(
        self,
        item: ChoiceAnalogy,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        response = responses[0]
        per_token = [
            lp / max(1, n) for lp, n in zip(response.loglikelihoods, response.continuation_tokens)
        ]
        return {
            **item.to_dict(),
            "prompt": requests[0].prompt,
            "order": score.details.get("order"),
            "scores": list(response.choice_scores or response.loglikelihoods),
            "per_token_loglikelihoods": per_token,
            "answer_given": score.answer,
            "rank": score.details.get("rank"),
            "correct": score.correct,
            "value": score.value,
            "error_class": score.error_class,
            "error": response.error,
        }

    def summarize(self, items: Sequence[ChoiceAnalogy], scores: Sequence[Score]) -> dict[str, Any]:
        return summarize(
            self.name,
            items,
            scores,
            cluster_label="question",
            per_mapping=False,
            metrics=("acc_at_1", "mrr"),
        )

    def report(self, results: Mapping[str, Any]) -> str:
        return report_markdown(results, title=f"{self.name.upper()} (multiple choice)")


def choice_request_kind(model: Any, method: str | None) -> str:
    """ "analogy" for word vectors, "loglikelihood" for a language model that scores
    continuations; an error naming the model when it does neither (a masked LM)."""
    if model.supports("analogy"):
        return "analogy"
    if method is not None:
        raise ValueError(
            f"--method applies to word-vector models; {model.name} is a language model"
        )
    if model.supports("loglikelihood"):
        return "loglikelihood"
    raise ValueError(
        f"multiple-choice analogies need a model that scores continuations or word "
        f"vectors; {model.name} does neither"
    )
