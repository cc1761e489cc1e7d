"""SetLexSem operands: the four set operations and the samplers that draw A and B.

Every sampler is a pure function of a seeded `random.Random` and sorted inputs, so a given
seed gives the same sets in any process and under any PYTHONHASHSEED. Sets are kept as
tuples in draw order (the order the prompt shows them); ground truth is computed with
Python's set algebra and stored sorted.

Samplers (one per token type), as the paper and its code define them:

* numbers: integers uniform in [0, n-1] (the paper: [0, 9999] when the length is
  unconstrained), or with token length L exactly L digits ([10^(L-1), 10^L), so L = 3 gives
  [100, 1000) and L = 1 gives the nine digits 1..9). A and B are drawn independently.
* words: web2 words (the NLTK word list, lowercased) of exactly L characters, or any length.
* deciles: words of length L from one frequency decile of the vocabulary (see lexicon.words).
* overlap (lexbench, not in the paper; wraps numbers/words/deciles): B shares exactly
  floor(m * fraction) members of A; its other members are drawn from outside A.
* deceptive: A's members are hyponyms of one WordNet synset, B's of another, with the
  paper's vocabulary rules (`hyponym_pools`). Conditions: `not_swapped`; `swapped`
  (the last m // 2 members of A and B exchanged, the same draws as not_swapped so the two
  are paired); `random_baseline` (A and B drawn independently from the pooled hyponym
  vocabulary, no hypernym structure).

A cell that a pool cannot fill (numbers of one digit in sets of 16, a decile with too few
words of a length) raises `InfeasibleCell`, which a grid may skip by name.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lexbench.benchmarks.setlexsem.hyponym_pools import MAX_POOL_WORDS, HyponymPool

Member = int | str
SetPair = tuple[tuple[Member, ...], tuple[Member, ...]]

OPERATIONS = ("union", "intersection", "difference", "symmetric_difference")
# The word categories (parts of speech, sentiment) are lexbench's, outside the paper: see
# `setlexsem.categories`, which keeps their names.
TOKEN_TYPES = (
    "numbers",
    "words",
    "deciles",
    "deceptive",
    "nouns",
    "verbs",
    "adjectives",
    "adverbs",
    "positive_words",
    "negative_words",
)
DECEPTIVE_CONDITIONS = ("not_swapped", "swapped", "random_baseline")


class InfeasibleCell(ValueError):
    """A grid cell whose pool cannot supply the sets it asks for."""


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


def sort_members(members: Iterable[Member]) -> list[Member]:
    """Numbers before words, each in natural order (a stable canonical form for JSON)."""
    return sorted(members, key=lambda m: (isinstance(m, str), m))


# ------------------------------------------------------------------------------ pools


def number_pool(token_length: int | None, number_range: int) -> range:
    """The integers a numbers sampler draws from."""
    if token_length is None:
        return range(0, number_range)
    return range(10 ** (token_length - 1), 10**token_length)


def word_pool(token_length: int | None) -> tuple[str, ...]:
    from lexbench.lexicon.words import web2_words, words_of_length

    return web2_words() if token_length is None else words_of_length(token_length)


def decile_pool(decile: int, token_length: int, scope: str) -> tuple[str, ...]:
    from lexbench.benchmarks.setlexsem.deciles import decile_words

    return decile_words(decile, token_length, scope)


def require_pairs(pool_size: int, m: int, needed: int, what: str) -> None:
    """Raise InfeasibleCell unless a pool of `pool_size` gives `needed` different (A, B)
    pairs of m-member sets (A and B drawn independently)."""
    if pool_size < m:
        raise InfeasibleCell(f"{what} has {pool_size} members; sets of {m} need at least {m}")
    distinct = math.comb(pool_size, m) ** 2
    if distinct < needed:
        raise InfeasibleCell(
            f"{what} has {pool_size} members: only {distinct} different pairs "
            f"of {m}-member sets, {needed} needed"
        )


# ------------------------------------------------------------------------------ samplers


def draw_independent(rng: random.Random, pool: Sequence[Member], m: int) -> SetPair:
    """A and B of m members each, drawn independently (they may share members)."""
    return tuple(rng.sample(pool, m)), tuple(rng.sample(pool, m))


def overlap_size(m: int, fraction: float) -> int:
    return int(m * fraction)


def draw_overlapping(
    rng: random.Random, pool: Sequence[Member], m: int, fraction: float
) -> SetPair:
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


@dataclass(frozen=True)
class DeceptiveDraw:
    a: tuple[str, ...]
    b: tuple[str, ...]
    hypernym_a: str | None
    hypernym_b: str | None
    swapped: int  # members exchanged between A and B


def swap_tails(
    a: Sequence[str], b: Sequence[str], count: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Exchange the last `count` members of A and B (the paper's `mix_sets`)."""
    if count == 0:
        return tuple(a), tuple(b)
    keep_a, keep_b = len(a) - count, len(b) - count
    return tuple(a[:keep_a]) + tuple(b[keep_b:]), tuple(b[:keep_b]) + tuple(a[keep_a:])


def eligible_pools(pools: Sequence[HyponymPool], m: int) -> list[HyponymPool]:
    """Pools that can fill a set of m (the paper: m <= hyponyms <= 30)."""
    return [p for p in pools if m <= len(p.words) <= MAX_POOL_WORDS]


@dataclass(frozen=True)
class DeceptivePools:
    """The pools usable for sets of m, and their pooled vocabulary (the random baseline's),
    prepared once per m."""

    m: int
    eligible: tuple[HyponymPool, ...]
    vocabulary: tuple[str, ...]

    @classmethod
    def build(cls, pools: Sequence[HyponymPool], m: int) -> DeceptivePools:
        eligible = tuple(eligible_pools(pools, m))
        return cls(m, eligible, tuple(sorted({w for p in eligible for w in p.words})))


def check_deceptive(prepared: DeceptivePools, condition: str) -> None:
    """Raise InfeasibleCell when the pools cannot give a deceptive pair of m-member sets."""
    m = prepared.m
    if condition not in DECEPTIVE_CONDITIONS:
        raise ValueError(
            f"unknown deceptive condition {condition!r}; "
            f"choose from {', '.join(DECEPTIVE_CONDITIONS)}"
        )
    if m > MAX_POOL_WORDS:
        raise InfeasibleCell(
            f"deceptive sets have at most {MAX_POOL_WORDS} members (the "
            f"paper's cap on a hypernym's hyponyms), not {m}"
        )
    if condition == "random_baseline":
        if len(prepared.vocabulary) < m:
            raise InfeasibleCell(
                f"the hyponym vocabulary has {len(prepared.vocabulary)} words; "
                f"sets of {m} need more"
            )
    elif len(prepared.eligible) < 2:
        raise InfeasibleCell(
            f"deceptive sets of {m} need two hypernyms with {m} to "
            f"{MAX_POOL_WORDS} hyponyms; found {len(prepared.eligible)}"
        )


def draw_deceptive(
    rng: random.Random,
    pools: DeceptivePools | Sequence[HyponymPool],
    m: int | None,
    condition: str,
    attempts: int = 500,
) -> DeceptiveDraw:
    """One deceptive pair (`pools` raw with `m`, or prepared with m=None). `swapped` uses the
    same random stream as `not_swapped`.

    As the paper's sampler: pick a hypernym's hyponym list, shuffle it, take the first m;
    then the same from another hypernym. lexbench also requires the second list to share no
    word with the first, so A and B never overlap (every intersection in the paper's
    deceptive tables is empty; nested hypernyms would break that)."""
    if isinstance(pools, DeceptivePools):
        prepared = pools
    else:
        if m is None:
            raise ValueError("draw_deceptive needs m with unprepared pools")
        prepared = DeceptivePools.build(pools, m)
    check_deceptive(prepared, condition)
    m = prepared.m
    if condition == "random_baseline":
        vocabulary = prepared.vocabulary
        return DeceptiveDraw(
            tuple(rng.sample(vocabulary, m)), tuple(rng.sample(vocabulary, m)), None, None, 0
        )
    for _ in range(attempts):
        first, second = rng.sample(prepared.eligible, 2)
        if set(first.words) & set(second.words):
            continue  # nested or overlapping hierarchies: not two different categories
        a = list(first.words)
        rng.shuffle(a)
        b = list(second.words)
        rng.shuffle(b)
        count = m // 2 if condition == "swapped" else 0
        new_a, new_b = swap_tails(a[:m], b[:m], count)
        return DeceptiveDraw(new_a, new_b, first.hypernym, second.hypernym, count)
    raise InfeasibleCell(
        f"deceptive sets: no two disjoint hyponym lists of {m} words in {attempts} attempts"
    )
