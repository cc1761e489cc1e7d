"""Which item ids of a stream repeat, in 8 bytes per id.

A set of 320,000 id strings costs about 40 MB; their 64-bit hashes in an `array` cost
2.5 MB, and a sort at the end finds the hashes seen twice. Two different ids can share a
hash, so a repeated hash is only a suspect: the ids are read once more (the caller says
how) and only ids that truly repeat are reported. Python's `hash` of a string is a 64-bit
SipHash, salted per process; a collision between 10^6 distinct ids has a chance near
3 in 10^8, and even then it costs a second reading, never a wrong answer.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable


class IdRepeats:
    """`add` every id as it streams past; `repeated` at the end.

    >>> seen = IdRepeats()
    >>> for item_id in ["a", "b", "a"]:
    ...     seen.add(item_id)
    >>> seen.repeated(lambda: ["a", "b", "a"])
    ['a']
    """

    def __init__(self, hash_id: Callable[[str], int] = hash) -> None:
        # `hash_id`: any function to signed 64-bit ints (tests force collisions with one).
        self._hash = hash_id
        self._hashes = array("q")

    def add(self, item_id: str) -> None:
        self._hashes.append(self._hash(item_id))

    def __len__(self) -> int:
        return len(self._hashes)

    def repeated(self, ids_again: Callable[[], Iterable[str]]) -> list[str]:
        """The ids seen more than once, sorted. `ids_again` gives the same ids again, in
        any order; it is called only when two ids share a hash."""
        import numpy as np

        if len(self._hashes) < 2:
            return []
        ordered = np.sort(np.frombuffer(self._hashes, dtype=np.int64))
        suspects = set(ordered[1:][ordered[1:] == ordered[:-1]].tolist())
        if not suspects:
            return []
        counts = Counter(i for i in ids_again() if self._hash(i) in suspects)
        return sorted(i for i, n in counts.items() if n > 1)
