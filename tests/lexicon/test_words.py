"""Word lists and frequency deciles (lexbench.lexicon.words): real web2 + wordfreq data."""

from __future__ import annotations

import math

import pytest

from lexbench.lexicon.words import (
    LOG_BIN_EDGES,
    decile_words,
    english_frequencies,
    frequency_deciles,
    log_width_bins,
    log_width_deciles,
    web2_deciles,
    web2_words,
    words_of_length,
)


def test_web2_is_lowercase_alphabetic_sorted_and_unique():
    words = web2_words()
    assert len(words) > 230_000
    assert list(words) == sorted(set(words))
    assert all(w.isalpha() and w == w.lower() for w in words)
    assert "cat" in words and "zebra" in words


def test_words_of_length_are_exactly_that_long():
    three = words_of_length(3)
    assert three and all(len(w) == 3 for w in three)
    assert len(words_of_length(1)) == 26  # the letters
    with pytest.raises(ValueError, match="at least 1"):
        words_of_length(0)


def test_frequency_deciles_rank_rarest_first_ties_alphabetical_zero_left_out():
    table = {"a": 5.0, "b": 1.0, "c": 1.0, "d": 3.0, "e": 0.0, "f": 2.0}
    deciles = frequency_deciles(["f", "e", "d", "c", "b", "a", "a"], table, bands=2)
    assert deciles.unknown == 1 and deciles.ranked == 5
    # ranked: b(1) c(1) f(2) d(3) a(5) -> bands of 2 and 3
    assert deciles.bands == (("b", "c"), ("a", "d", "f"))


def test_web2_length_deciles_cover_every_known_word_in_ten_near_equal_bands():
    table = web2_deciles("length", 3)
    sizes = [len(b) for b in table.bands]
    assert len(sizes) == 10 and max(sizes) - min(sizes) <= 1
    assert sum(sizes) == table.ranked
    freq = english_frequencies()
    rarest, commonest = table.decile(1), table.decile(10)
    assert max(freq[w] for w in rarest) <= min(freq[w] for w in commonest)
    assert "the" in commonest
    assert decile_words(10, 3) == commonest


def test_global_deciles_are_filtered_by_length_and_thin_at_the_rare_end():
    # Why lexbench also ranks per length: few three-letter words are rare in wordfreq.
    rare_three = decile_words(1, 3, scope="global_equal_count")
    assert all(len(w) == 3 for w in rare_three)
    assert len(rare_three) < 16 <= len(decile_words(1, 3, scope="length"))


def test_unknown_scope_and_decile_are_errors():
    with pytest.raises(ValueError, match="unknown decile scope"):
        web2_deciles("corpus", 3)
    with pytest.raises(ValueError, match=r"decile must be 1..10"):
        web2_deciles("length", 3).decile(11)
    with pytest.raises(ValueError, match="needs a token length"):
        web2_deciles("length", None)


def test_log_width_bins_are_the_authors_make_percentiles_computed_by_hand():
    e = math.e
    # Rarest count 1 (log 0): x = log(count) / max log = k / 20 for count e^k; the bins are
    # np.digitize over 0, 0.1, ..., 0.9 (right=False): [0, 0.1) -> 1, ..., [0.9, ...) -> 10.
    powers = {"a": 0, "b": 1, "c": 3, "d": 5, "e": 7, "f": 9, "g": 11, "h": 13, "i": 15}
    powers |= {"j": 17, "k": 19, "l": 20}
    bins = log_width_bins({w: e**k for w, k in powers.items()})
    assert bins == dict(zip("abcdefghijkl", [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10]))
    # The shift is the smallest log count but the divisor the largest (not the range):
    # logs 2, 7, 11 give x = 0, 5/11, 9/11 (bins 1, 5, 9); min-max would give 1, 6, 10.
    assert log_width_bins({"a": e**2, "b": e**7, "c": e**11}) == {"a": 1, "b": 5, "c": 9}
    # Edges exactly as np.arange(0, 1, 0.1) makes them, float rounding included.
    assert LOG_BIN_EDGES[3] == 0.30000000000000004 and LOG_BIN_EDGES[7] == 0.7000000000000001
    numpy = pytest.importorskip("numpy")
    assert list(LOG_BIN_EDGES) == numpy.arange(0, 1, 0.1).tolist()
    # On and around the edges, the same bins as np.digitize.
    counts = {f"w{i}": 10 ** (i / 4) for i in range(41)}  # x = i / 40, every fourth an edge
    top = math.log(counts["w40"])
    x = [math.log(counts[f"w{i}"]) / top for i in range(41)]
    expected = numpy.digitize(x, numpy.arange(0, 1, 0.1), right=False).tolist()
    assert [log_width_bins(counts)[f"w{i}"] for i in range(41)] == expected
    with pytest.raises(ValueError, match="largest count above 1"):
        log_width_bins({"a": 1.0, "b": 1.0})


def test_log_width_deciles_scale_frequencies_so_the_rarest_counts_one():
    # Frequencies 1e-8 * e^k: the rarest becomes count 1, so bins follow k / 20 as above.
    table = {w: 1e-8 * math.e**k for w, k in {"x": 0, "y": 10.5, "z": 20, "q": 0}.items()}
    table["unknown"] = 0.0
    deciles = log_width_deciles(["x", "y", "z", "q", "unknown", "absent"], table)
    assert deciles.ranked == 4 and deciles.unknown == 2
    assert deciles.decile(1) == ("q", "x") and deciles.decile(6) == ("y",)
    assert deciles.decile(10) == ("z",)


def test_web2_global_deciles_are_the_authors_bins_thin_at_the_top():
    # wordfreq over web2, binned the authors' way: the top bins are (nearly) empty, as the
    # paper says of its decile 9; the equal-count option cuts the same ranking in tenths.
    sizes = [len(b) for b in web2_deciles("global").bands]
    assert sizes == [20663, 15320, 12433, 8884, 4801, 2166, 661, 125, 36, 8]
    equal = [len(b) for b in web2_deciles("global_equal_count").bands]
    assert sum(equal) == sum(sizes) and max(equal) - min(equal) <= 1
    assert [len(decile_words(d, 5, "global")) for d in (8, 9, 10)] == [26, 1, 0]
