"""SetLexSem operands: the four set operations and the samplers that draw A and B.

Every sampler is a pure function of a seeded `random.Random` and sorted inputs, so a given
seed gives the same sets in any process and under any PYTHONHASHSEED. Sets are kept as
tuples in draw order (the order the prompt shows them); ground truth is computed with
Python's set algebra and stored sorted.

Samplers (one per token type):

* numbers: integers uniform in [0, n-1], or with token length L exactly L digits
  ([10^(L-1), 10^L), so L = 3 gives [100, 1000)). A and B are drawn independently.
* words: web2 words (lowercased) of exactly L characters, or of any length.
* deciles: words of length L from one wordfreq frequency decile (see lexicon.words).
* overlap (wraps numbers/words/deciles): B shares exactly floor(m * fraction) members of A;
  its other members are drawn from the pool outside A.
* deceptive: A's members are hyponyms of one WordNet noun synset, B's of another whose
  hyponym vocabulary is disjoint from A's (so neither hypernym lies under the other).
  Conditions: `not_swapped`; `swapped` (the last m/2 members of A and B exchanged, the same
  draws as not_swapped so the two are paired); `random_baseline` (members drawn from the
  pooled hyponym vocabulary, no hypernym structure). Within A ∪ B every member is a single
  lowercase word, none a substring of another, no two within edit distance 2.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

from lexbench.text import edit_distance

Member = Union[int, str]
SetPair = tuple[tuple[Member, ...], tuple[Member, ...]]

OPERATIONS = ("union", "intersection", "difference", "symmetric_difference")
TOKEN_TYPES = ("numbers", "words", "deciles", "deceptive")
DECEPTIVE_CONDITIONS = ("not_swapped", "swapped", "random_baseline")
# The paper keeps only specific hypernyms: at most this many hyponym synsets below them.
MAX_HYPONYM_SYNSETS = 30
# Near-duplicates: members closer than this edit distance are not allowed together.
MIN_EDIT_DISTANCE = 3
HYPONYM_POOL_FORMAT = 1


def ground_truth(operation: str, a: Sequence[Member], b: Sequence[Member]) -> set[Member]:
    """The answer set, by Python's set algebra."""
    left, right = set(a), set(b)
    if operation == "union":
        return left | right
    if operation == "intersection":
        return left & right
    if operation == "difference":
        return left - right
    if operation == "symmetric_difference":
        return left ^ right
    raise ValueError(f"unknown operation {operation!r}; choose from {', '.join(OPERATIONS)}")


def ordered_answer(operation: str, a: Sequence[Member], b: Sequence[Member]) -> list[Member]:
    """The answer in reading order (A's members first, then B's), for demonstrations."""
    answer = ground_truth(operation, a, b)
    out: list[Member] = []
    for member in list(a) + list(b):
        if member in answer and member not in out:
            out.append(member)
    return out


def sort_members(members: Sequence[Member]) -> list[Member]:
    """Numbers before words, each in natural order (a stable canonical form for JSON)."""
    return sorted(members, key=lambda m: (isinstance(m, str), m))


# ------------------------------------------------------------------------------ pools


def number_pool(token_length: int | None, number_range: int) -> range:
    """The integers a numbers sampler draws from."""
    if token_length is None:
        return range(0, number_range)
    return range(10 ** (token_length - 1), 10 ** token_length)


def word_pool(token_length: int | None) -> tuple[str, ...]:
    from lexbench.lexicon.words import web2_words, words_of_length

    return web2_words() if token_length is None else words_of_length(token_length)


def decile_pool(decile: int, token_length: int, scope: str) -> tuple[str, ...]:
    from lexbench.lexicon.words import decile_words

    return decile_words(decile, token_length, scope)


# ------------------------------------------------------------------------------ samplers


def draw_independent(rng: random.Random, pool: Sequence[Member], m: int) -> SetPair:
    """A and B of m members each, drawn independently (they may share members)."""
    return tuple(rng.sample(pool, m)), tuple(rng.sample(pool, m))


def overlap_size(m: int, fraction: float) -> int:
    return int(m * fraction)


def draw_overlapping(rng: random.Random, pool: Sequence[Member], m: int, fraction: float) -> SetPair:
    """A of m members; B shares exactly floor(m * fraction) of them, the rest new."""
    shared_n = overlap_size(m, fraction)
    a = rng.sample(pool, m)
    shared = rng.sample(a, shared_n)
    taken = set(a)
    fresh: list[Member] = []
    while len(fresh) < m - shared_n:
        candidate = pool[rng.randrange(len(pool))]
        if candidate not in taken:
            taken.add(candidate)
            fresh.append(candidate)
    b = shared + fresh
    rng.shuffle(b)
    return tuple(a), tuple(b)


def clashes(word: str, chosen: Sequence[str]) -> bool:
    """True when `word` is a substring of, contains, or is a near-duplicate of a chosen word."""
    for other in chosen:
        if word in other or other in word:
            return True
        if edit_distance(word, other, limit=MIN_EDIT_DISTANCE - 1) < MIN_EDIT_DISTANCE:
            return True
    return False


def pick_distinct(rng: random.Random, candidates: Sequence[str], m: int,
                  against: Sequence[str] = ()) -> list[str] | None:
    """Up to m members from `candidates` in a random order, none clashing with each other or
    with `against`; None when fewer than m can be found."""
    order = list(candidates)
    rng.shuffle(order)
    chosen: list[str] = []
    for word in order:
        if not clashes(word, list(against) + chosen):
            chosen.append(word)
            if len(chosen) == m:
                return chosen
    return None


@dataclass(frozen=True)
class HyponymPool:
    hypernym: str                 # synset name, e.g. "dog.n.01"
    words: tuple[str, ...]        # single-word lowercase lemma names of its hyponyms, sorted


@dataclass(frozen=True)
class DeceptiveDraw:
    a: tuple[str, ...]
    b: tuple[str, ...]
    hypernym_a: str | None
    hypernym_b: str | None
    swapped: int                  # members exchanged between A and B


def swap_tails(a: Sequence[str], b: Sequence[str], count: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Exchange the last `count` members of A and B."""
    if count == 0:
        return tuple(a), tuple(b)
    keep_a, keep_b = len(a) - count, len(b) - count
    return tuple(a[:keep_a]) + tuple(b[keep_b:]), tuple(b[:keep_b]) + tuple(a[keep_a:])


def draw_deceptive(rng: random.Random, pools: Sequence[HyponymPool], m: int, condition: str,
                   attempts: int = 500) -> DeceptiveDraw:
    """One deceptive pair. `swapped` uses the same random stream as `not_swapped`."""
    if condition not in DECEPTIVE_CONDITIONS:
        raise ValueError(f"unknown deceptive condition {condition!r}; "
                         f"choose from {', '.join(DECEPTIVE_CONDITIONS)}")
    eligible = [p for p in pools if len(p.words) >= m]
    if condition == "random_baseline":
        vocabulary = sorted({w for p in eligible for w in p.words})
        for _ in range(attempts):
            a = pick_distinct(rng, rng.sample(vocabulary, min(len(vocabulary), 8 * m)), m)
            if a is None:
                continue
            b = pick_distinct(rng, rng.sample(vocabulary, min(len(vocabulary), 8 * m)), m, a)
            if b is not None:
                return DeceptiveDraw(tuple(a), tuple(b), None, None, 0)
        raise ValueError(f"deceptive random baseline: no valid pair of {m}-member sets "
                         f"in {attempts} attempts")
    if len(eligible) < 2:
        raise ValueError(f"deceptive sets of {m} members need two hypernyms with at least {m} "
                         f"usable hyponyms; found {len(eligible)}")
    for _ in range(attempts):
        first, second = rng.sample(eligible, 2)
        if set(first.words) & set(second.words):
            continue  # nested or overlapping hierarchies: not two different categories
        a = pick_distinct(rng, first.words, m)
        if a is None:
            continue
        b = pick_distinct(rng, second.words, m, a)
        if b is None:
            continue
        count = m // 2 if condition == "swapped" else 0
        new_a, new_b = swap_tails(a, b, count)
        return DeceptiveDraw(new_a, new_b, first.hypernym, second.hypernym, count)
    raise ValueError(f"deceptive sets: no valid pair of {m}-member hyponym sets in {attempts} attempts")


# ------------------------------------------------------------------------------ hyponym pools


def _descendants(synset: Any, memo: dict[str, frozenset[str] | None], cap: int) -> frozenset[str] | None:
    """Names of every hyponym synset below `synset` (transitively); None once over `cap`."""
    name = synset.name()
    if name in memo:
        return memo[name]
    out: set[str] = set()
    for child in synset.hyponyms():
        out.add(child.name())
        below = _descendants(child, memo, cap)
        if below is None or len(out | below) > cap:
            memo[name] = None
            return None
        out |= below
    memo[name] = frozenset(out)
    return memo[name]


def is_simple_word(lemma_name: str) -> bool:
    """A single lowercase alphabetic word (no multi-word, hyphenated or capitalised names)."""
    return lemma_name.isalpha() and lemma_name.islower()


def build_hyponym_pools(reader: Any, cap: int = MAX_HYPONYM_SYNSETS) -> list[HyponymPool]:
    """Every noun synset with 1..cap hyponym synsets below it, with the single-word lemma
    names of those hyponyms (sorted; synsets in WordNet's own order)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        memo: dict[str, frozenset[str] | None] = {}
        pools = []
        for synset in reader.all_synsets("n"):
            below = _descendants(synset, memo, cap)
            if not below:
                continue
            words = sorted({lemma for child in below for lemma in reader.synset(child).lemma_names()
                            if is_simple_word(lemma)})
            if len(words) >= 2:
                pools.append(HyponymPool(synset.name(), tuple(words)))
        return sorted(pools, key=lambda p: p.hypernym)
    finally:
        sys.setrecursionlimit(limit)


def _pool_cache_path(fingerprint: str) -> Path:
    from lexbench.paths import cache_dir

    return cache_dir("setlexsem") / (f"hyponym-pools-v{HYPONYM_POOL_FORMAT}-cap{MAX_HYPONYM_SYNSETS}"
                                     f"-{fingerprint[:16]}.json")


@lru_cache(maxsize=4)
def load_hyponym_pools(wordnet: str | None = None) -> tuple[HyponymPool, ...]:
    """The hyponym pools of the WordNet at `wordnet` (found automatically when None).

    Walking WordNet through NLTK takes about 20 s, so the pools are cached on disk, keyed by
    the database's content fingerprint; later calls read them in milliseconds.
    """
    from lexbench.lexicon.wordnet import fingerprint, locate_wordnet, open_reader

    directory = locate_wordnet(wordnet)
    path = _pool_cache_path(fingerprint(directory))
    if path.is_file():
        payload = json.loads(path.read_text(encoding="utf-8"))
        return tuple(HyponymPool(h, tuple(w)) for h, w in payload["pools"])
    pools = build_hyponym_pools(open_reader(directory))
    payload = {"format": HYPONYM_POOL_FORMAT, "cap": MAX_HYPONYM_SYNSETS,
               "pools": [[p.hypernym, list(p.words)] for p in pools]}
    temporary = path.with_suffix(".partial")
    temporary.write_text(json.dumps(payload, separators=(",", ":")), encoding="utf-8")
    temporary.replace(path)
    return tuple(pools)


def hyponym_pools_fingerprint(pools: Sequence[HyponymPool]) -> str:
    from lexbench.types import content_hash

    return content_hash([[p.hypernym, list(p.words)] for p in pools])

