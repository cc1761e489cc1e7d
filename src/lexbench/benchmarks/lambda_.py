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

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from lexbench.benchmarks.lambda_taxonomy import (
    ERROR_CLASSES,
    DriftFinder,
    Verdict,
    base_forms,
    classify,
    drift_finder,
    is_surface_variant,
)
from lexbench.hashing import sha256_text
from lexbench.lexicon.wordnet import PAPER_RELATIONS, RelationIndex
from lexbench.types import Decoding, Request, Response, Score

__all__ = ["ERROR_CLASSES", "Verdict", "base_forms", "is_surface_variant", "parse_and_score"]

PROFILES = ("strict", "listing")
PROTOCOLS = ("paper", "word")
PROMPT_STYLES = ("paper", "completion")
# The answer-only guard. Strict on purpose: no reasoning, no relation named.
ANSWER_GUARD = "Answer with exactly one word that completes the last line. Do not explain."
_STRICT_WORD = re.compile(r"[a-z]{4,15}")
# "word" protocol: decode until the first whole word ends, but never more than this.
WORD_PROTOCOL_MAX_TOKENS = 8


# ------------------------------------------------------------------------------ items


@dataclass(frozen=True)
class LambdaConfig:
    """What defines a LAMBDA dataset. The defaults are the paper's."""

    profile: str = "strict"
    seed: int = 42
    per_relation: int = 1000
    relations: tuple[str, ...] = PAPER_RELATIONS

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; choose from {', '.join(PROFILES)}")
        if self.per_relation < 1:
            raise ValueError(f"per_relation must be at least 1, got {self.per_relation}")
        if not self.relations:
            raise ValueError("at least one relation is needed")
        if len(set(self.relations)) != len(self.relations):
            raise ValueError(f"relations repeat: {self.relations}")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "relations": list(self.relations)}


@dataclass(frozen=True)
class LambdaItem:
    id: str
    relation: str
    support: tuple[tuple[str, str], tuple[str, str]]
    query: str
    gold: str
    candidates: tuple[str, ...]          # R(query), sorted
    query_pos: str                       # part of speech of the query's first sense
    query_length: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "relation": self.relation,
            "support": [list(pair) for pair in self.support],
            "query": self.query, "gold": self.gold, "candidates": list(self.candidates),
            "query_pos": self.query_pos, "query_length": self.query_length,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> LambdaItem:
        try:
            (a, b), (c, d) = row["support"]
            return cls(id=str(row["id"]), relation=str(row["relation"]),
                       support=((str(a), str(b)), (str(c), str(d))), query=str(row["query"]),
                       gold=str(row["gold"]), candidates=tuple(row["candidates"]),
                       query_pos=str(row.get("query_pos", "")),
                       query_length=int(row.get("query_length", len(row["query"]))))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a LAMBDA item row ({error}): {dict(row)!r:.200}") from None


def in_strict_vocabulary(word: str) -> bool:
    """W's filter: lowercase alphabetic, 4 to 15 characters."""
    return _STRICT_WORD.fullmatch(word) is not None


def in_listing_vocabulary(word: str) -> bool:
    """The script's filter: alphabetic lemma names longer than 3 characters."""
    return len(word) > 3 and word.isalpha()


def vocabulary(index: RelationIndex, profile: str) -> list[str]:
    keep = in_strict_vocabulary if profile == "strict" else in_listing_vocabulary
    return [w for w in index.lemma_names if keep(w)]  # lemma_names is sorted


def partners(index: RelationIndex, relation: str, word: str, profile: str) -> tuple[str, ...]:
    """The words B/D/F may be drawn from for `word` (sorted)."""
    related = index.relation(relation, word)
    if profile == "strict":
        return tuple(w for w in related if in_strict_vocabulary(w))
    return related


def has_substring_clash(tokens: Sequence[str]) -> bool:
    lowered = [t.lower() for t in tokens]
    return any(i != j and x in y for i, x in enumerate(lowered) for j, y in enumerate(lowered))


def _draw_relation(index: RelationIndex, relation: str, config: LambdaConfig) -> list[LambdaItem]:
    words_in_w = vocabulary(index, config.profile)
    table = {w: partners(index, relation, w, config.profile) for w in words_in_w}
    eligible = [w for w in words_in_w if table[w]]
    if len(eligible) < 3:
        raise ValueError(f"relation {relation!r} has only {len(eligible)} eligible query words "
                         f"under profile {config.profile!r}; need at least 3")
    # A string seed is hashed with SHA-512 by random.seed: independent of PYTHONHASHSEED.
    rng = random.Random(f"lambda:{config.seed}:{relation}")
    items: list[LambdaItem] = []
    seen: set[tuple[str, str, str]] = set()
    attempts = 0
    budget = 1000 + 200 * config.per_relation
    while len(items) < config.per_relation:
        attempts += 1
        if attempts > budget:
            raise ValueError(f"relation {relation!r}: drew only {len(items)} of "
                             f"{config.per_relation} valid items in {budget} attempts")
        a, c, e = rng.sample(eligible, 3)
        b, d, f = rng.choice(table[a]), rng.choice(table[c]), rng.choice(table[e])
        if (a, c, e) in seen:
            continue
        tokens = (a, b, c, d, e, f)
        if config.profile == "strict":
            if len({t.lower() for t in tokens}) < 6 or has_substring_clash(tokens):
                continue
        elif len(set(tokens)) < 6:
            continue  # the script's own check: six distinct strings (case-sensitive)
        seen.add((a, c, e))
        items.append(LambdaItem(
            id=f"{relation}-{len(items):04d}", relation=relation, support=((a, b), (c, d)),
            query=e, gold=f, candidates=index.relation(relation, e),
            query_pos=index.pos.get(e, ""), query_length=len(e)))
    return items


def generate_items(index: RelationIndex, config: LambdaConfig = LambdaConfig()) -> list[LambdaItem]:
    """Every item of the dataset, relation by relation, in draw order."""
    unknown = [r for r in config.relations if r not in index.related]
    if unknown:
        raise ValueError(f"unknown relation(s) {unknown}; available: {', '.join(index.related)}")
    return [item for relation in config.relations for item in _draw_relation(index, relation, config)]


def dumps_items(items: Sequence[LambdaItem]) -> str:
    return "".join(json.dumps(i.to_dict(), ensure_ascii=False, sort_keys=True) + "\n" for i in items)


def manifest(items: Sequence[LambdaItem], config: LambdaConfig, index: RelationIndex,
             jsonl_text: str) -> dict[str, Any]:
    from lexbench import __version__

    return {
        "benchmark": "lambda",
        "config": config.to_dict(),
        "wordnet_version": index.version,
        "wordnet_fingerprint": index.fingerprint,
        "items": len(items),
        "per_relation": dict(sorted(Counter(i.relation for i in items).items())),
        "content_sha256": _sha256(jsonl_text),
        "lexbench_version": __version__,
    }


_sha256 = sha256_text


def write_items(path: str | Path, items: Sequence[LambdaItem], config: LambdaConfig,
                index: RelationIndex) -> dict[str, Any]:
    """Write FILE (JSONL) and FILE.manifest.json; returns the manifest."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = dumps_items(items)
    path.write_text(text, encoding="utf-8")
    meta = manifest(items, config, index, text)
    Path(f"{path}.manifest.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta


def read_items(path: str | Path) -> list[LambdaItem]:
    from lexbench.run.store import read_item_file

    return read_item_file(path, LambdaItem.from_dict)


# ------------------------------------------------------------------------------ prompts


def prompt_text(item: LambdaItem, style: str = "paper") -> str:
    """The prompt.

    `paper`: the two support lines, the query line `E : ?` and the answer-only guard, as
    published (section 2.3 and the script's `"question": f"{E} : ?"`). `completion`: the
    guard first and the query line `E :` last, so the prompt ends exactly where the answer
    goes and a base or small LM's continuation is the answer; the paper's `?` placeholder
    would ask such a model to continue after a question mark instead.
    """
    (a, b), (c, d) = item.support
    if style == "paper":
        return f"{a} : {b}\n{c} : {d}\n{item.query} : ?\n{ANSWER_GUARD}\n"
    if style == "completion":
        return f"{ANSWER_GUARD}\n{a} : {b}\n{c} : {d}\n{item.query} :"
    raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")


@dataclass(frozen=True)
class Sampling:
    """Sampled decoding for the paper's robustness check (temperature 0.1 and 0.2).

    `samples` independent samples per item; sample k is decoded with seed `seed + k`, so each
    is its own cached request. Greedy (temperature 0) is the paper's protocol and the default.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    samples: int = 1

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if self.greedy and (self.samples > 1 or self.top_p < 1.0):
            raise ValueError("--samples > 1 and --top-p < 1 need --temperature > 0 (greedy "
                             "decoding gives the same answer every time)")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    @property
    def seeds(self) -> tuple[int | None, ...]:
        return (None,) if self.greedy else tuple(self.seed + k for k in range(self.samples))

    def to_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "top_p": self.top_p, "seeds": list(self.seeds),
                "samples": self.samples}


GREEDY = Sampling()


def decoding_for(protocol: str, sampling: Sampling = GREEDY, seed: int | None = None) -> Decoding:
    """`paper`: greedy, max_new_tokens=2 as published. `word`: greedy until the first whole
    word is complete (two tokens cut long words short). `sampling` swaps greedy for seeded
    sampling (the seed goes into the request, so each sample has its own cache entry)."""
    if protocol == "paper":
        base = Decoding(max_new_tokens=2, temperature=0.0)
    elif protocol == "word":
        base = Decoding(max_new_tokens=WORD_PROTOCOL_MAX_TOKENS, temperature=0.0,
                        stop_at_word_end=True)
    else:
        raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    if sampling.greedy:
        return base
    return replace(base, temperature=sampling.temperature, top_p=sampling.top_p,
                   seed=sampling.seeds[0] if seed is None else seed)


# ------------------------------------------------------------------------------ scoring


def parse_and_score(output: str, item: LambdaItem, index: RelationIndex | None,
                    drift: DriftFinder | None = None) -> Verdict:
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

    def __post_init__(self) -> None:
        decoding_for(self.protocol)  # validates
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"unknown prompt style {self.prompt_style!r}")
        self.sampling = Sampling(temperature=self.temperature, top_p=self.top_p,
                                 seed=self.sampling_seed, samples=self.samples)

    def _drift(self) -> DriftFinder | None:
        if self.drift is None and self.index is not None:
            self.drift = drift_finder(self.index)
        return self.drift

    def config(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "dataset": self.dataset_config,
            "dataset_sha256": _sha256(dumps_items(self.dataset)),
            "items": len(self.dataset),
            "protocol": self.protocol,
            "prompt_style": self.prompt_style,
            "decoding": decoding_for(self.protocol, self.sampling).to_dict(),
            "answer_guard": ANSWER_GUARD,
        }
        if not self.sampling.greedy:  # greedy configs (and their run folders) stay as before
            out["sampling"] = self.sampling.to_dict()
        return out

    def items(self) -> list[LambdaItem]:
        return self.dataset

    def requests(self, item: LambdaItem) -> list[Request]:
        text = prompt_text(item, self.prompt_style)
        if self.sampling.greedy:
            return [Request(id=item.id, kind="generate", prompt=text,
                            decoding=decoding_for(self.protocol))]
        return [Request(id=f"{item.id}@seed{seed}", kind="generate", prompt=text,
                        decoding=decoding_for(self.protocol, self.sampling, seed))
                for seed in self.sampling.seeds]

    def score(self, item: LambdaItem, responses: Sequence[Response]) -> Score:
        drift = self._drift()
        per_sample = []
        for seed, response in zip(self.sampling.seeds, responses):
            if response.error is not None:
                per_sample.append({"seed": seed, "answer": None, "correct": None,
                                   "error_class": "request_failed"})
                continue
            verdict = parse_and_score(response.text, item, self.index, drift)
            per_sample.append({"seed": seed, "answer": verdict.answer, "correct": verdict.correct,
                               "error_class": verdict.error_class})
        first = per_sample[0]
        details: dict[str, Any] = {"samples": per_sample} if not self.sampling.greedy else {}
        if first["correct"] is None:
            return Score(item.id, None, 0.0, None, "request_failed",
                         {**details, "error": responses[0].error})
        return Score(item.id, first["correct"], float(first["correct"]), first["answer"],
                     first["error_class"], details)

    def sample(self, item: LambdaItem, requests: Sequence[Request],
               responses: Sequence[Response], score: Score) -> dict[str, Any]:
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
        if not self.sampling.greedy:
            row["samples"] = [{**verdict, "output": response.text,
                               "generated_tokens": response.generated_tokens,
                               "error": response.error}
                              for verdict, response in zip(score.details["samples"], responses)]
        return row

    def summarize(self, items: Sequence[LambdaItem], scores: Sequence[Score]) -> dict[str, Any]:
        from lexbench.benchmarks.lambda_analysis import summarize

        results = summarize(items, scores)
        drift = self._drift()
        results["error_taxonomy_drift_signals"] = drift.signals if drift else []
        if not self.sampling.greedy:
            results["sampling"] = {**self.sampling.to_dict(), **results.get("sampling", {})}
        return results

    def report(self, results: Mapping[str, Any]) -> str:
        from lexbench.benchmarks.lambda_analysis import report_markdown

        return report_markdown(results)


def rescore(samples: Sequence[Mapping[str, Any]], index: RelationIndex | None,
            drift: DriftFinder | None = None) -> list[Score]:
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
            sampling = {"temperature": 1.0, "sampling_seed": sampled[0]["seed"],
                        "samples": len(sampled)}
            responses = [Response(request_id=item.id, text=s.get("output") or "",
                                  error=s.get("error")) for s in sampled]
        else:
            sampling = {}
            responses = [Response(request_id=item.id, text=row.get("output") or "",
                                  error=row.get("error"))]
        bench = LambdaBenchmark(dataset=[], index=index, drift=drift, **sampling)
        scores.append(bench.score(item, responses))
    return scores
