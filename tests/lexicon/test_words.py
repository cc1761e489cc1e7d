"""Word lists and frequency deciles (lexbench.lexicon.words): real web2 + wordfreq data."""

from __future__ import annotations

import pytest

from lexbench.lexicon.words import (
    decile_words,
    english_frequencies,
    frequency_deciles,
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
    # Why the default scope is per length: few three-letter words are rare in wordfreq.
    rare_three = decile_words(1, 3, scope="global")
    assert all(len(w) == 3 for w in rare_three)
    assert len(rare_three) < 16 <= len(decile_words(1, 3, scope="length"))


def test_unknown_scope_and_decile_are_errors():
    with pytest.raises(ValueError, match="unknown decile scope"):
        web2_deciles("corpus", 3)
    with pytest.raises(ValueError, match=r"decile must be 1..10"):
        web2_deciles("length", 3).decile(11)
    with pytest.raises(ValueError, match="needs a token length"):
        web2_deciles("length", None)
