"""How well LAMBDA's error taxonomy agrees with hand labels: per class, with Wilson intervals,
and the full confusion matrix.

Two label files exist (tests/fixtures/lambda/): `taxonomy_labels.jsonl`, the 288 rows the
rules were developed on, and `taxonomy_validation.jsonl`, 260 fresh wrong answers labelled
before the classifier ever ran on them (a first `"kind": "meta"` line says who labelled,
when and how), split at random into set A (measured first, then development data) and set B
(kept untouched for the final measurement). `load_labelled` reads either.

>>> from lexbench.benchmarks.lambda_.taxonomy import ERROR_CLASSES
>>> table = Agreement(labels=("other", "other", "semantic_drift"),
...                   predicted=("other", "semantic_drift", "other"))
>>> table.recall("other").estimate, table.precision("other").estimate
(0.5, 0.5)
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.lambda_.drift import DriftFinder
from lexbench.benchmarks.lambda_.items import LambdaItem
from lexbench.benchmarks.lambda_.taxonomy import ERROR_CLASSES, classify
from lexbench.stats import Interval, wilson_interval

ROW_FIELDS = ("id", "relation", "query", "support", "candidates", "output", "label")


@dataclass(frozen=True)
class LabelledAnswer:
    """One wrong answer and the class a person gave it. `part` is the row's set ("A", "B")
    or split ("development")."""

    id: str
    relation: str
    query: str
    support: tuple[tuple[str, str], tuple[str, str]]
    candidates: tuple[str, ...]
    output: str
    label: str
    part: str
    why: str = ""

    def item(self) -> LambdaItem:
        return LambdaItem(
            id=self.id,
            relation=self.relation,
            support=self.support,
            query=self.query,
            gold="",
            candidates=self.candidates,
            query_pos="",
            query_length=len(self.query),
        )


def _answer(row: dict[str, Any], where: str) -> LabelledAnswer:
    missing = [name for name in ROW_FIELDS if name not in row]
    if missing:
        raise ValueError(f"{where}: the row lacks {', '.join(missing)}")
    if row["label"] not in ERROR_CLASSES:
        raise ValueError(
            f"{where}: label {row['label']!r} is not a class ({', '.join(ERROR_CLASSES)})"
        )
    try:
        (a, b), (c, d) = row["support"]
    except (TypeError, ValueError):
        raise ValueError(f"{where}: support must be two pairs, got {row['support']!r}") from None
    return LabelledAnswer(
        id=row["id"],
        relation=row["relation"],
        query=row["query"],
        support=((a, b), (c, d)),
        candidates=tuple(row["candidates"]),
        output=row["output"],
        label=row["label"],
        part=str(row.get("set", row.get("split", ""))),
        why=row.get("why", ""),
    )


def load_labelled(path: str | Path) -> tuple[dict[str, Any], list[LabelledAnswer]]:
    """The file's meta line (empty when it has none) and its labelled rows, in file order."""
    meta: dict[str, Any] = {}
    rows = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{where}: not JSON ({error.msg})") from None
        if row.get("kind") == "meta":
            meta = row
        else:
            rows.append(_answer(row, where))
    return meta, rows


def classify_rows(
    rows: Sequence[LabelledAnswer], index: Any, drift: DriftFinder | None
) -> list[str]:
    """The class the taxonomy gives each row; a row it scores as right is an error."""
    out = []
    for row in rows:
        support = [w for pair in row.support for w in pair]
        verdict = classify(row.output, row.query, row.candidates, support, index, drift)
        if verdict.correct:
            raise ValueError(f"{row.id} {row.output!r}: labelled wrong, but scored right")
        out.append(verdict.error_class)
    return out


@dataclass(frozen=True)
class Agreement:
    """Hand labels against the classifier's classes, row by row."""

    labels: tuple[str, ...]
    predicted: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.predicted):
            raise ValueError(f"{len(self.labels)} labels but {len(self.predicted)} predictions")

    def confusion(self) -> Counter[tuple[str, str]]:
        """(hand label, classifier's class) -> rows."""
        return Counter(zip(self.labels, self.predicted))

    def recall(self, label: str) -> Interval:
        """Share of the rows labelled `label` that the classifier files under it."""
        rows = [p for lab, p in zip(self.labels, self.predicted) if lab == label]
        return wilson_interval(sum(p == label for p in rows), len(rows))

    def precision(self, label: str) -> Interval:
        """Share of the rows the classifier files under `label` that carry that label."""
        rows = [lab for lab, p in zip(self.labels, self.predicted) if p == label]
        return wilson_interval(sum(lab == label for lab in rows), len(rows))

    def overall(self) -> Interval:
        hits = sum(lab == p for lab, p in zip(self.labels, self.predicted))
        return wilson_interval(hits, len(self.labels))


def _share(interval: Interval, hits: int) -> str:
    if interval.n == 0:
        return "n/a"  # nothing labelled (docs/comparing-and-reporting.md)
    return (
        f"{hits}/{interval.n} = {interval.estimate:.0%} [{interval.low:.0%}, {interval.high:.0%}]"
    )


def render_agreement(agreement: Agreement, title: str) -> str:
    """Per class (recall = agreement with the hand label, and precision, Wilson 95%), then
    the confusion matrix, as Markdown tables."""
    confusion = agreement.confusion()
    classes = [c for c in ERROR_CLASSES if c in set(agreement.labels) | set(agreement.predicted)]
    lines = [
        f"### {title}",
        "",
        "| hand label | rows | recall (agreement), Wilson 95% | precision, Wilson 95% |",
        "|---|---:|---|---|",
    ]
    for label in classes:
        recall, precision = agreement.recall(label), agreement.precision(label)
        lines.append(
            f"| {label} | {recall.n} | {_share(recall, confusion[label, label])} | "
            f"{_share(precision, confusion[label, label])} |"
        )
    overall = agreement.overall()
    hits = sum(confusion[c, c] for c in classes)
    lines += [f"| **all** | {overall.n} | {_share(overall, hits)} | |", ""]
    short = {c: c.replace("_", " ") for c in classes}
    lines += [
        "| hand label \\ classifier | " + " | ".join(short[c] for c in classes) + " |",
        "|---|" + "---:|" * len(classes),
    ]
    for label in classes:
        cells = [str(confusion[label, p]) if confusion[label, p] else "·" for p in classes]
        lines.append(f"| {short[label]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class RandomAnswerCheck:
    """A check that reads no labels: random common words given as answers to real items,
    and how many of them the taxonomy files as semantic drift. Almost no such word is
    related in meaning to the query, so the rate bounds how loose the drift rule is."""

    pairs: int
    drift: int
    examples: tuple[tuple[str, str, str], ...]  # (query, random answer, reason), first ten

    @property
    def rate(self) -> Interval:
        return wilson_interval(self.drift, self.pairs)


def random_answer_check(
    rows: Sequence[LabelledAnswer],
    vocabulary: Sequence[str],
    index: Any,
    drift: DriftFinder | None,
    pairs: int = 1000,
    seed: int = 0,
) -> RandomAnswerCheck:
    """`pairs` (item, random word) draws with `random.Random(seed)` over the distinct items
    of `rows` (sorted by id) and the sorted `vocabulary`; a word of R(E) or the query itself
    is drawn again."""
    if not rows or not vocabulary:
        raise ValueError("the random-answer check needs at least one item and one word")
    items = sorted({row.id: row for row in rows}.values(), key=lambda row: row.id)
    words = sorted(set(vocabulary))
    for row in items:  # else drawing a word that is neither query nor answer never ends
        if set(words) <= {row.query, *row.candidates}:
            raise ValueError(
                f"the random-answer check needs a word other than {row.id}'s query and answers"
            )
    rng = random.Random(seed)
    filed = 0
    examples: list[tuple[str, str, str]] = []
    for _ in range(pairs):
        row = rng.choice(items)
        word = rng.choice(words)
        while word == row.query or word in row.candidates:
            word = rng.choice(words)
        support = [w for pair in row.support for w in pair]
        verdict = classify(" " + word, row.query, row.candidates, support, index, drift)
        if verdict.error_class == "semantic_drift":
            filed += 1
            if len(examples) < 10:
                examples.append((row.query, word, verdict.reason))
    return RandomAnswerCheck(pairs=pairs, drift=filed, examples=tuple(examples))


def common_words(index: Any, first_rank: int = 1000, last_rank: int = 20000) -> list[str]:
    """English words of wordfreq's frequency ranks [first_rank, last_rank) that are WordNet
    lemmas, alphabetic and 4+ letters long (needs the `words` extra)."""
    try:
        from wordfreq import top_n_list
    except ImportError:
        raise RuntimeError("the random-answer check needs wordfreq: pip install wordfreq") from None
    ranked = top_n_list("en", last_rank)[first_rank:]
    return sorted({w for w in ranked if w.isalpha() and len(w) >= 4 and w in index.pos})
