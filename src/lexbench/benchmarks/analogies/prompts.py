"""The SCAN analogy template, and the shots placed before a query.

A rank request is the template cut where the answer goes: the prompt "If a is like b, then
c is like" and the suffix "." after the answer. A causal LM ranks the next token after the
prompt; a masked LM puts its mask between prompt and suffix (the SCAN paper's two set-ups).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from lexbench.benchmarks.analogies.data import Analogy

#: What follows the answer in the template (a masked LM sees it after its mask).
ANSWER_SUFFIX = "."


def sentence(a: str, b: str, c: str, d: str) -> str:
    """The SCAN template, complete: "If a is like b, then c is like d."."""
    return f"If {a} is like {b}, then {c} is like {d}{ANSWER_SUFFIX}"


def query_prompt(item: Analogy, shots: Sequence[Analogy] = ()) -> str:
    """Shots (complete sentences), then the query cut before d."""
    prefix = "".join(sentence(s.a, s.b, s.c, s.d) + " " for s in shots)
    return f"{prefix}If {item.a} is like {item.b}, then {item.c} is like"


def choose_shots(item: Analogy, pool: Sequence[Analogy], k: int, seed: int) -> tuple[Analogy, ...]:
    """`k` complete analogies from `pool` sharing no word with `item` (its question or its
    accepted answers, so a shot can never give the answer away), drawn with a seeded RNG
    per item: the choice for one item never depends on which other items are evaluated."""
    if k == 0:
        return ()
    banned = item.words()
    candidates = sorted((p for p in pool if p.id != item.id), key=lambda p: p.id)
    rng = random.Random(f"shots:{seed}:{item.id}")
    chosen: list[Analogy] = []
    used: set[str] = set()
    # Rejection sampling keeps this cheap on BATS-sized pools; a full scan is the fallback.
    for _ in range(50 * k):
        if len(chosen) == k or not candidates:
            break
        pick = candidates[rng.randrange(len(candidates))]
        if pick.id not in used and not (pick.words() & banned):
            chosen.append(pick)
            used.add(pick.id)
    if len(chosen) < k:
        eligible = [p for p in candidates if p.id not in used and not (p.words() & banned)]
        if len(eligible) < k - len(chosen):
            raise ValueError(
                f"{item.id}: only {len(eligible) + len(chosen)} analogies share no "
                f"word with it; {k} shot(s) asked"
            )
        chosen.extend(rng.sample(eligible, k - len(chosen)))
    return tuple(chosen)
