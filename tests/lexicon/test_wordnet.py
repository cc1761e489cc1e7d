"""Offline WordNet: preparation, the lexnames file, and the relation index's contents."""

import pytest

from lexbench.lexicon.wordnet import index as wordnet
from lexbench.lexicon.wordnet import index_cache
from lexbench.lexicon.wordnet.files import LEXNAMES, WordNetNotFound, prepare_from, write_lexnames


def test_lexnames_file_matches_man_page(tmp_path):
    write_lexnames(tmp_path)
    lines = (tmp_path / "lexnames").read_text().splitlines()
    assert len(lines) == 45 == len(LEXNAMES)
    assert lines[0] == "00\tadj.all\t3"
    assert lines[3] == "03\tnoun.Tops\t1"
    assert lines[29] == "29\tverb.body\t2"
    assert lines[44] == "44\tadj.ppl\t3"


def test_prepare_from_a_directory_without_wordnet_names_what_is_missing(tmp_path):
    (tmp_path / "data.noun").write_text("")
    with pytest.raises(WordNetNotFound, match=r"missing: data.verb") as error:
        prepare_from(tmp_path)
    assert "apt-get install wordnet-base" in str(error.value)


def test_relations_follow_nltk_definitions(wordnet_index):
    assert wordnet_index.version == "3.0"
    assert {"small", "little"} <= set(wordnet_index.relation("antonym", "large"))
    # synonyms: lemma names of every synset, underscores as spaces, the word excluded
    dog = wordnet_index.relation("synonym", "dog")
    assert "domestic dog" in dog and "Canis familiaris" in dog and "dog" not in dog
    assert "decide" in wordnet_index.relation("derivation", "decision")
    assert "canine" in wordnet_index.relation("hypernym", "dog")
    assert "puppy" in wordnet_index.relation("hyponym", "dog")
    assert wordnet_index.pos["dog"] == "noun"
    assert wordnet_index.exceptions["geese"] == ("goose",)
    assert wordnet_index.relation("antonym", "zzzz") == ()
    with pytest.raises(KeyError, match="unknown relation"):
        wordnet_index.relation("meronym", "dog")


def test_index_is_cached_on_disk(wordnet_index):
    path = index_cache.index_cache_path()
    assert path.is_file()
    again = index_cache.read_index(path)
    assert again.relation("antonym", "large") == wordnet_index.relation("antonym", "large")
    assert len(again.lemma_names) == 147306


def test_register_relation_rejects_bad_names():
    with pytest.raises(ValueError, match="identifier"):
        wordnet.register_relation("not a name", lambda reader, word: set())
