"""The whole Google set: our 3CosAdd against gensim's evaluate_word_analogies (slow: gensim
answers one question at a time, ~4 ms each, about a minute for the 14,877 in-vocabulary ones)."""

from __future__ import annotations

import pytest
from test_analogies import _assert_agreement, _ours_and_gensims

from lexbench.benchmarks.analogies.google import locate_google


@pytest.mark.slow
def test_3cosadd_on_the_whole_google_set_matches_gensim(tmp_path):
    overall, samples, score, sections = _ours_and_gensims(locate_google(), tmp_path)
    _assert_agreement(overall, samples, score, sections)
    assert overall["scored"] == 14877  # questions with all four words in the top 30,000
