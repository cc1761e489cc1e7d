"""Two-shot hypernym analogies from WordNet 3.0: an example lexbench plugin.

Everything a benchmark needs is here: items generated deterministically (a sorted
vocabulary, a seeded `random.Random`), one `generate` request per item, a scorer that never
calls a model, a summary with a Wilson interval, and the `BenchmarkSpec` its entry point
names. lexbench's command line, `run all`, report, leaderboard, compare, rescore and export
use it through that spec alone.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.benchmarks.base import BenchmarkSpec, SuiteEntry
from lexbench.parts import interval_text, pct
from lexbench.stats import wilson_interval
from lexbench.types import Decoding, Request, Response, Score

INSTRUCTION = "Complete the last line with one word."
DECODING = Decoding(max_new_tokens=4, temperature=0.0, stop=("\n",))
_WORD = re.compile(r"[a-z]+")
_VOCABULARY_WORD = re.compile(r"[a-z]{3,12}")


@dataclass(frozen=True)
class HypernymItem:
    id: str
    support: tuple[tuple[str, str], tuple[str, str]]
    query: str
    gold: str
    accepted: tuple[str, ...]  # every one-word hypernym of the query, sorted

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "support": [list(p) for p in self.support],
            "query": self.query,
            "gold": self.gold,
            "accepted": list(self.accepted),
        }


# Common words only, so the task is about the relation and not about rare vocabulary:
# queries and support words with a Zipf frequency of at least 4 (about once per 10^5
# words), hypernyms of at least 3.5, by wordfreq's English list.
QUERY_ZIPF = 4.0
HYPERNYM_ZIPF = 3.5


def common(word: str, zipf: float) -> bool:
    from wordfreq import zipf_frequency

    return _VOCABULARY_WORD.fullmatch(word) is not None and zipf_frequency(word, "en") >= zipf


def one_word_hypernyms(index: Any, word: str) -> tuple[str, ...]:
    """Every common one-word hypernym of `word` that is itself first of all a noun, sorted."""
    return tuple(
        sorted(
            h
            for h in index.relation("hypernym", word)
            if index.pos.get(h) == "noun" and common(h, HYPERNYM_ZIPF)
        )
    )


def generate_items(index: Any, count: int, seed: int) -> list[HypernymItem]:
    """`count` items: common nouns with a common one-word hypernym, from a sorted pool."""
    pool = sorted(
        w
        for w in index.lemma_names
        if index.pos.get(w) == "noun" and common(w, QUERY_ZIPF) and one_word_hypernyms(index, w)
    )
    rng = random.Random(f"hypernyms:{seed}")
    items = []
    for number in range(count):
        a, b, query = rng.sample(pool, 3)
        ha, hb = rng.choice(one_word_hypernyms(index, a)), rng.choice(one_word_hypernyms(index, b))
        accepted = one_word_hypernyms(index, query)
        items.append(
            HypernymItem(
                f"hypernyms-{seed}-{number:05d}",
                ((a, ha), (b, hb)),
                query,
                rng.choice(accepted),
                accepted,
            )
        )
    return items


def prompt_text(item: HypernymItem) -> str:
    lines = [f"{x} is a kind of {y}" for x, y in item.support]
    return "\n".join([INSTRUCTION, *lines, f"{item.query} is a kind of"])


@dataclass
class HypernymBenchmark:
    dataset: list[HypernymItem]
    dataset_config: dict[str, Any]
    name: str = "hypernyms"

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dataset": self.dataset_config,
            "items": len(self.dataset),
            "instruction": INSTRUCTION,
            "decoding": DECODING.to_dict(),
        }

    def items(self) -> list[HypernymItem]:
        return self.dataset

    def requests(self, item: HypernymItem) -> list[Request]:
        return [Request(id=item.id, kind="generate", prompt=prompt_text(item), decoding=DECODING)]

    def score(self, item: HypernymItem, responses: Sequence[Response]) -> Score:
        response = responses[0]
        if response.error is not None:
            return Score(item.id, None, 0.0, None, "request_failed", {"error": response.error})
        words = _WORD.findall(response.text.lower())
        if not words:
            return Score(item.id, False, 0.0, None, "no_answer")
        right = words[0] in item.accepted
        return Score(
            item.id,
            right,
            float(right),
            words[0],
            "correct" if right else ("echo" if words[0] == item.query else "wrong"),
        )

    def sample(
        self,
        item: HypernymItem,
        requests: Sequence[Request],
        responses: Sequence[Response],
        score: Score,
    ) -> dict[str, Any]:
        return {
            **item.to_dict(),
            "prompt": requests[0].prompt,
            "output": responses[0].text,
            "answer": score.answer,
            "correct": score.correct,
            "value": score.value,
            "error_class": score.error_class,
        }

    def summarize(self, items: Sequence[HypernymItem], scores: Sequence[Score]) -> dict[str, Any]:
        scored = [s for s in scores if s.correct is not None]
        right = sum(1 for s in scored if s.correct)
        classes: dict[str, int] = {}
        for s in scores:
            classes[s.error_class] = classes.get(s.error_class, 0) + 1
        return {
            "benchmark": self.name,
            "items": len(items),
            "scored": len(scored),
            "overall": wilson_interval(right, len(scored)).to_dict(),
            "error_classes": dict(sorted(classes.items())),
        }

    def report(self, results: Mapping[str, Any]) -> str:
        overall = results["overall"]
        lines = [
            "# Hypernym analogies",
            "",
            "| items | scored | accuracy % | Wilson 95% |",
            "|---:|---:|---:|---|",
            # lexbench's own number formats: "n/a" where nothing was scored, never "nan"
            f"| {results['items']} | {results['scored']} | {pct(overall['estimate'])} "
            f"| {interval_text(overall['low'], overall['high'], pct)} |",
            "",
            "Error classes: " + ", ".join(f"{k} {v}" for k, v in results["error_classes"].items()),
        ]
        return "\n".join(lines) + "\n"


def build(
    model: Any,
    *,
    count: int = 200,
    seed: int = 0,
    limit: int | None = None,
    wordnet: str | None = None,
) -> HypernymBenchmark:
    """The benchmark for one run; `model` is asked nothing (only generate is needed)."""
    from lexbench.lexicon.wordnet import load_index

    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    items = generate_items(load_index(wordnet, progress=False), count, seed)
    return HypernymBenchmark(
        items[:limit] if limit else items, {"count": count, "seed": seed, "limit": limit}
    )


BENCHMARK = BenchmarkSpec(
    name="hypernyms",
    description="two-shot hypernym analogies from WordNet 3.0 (example plugin)",
    build=build,
    needs_any=("generate",),
    suite=SuiteEntry(order=100),
    question_fields={"hypernyms": ("support", "query")},
)
