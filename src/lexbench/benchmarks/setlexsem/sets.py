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
  paper's vocabulary rules (`build_hyponym_pools`). Conditions: `not_swapped`; `swapped`
  (the last m // 2 members of A and B exchanged, the same draws as not_swapped so the two
  are paired); `random_baseline` (A and B drawn independently from the pooled hyponym
  vocabulary, no hypernym structure).

A cell that a pool cannot fill (numbers of one digit in sets of 16, a decile with too few
words of a length) raises `InfeasibleCell`, which a grid may skip by name.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lexbench.text import edit_distance

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
# The paper's code keeps hypernyms with at most this many hyponym lemma names ("sets of
# hyponyms with many elements are super generic"), and so draws sets of at most 30.
MAX_POOL_WORDS = 30
# Within one synset, lemma names closer than this edit distance are thinned out.
MIN_EDIT_DISTANCE = 3
# ... in at most this many removals; a synset needing more contributes no word.
MAX_THINNING_STEPS = 5
HYPONYM_POOL_FORMAT = 2


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
class HyponymPool:
    hypernym: str  # synset name, e.g. "dog.n.01" or "walk.v.01"
    words: tuple[str, ...]  # the cleaned lemma names of its hyponyms, sorted


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


# ------------------------------------------------------------------------------ hyponym pools


def clean_lemma_names(names: Iterable[str], rng: random.Random) -> list[str]:
    """The paper's cleaning of one synset's lemma names: drop names contained in a longer
    name; thin out names closer than MIN_EDIT_DISTANCE edits (one of the closest pair at
    random, at most MAX_THINNING_STEPS times, else the synset gives nothing); keep names
    without '_' or '-'. Capitalised names and apostrophes stay ("Bahai", "o'clock")."""
    unique = sorted(set(names), key=lambda n: (len(n), n))
    kept = [n for i, n in enumerate(unique) if not any(n in longer for longer in unique[i + 1 :])]
    removals = 0
    while closest := _closest_pairs(kept):
        if removals == MAX_THINNING_STEPS:
            return []
        kept.remove(rng.choice(rng.choice(closest)))
        removals += 1
    return sorted(n for n in kept if "_" not in n and "-" not in n)


def _closest_pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs at the smallest edit distance, if it is below MIN_EDIT_DISTANCE."""
    best, pairs = MIN_EDIT_DISTANCE, []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            distance = edit_distance(first, second, limit=MIN_EDIT_DISTANCE - 1)
            if distance < best:
                best, pairs = distance, [(first, second)]
            elif distance == best and distance < MIN_EDIT_DISTANCE:
                pairs.append((first, second))
    return pairs


def pools_from_graph(
    children: Mapping[str, Sequence[str]],
    own_words: Mapping[str, Sequence[str]],
    cap: int = MAX_POOL_WORDS,
) -> list[HyponymPool]:
    """For every synset, the words of all synsets below it (transitively), kept when there
    are 2..cap of them. A breadth-first walk per synset that stops past `cap` words keeps
    this fast at the top of the hierarchy and safe on the verb hierarchy's one cycle."""
    pools = []
    for name in sorted(children):
        words: set[str] = set()
        seen = {name}
        queue = list(children[name])
        too_many = False
        while queue:
            child = queue.pop()
            if child in seen:
                continue
            seen.add(child)
            words.update(own_words.get(child, ()))
            if len(words) > cap:
                too_many = True
                break
            queue.extend(children.get(child, ()))
        if not too_many and len(words) >= 2:
            pools.append(HyponymPool(name, tuple(sorted(words))))
    return pools


def build_hyponym_pools(reader: Any, cap: int = MAX_POOL_WORDS) -> list[HyponymPool]:
    """Every WordNet synset (nouns and verbs: the others have no hyponyms) with 2..cap
    cleaned hyponym lemma names below it, through NLTK's `reader`: the reference that
    `hyponym_files` (what `load_hyponym_pools` builds with) is tested against."""
    children: dict[str, list[str]] = {}
    own_words: dict[str, list[str]] = {}
    for synset in reader.all_synsets():
        name = synset.name()
        children[name] = sorted(child.name() for child in synset.hyponyms())
        # One stream per synset: the thinning is random as in the paper, but reproducible.
        own_words[name] = clean_lemma_names(synset.lemma_names(), random.Random(f"lemmata:{name}"))
    return pools_from_graph(children, own_words, cap)


def _pool_cache_path(fingerprint: str) -> Path:
    from lexbench.paths import cache_dir

    return cache_dir("setlexsem") / (
        f"hyponym-pools-v{HYPONYM_POOL_FORMAT}-cap{MAX_POOL_WORDS}-{fingerprint[:16]}.json"
    )


def load_hyponym_pools(wordnet: str | None = None) -> tuple[HyponymPool, ...]:
    """The hyponym pools of the WordNet at `wordnet` (found automatically when None).

    The first build reads WordNet's data files line by line (`hyponym_files`: about 4 s and
    130 MB, where NLTK's reader took 14 s and 618 MB), and the pools are cached on disk, keyed
    by the database's content fingerprint; later calls read them in milliseconds. In memory
    they are kept per prepared WordNet directory and content, so two WordNets in one
    process (a test's tiny one beside the real one) never share pools.
    """
    from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet

    directory = locate_wordnet(wordnet)
    return _hyponym_pools(directory, fingerprint(directory))


@lru_cache(maxsize=4)
def _hyponym_pools(directory: Path, content: str) -> tuple[HyponymPool, ...]:
    from lexbench.benchmarks.setlexsem.hyponym_files import read_hyponym_graph
    from lexbench.paths import write_atomically

    path = _pool_cache_path(content)
    if path.is_file():
        payload = json.loads(path.read_text(encoding="utf-8"))
        return tuple(HyponymPool(h, tuple(w)) for h, w in payload["pools"])
    from lexbench.heartbeat import long_step

    with long_step("building SetLexSem's hyponym pools from WordNet (once)"):
        pools = pools_from_graph(*read_hyponym_graph(directory, clean_lemma_names))
    payload = {
        "format": HYPONYM_POOL_FORMAT,
        "cap": MAX_POOL_WORDS,
        "pools": [[p.hypernym, list(p.words)] for p in pools],
    }
    write_atomically(path, json.dumps(payload, separators=(",", ":")))
    return tuple(pools)


def hyponym_pools_fingerprint(pools: Sequence[HyponymPool]) -> str:
    from lexbench.types import content_hash

    return content_hash([[p.hypernym, list(p.words)] for p in pools])
