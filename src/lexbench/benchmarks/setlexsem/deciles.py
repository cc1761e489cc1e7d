"""SetLexSem's frequency deciles on the authors' scale: wordfreq's shares turned into counts of
a corpus the size of the authors' Google Books year, then binned as their `make_percentiles`.

The authors' formula (`lexicon.words.log_width_bins`) is not scale-free: it subtracts the
smallest log count and divides by the largest, so where a word lands depends on the absolute
counts. Their counts are Google Books English 1-grams (version 20120701) of the year 2008
alone (their `scripts/download-google-ngrams.sh`: start and end year 2008, every count of 1
or more kept), matched to the lowercased NLTK word list. Two anchors put wordfreq on that
scale:

* `GOOGLE_BOOKS_2008_TOKENS`: a word's count is its wordfreq share times the tokens Google
  Books holds for 2008 (19,482,936,409 in `googlebooks-eng-all-totalcounts-20120701.txt`).
* `GOOGLE_BOOKS_RAREST_COUNT`: the authors' smallest count. Their filter keeps counts of 1,
  and of 234,448 mostly rare and archaic web2 words some occur once in a year of books, so
  their shift is log 1 = 0; wordfreq knows no word below about 1e-8 of tokens (about 200
  occurrences at that size), so the shift is anchored at a count of 1 instead of at the
  rarest word wordfreq knows.

Anchored so, wordfreq's rarest words fall in the authors' decile 3, where the scale-free
anchoring (scope `global`: the rarest ranked word counts 1) put them in decile 1.
`measurements/studies/setlexsem_deciles.py` prints the decile sizes and Table 7's N both ways.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from lexbench.lexicon import words as wordlists
from lexbench.lexicon.words import DecileTable

# Google Books Ngram English 1-grams, version 20120701, year 2008: the total match count in
# googlebooks-eng-all-totalcounts-20120701.txt (the year and version the authors download).
GOOGLE_BOOKS_2008_TOKENS = 19_482_936_409
# The smallest count the authors' filter keeps (min_word_count = 1): their log shift is 0.
GOOGLE_BOOKS_RAREST_COUNT = 1.0
# The paper grid's scope: the whole vocabulary binned the authors' way on Google Books' scale.
BOOKS_SCALE = "global_books_scale"
# Every scope a decile study may name: the paper's, then lexicon.words' ("global": the
# same binning with the rarest ranked word counting 1; "global_equal_count"; "length").
DECILE_SCOPES: tuple[str, ...] = (BOOKS_SCALE, *wordlists.DECILE_SCOPES)
# A key no word can be: the authors' rarest count, added to the counts as one more entry.
_ANCHOR = "\x00rarest"


def books_scale_bins(
    frequencies: Mapping[str, float],
    total_tokens: float = GOOGLE_BOOKS_2008_TOKENS,
    rarest_count: float = GOOGLE_BOOKS_RAREST_COUNT,
) -> dict[str, int]:
    """Each word's decile 1..10: its share times `total_tokens`, binned as the authors do
    with their smallest count `rarest_count` (a lower scaled count moves the shift down).

    >>> books_scale_bins({"rare": 1e-8, "the": 0.05}, total_tokens=1e10)
    {'rare': 3, 'the': 10}
    """
    counts: dict[str, float] = {w: f * total_tokens for w, f in frequencies.items() if f > 0}
    counts[_ANCHOR] = rarest_count
    bins = wordlists.log_width_bins(counts)
    del bins[_ANCHOR]
    return bins


def books_scale_deciles(
    words: Iterable[str],
    frequencies: Mapping[str, float] | None = None,
    total_tokens: float = GOOGLE_BOOKS_2008_TOKENS,
    rarest_count: float = GOOGLE_BOOKS_RAREST_COUNT,
) -> DecileTable:
    """`words` in the deciles of `books_scale_bins`; words wordfreq does not know are left
    out; each band sorted."""
    table = wordlists.english_frequencies() if frequencies is None else frequencies
    unique = sorted(set(words))
    known = {w: table[w] for w in unique if table.get(w, 0.0) > 0.0}
    bins = books_scale_bins(known, total_tokens, rarest_count)
    bands: list[list[str]] = [[] for _ in wordlists.DECILES]
    for word in sorted(bins):
        bands[bins[word] - 1].append(word)
    return DecileTable(
        bands=tuple(tuple(b) for b in bands), ranked=len(known), unknown=len(unique) - len(known)
    )


def decile_table(scope: str, length: int | None = None) -> DecileTable:
    """The web2 deciles of `scope` (`length`: the token length, for scope "length" only)."""
    if scope == BOOKS_SCALE:
        return _web2_books_scale()
    return wordlists.web2_deciles(scope, length if scope == "length" else None)


@cache
def _web2_books_scale() -> DecileTable:
    return books_scale_deciles(wordlists.web2_words())


def decile_words(decile: int, length: int, scope: str) -> tuple[str, ...]:
    """The web2 words of exactly `length` letters in decile `decile` of `scope`."""
    if scope != BOOKS_SCALE:
        return wordlists.decile_words(decile, length, scope)
    return tuple(w for w in decile_table(scope).decile(decile) if len(w) == length)
