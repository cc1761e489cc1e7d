"""SetLexSem's hyponym pools: for every WordNet synset, the cleaned lemma names of the
synsets below it, which deceptive sets are drawn from (`sets.draw_deceptive`).

As the paper's code builds them: one synset's lemma names are cleaned (`clean_lemma_names`:
names inside a longer name dropped, near-duplicates thinned out at random, names with '_' or
'-' left out), and a hypernym is kept when 2 to `MAX_POOL_WORDS` words lie below it. The
pools of a WordNet are built once from its data files (`hyponym_files`) and cached on disk,
keyed by the database's content.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lexbench.text import edit_distance

# The paper's code keeps hypernyms with at most this many hyponym lemma names ("sets of
# hyponyms with many elements are super generic"), and so draws sets of at most 30.
MAX_POOL_WORDS = 30
# Within one synset, lemma names closer than this edit distance are thinned out.
MIN_EDIT_DISTANCE = 3
# ... in at most this many removals; a synset needing more contributes no word.
MAX_THINNING_STEPS = 5
HYPONYM_POOL_FORMAT = 2


@dataclass(frozen=True)
class HyponymPool:
    hypernym: str  # synset name, e.g. "dog.n.01" or "walk.v.01"
    words: tuple[str, ...]  # the cleaned lemma names of its hyponyms, sorted


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
