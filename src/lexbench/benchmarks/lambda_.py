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
  capitalised.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lexbench.lexicon.wordnet import PAPER_RELATIONS, RelationIndex
from lexbench.text import edit_distance, normalise, words
from lexbench.types import Decoding, Request, Response, Score

PROFILES = ("strict", "listing")
PROTOCOLS = ("paper", "word")
PROMPT_STYLES = ("paper", "completion")
# The answer-only guard. Strict on purpose: no reasoning, no relation named.
ANSWER_GUARD = "Answer with exactly one word that completes the last line. Do not explain."
_STRICT_WORD = re.compile(r"[a-z]{4,15}")
# "word" protocol: decode until the first whole word ends, but never more than this.
WORD_PROTOCOL_MAX_TOKENS = 8
ERROR_CLASSES = ("identity_echo", "surface_misfire", "semantic_drift", "support_copy",
                 "no_answer", "other")


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
        if config.profile == "strict":
            tokens = (a, b, c, d, e, f)
            if len({t.lower() for t in tokens}) < 6 or has_substring_clash(tokens):
                continue
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


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
    """The prompt. `paper`: the three lines, then the guard (as published). `completion`:
    the guard first, so the prompt ends at `E :` and a base LM's continuation is the answer.
    """
    (a, b), (c, d) = item.support
    lines = f"{a} : {b}\n{c} : {d}\n{item.query} :"
    if style == "paper":
        return f"{lines}\n{ANSWER_GUARD}\n"
    if style == "completion":
        return f"{ANSWER_GUARD}\n{lines}"
    raise ValueError(f"unknown prompt style {style!r}; choose from {', '.join(PROMPT_STYLES)}")


def decoding_for(protocol: str) -> Decoding:
    """`paper`: greedy, max_new_tokens=2 as published. `word`: greedy until the first whole
    word is complete (two tokens cut long words short)."""
    if protocol == "paper":
        return Decoding(max_new_tokens=2, temperature=0.0)
    if protocol == "word":
        return Decoding(max_new_tokens=WORD_PROTOCOL_MAX_TOKENS, temperature=0.0,
                        stop_at_word_end=True)
    raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")


# ------------------------------------------------------------------------------ scoring

# WordNet's morphological detachment rules (morphy), used to recognise inflected forms.
_DETACHMENT = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
               ("shes", "sh"), ("men", "man"), ("ies", "y"), ("es", "e"), ("es", ""),
               ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""),
               ("er", "e"), ("est", "e"), ("ly", ""), ("ily", "y"))


def base_forms(word: str, exceptions: Mapping[str, Sequence[str]]) -> set[str]:
    """The word and every form WordNet's detachment rules or exception lists reduce it to."""
    forms = {word, *exceptions.get(word, ())}
    for suffix, replacement in _DETACHMENT:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: len(word) - len(suffix)]
            forms.add(stem + replacement)
            # running -> runn -> run, bigger -> bigg -> big: undo consonant doubling.
            if not replacement and len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
                forms.add(stem[:-1])
    return forms


def is_surface_variant(answer: str, query: str, exceptions: Mapping[str, Sequence[str]]) -> bool:
    """An inflected or otherwise surface-changed form of the query (cat -> cats).

    Three tests, any one suffices: the two share a base form under WordNet's morphology;
    they share a long common prefix (all but one letter of the shorter word, at least 4);
    or they differ by one edit and are at least 5 letters long (a misspelt echo).
    """
    if answer == query:
        return False
    if base_forms(answer, exceptions) & base_forms(query, exceptions):
        return True
    shorter = min(len(answer), len(query))
    common = 0
    for x, y in zip(answer, query):
        if x != y:
            break
        common += 1
    if shorter >= 4 and common >= max(4, shorter - 1):
        return True
    return shorter >= 5 and edit_distance(answer, query, limit=1) <= 1


@dataclass(frozen=True)
class Verdict:
    answer: str
    correct: bool
    error_class: str                    # "correct" or one of ERROR_CLASSES


def parse_and_score(output: str, item: LambdaItem, index: RelationIndex | None) -> Verdict:
    """Score a raw model output against R(E).

    The answer is the first normalised word of the output; a multi-word candidate ("hot
    dog") also matches when the output begins with all of its words. Wrong answers are
    classified in order: no_answer, identity_echo, surface_misfire, semantic_drift (linked
    to the query in WordNet by any indexed relation, in either direction, but not in R(E)),
    support_copy (repeats a support word), other. Without an index (re-scoring offline),
    semantic drift cannot be told apart and falls under support_copy/other.
    """
    said = words(output)
    if not said:
        return Verdict("", False, "no_answer")
    for candidate in sorted({normalise(c) for c in item.candidates}, key=len, reverse=True):
        parts = candidate.split()
        if parts and said[: len(parts)] == parts:
            return Verdict(candidate, True, "correct")
    answer = said[0]
    query = normalise(item.query)
    if answer == query:
        return Verdict(answer, False, "identity_echo")
    exceptions = index.exceptions if index is not None else {}
    if is_surface_variant(answer, query, exceptions):
        return Verdict(answer, False, "surface_misfire")
    if index is not None and wordnet_linked(index, answer, item.query):
        return Verdict(answer, False, "semantic_drift")
    supports = {normalise(w) for pair in item.support for w in pair}
    if answer in supports:
        return Verdict(answer, False, "support_copy")
    return Verdict(answer, False, "other")


def wordnet_linked(index: RelationIndex, answer: str, query: str) -> bool:
    """True when any indexed relation links the two words, in either direction."""
    if answer in {normalise(w) for w in index.all_related(query)}:
        return True
    lemma = answer.replace(" ", "_")
    return normalise(query) in {normalise(w) for w in index.all_related(lemma)}


# ------------------------------------------------------------------------------ benchmark


@dataclass
class LambdaBenchmark:
    """LAMBDA as a `Benchmark`: items, requests, score, summarize, report."""

    dataset: list[LambdaItem]
    index: RelationIndex | None
    protocol: str = "paper"
    prompt_style: str = "paper"
    dataset_config: dict[str, Any] = field(default_factory=dict)
    name: str = "lambda"

    def __post_init__(self) -> None:
        decoding_for(self.protocol)  # validates
        if self.prompt_style not in PROMPT_STYLES:
            raise ValueError(f"unknown prompt style {self.prompt_style!r}")

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dataset": self.dataset_config,
            "dataset_sha256": _sha256(dumps_items(self.dataset)),
            "items": len(self.dataset),
            "protocol": self.protocol,
            "prompt_style": self.prompt_style,
            "decoding": decoding_for(self.protocol).to_dict(),
            "answer_guard": ANSWER_GUARD,
        }

    def items(self) -> list[LambdaItem]:
        return self.dataset

    def requests(self, item: LambdaItem) -> list[Request]:
        text = prompt_text(item, self.prompt_style)
        return [Request(id=item.id, kind="generate", prompt=text,
                        decoding=decoding_for(self.protocol))]

    def score(self, item: LambdaItem, responses: Sequence[Response]) -> Score:
        response = responses[0]
        if response.error is not None:
            return Score(item.id, None, 0.0, None, "request_failed", {"error": response.error})
        verdict = parse_and_score(response.text, item, self.index)
        return Score(item.id, verdict.correct, float(verdict.correct), verdict.answer,
                     verdict.error_class)

    def sample(self, item: LambdaItem, requests: Sequence[Request],
               responses: Sequence[Response], score: Score) -> dict[str, Any]:
        return {
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

    def summarize(self, items: Sequence[LambdaItem], scores: Sequence[Score]) -> dict[str, Any]:
        from lexbench.benchmarks.lambda_analysis import summarize

        return summarize(items, scores)

    def report(self, results: Mapping[str, Any]) -> str:
        from lexbench.benchmarks.lambda_analysis import report_markdown

        return report_markdown(results)


def rescore(samples: Sequence[Mapping[str, Any]], index: RelationIndex | None) -> list[Score]:
    """Score a run's samples.jsonl again from the raw outputs (after a scorer change)."""
    bench = LambdaBenchmark(dataset=[], index=index)
    scores = []
    for row in samples:
        item = LambdaItem.from_dict(row)
        response = Response(request_id=item.id, text=row.get("output") or "",
                            error=row.get("error"))
        scores.append(bench.score(item, [response]))
    return scores
