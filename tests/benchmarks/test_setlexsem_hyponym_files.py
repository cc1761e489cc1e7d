"""The deceptive study's hyponym pools read from WordNet's files (`hyponym_files`) are NLTK's:
compared with the NLTK reader's build on the tiny WordNet and on the real WordNet 3.0."""

from __future__ import annotations

import pytest

from lexbench.benchmarks.setlexsem.hyponym_files import read_hyponym_graph
from lexbench.benchmarks.setlexsem.hyponym_pools import (
    build_hyponym_pools,
    clean_lemma_names,
    pools_from_graph,
)
from lexbench.lexicon.wordnet.files import locate_wordnet
from lexbench.lexicon.wordnet.reader import open_reader


def _both_ways(directory):
    from_files = pools_from_graph(*read_hyponym_graph(directory, clean_lemma_names))
    return from_files, build_hyponym_pools(open_reader(directory))


def test_the_tiny_wordnet_gives_nltks_pools(tiny_wordnet_env):
    directory = locate_wordnet(allow_install=False)
    from_files, from_nltk = _both_ways(directory)
    assert from_files == from_nltk and from_files


def test_wordnet_3_gives_nltks_pools():
    """The real thing: every pool of WordNet 3.0, names and words, as NLTK's reader builds them
    (NLTK's build peaks at about 600 MB for 14 s of CPU; the files' at about 130 MB, 4 s)."""
    directory = locate_wordnet(allow_install=False)
    from_files, from_nltk = _both_ways(directory)
    assert len(from_files) == 9_228
    assert from_files == from_nltk


def test_a_data_line_that_its_index_does_not_list_is_named(tmp_path):
    for name in ("data.noun", "data.verb", "index.noun", "index.verb"):
        (tmp_path / name).write_text("  licence line\n", encoding="ascii")
    (tmp_path / "data.noun").write_text(
        "00001740 03 n 01 entity 0 000 | that which is\n", encoding="ascii"
    )
    with pytest.raises(ValueError, match=r"synset 1740 of data\.noun .* 'entity' in index\.noun"):
        read_hyponym_graph(tmp_path, clean_lemma_names)
    (tmp_path / "index.noun").unlink()
    with pytest.raises(FileNotFoundError, match=r"has no index\.noun"):
        read_hyponym_graph(tmp_path, clean_lemma_names)
