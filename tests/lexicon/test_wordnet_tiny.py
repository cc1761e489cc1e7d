"""The tiny WordNet fixture (tests/fixtures/wordnet_tiny): well-formed, read by NLTK through
lexbench unchanged, rich enough for LAMBDA, and exactly what make_tiny_wordnet.py writes."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from conftest import TINY_WORDNET
from lexbench.benchmarks.lambda_.items import (
    LambdaConfig,
    generate_items,
    has_substring_clash,
    in_strict_vocabulary,
)
from lexbench.lexicon.wordnet.files import REQUIRED_FILES, fingerprint, locate_wordnet
from lexbench.lexicon.wordnet.index import PAPER_RELATIONS
from lexbench.lexicon.wordnet.reader import open_reader

MAKER = TINY_WORDNET.parent / "make_tiny_wordnet.py"
REAL_WORDNET = Path("/usr/share/wordnet")
POS_FILES = ("noun", "verb", "adj", "adv")
FILE_OF_POS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
FILE_OF_SENSE_TYPE = {"1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj"}


def synset_lines(name: str) -> dict[int, str]:
    """Byte position -> line, for the synset lines of a data file (licence lines skipped)."""
    raw = (TINY_WORDNET / f"data.{name}").read_bytes()
    out, position = {}, 0
    for line in raw.splitlines(keepends=True):
        if not line.startswith(b"  "):
            out[position] = line.decode("utf-8")
        position += len(line)
    return out


def words_and_pointers(line: str) -> tuple[list[str], list[tuple[str, int, str, str]]]:
    columns = line.split(" | ", 1)[0].split()
    count = int(columns[3], 16)
    words = [columns[4 + 2 * i] for i in range(count)]
    at = 4 + 2 * count
    pointers = [
        (
            columns[at + 1 + 4 * k],
            int(columns[at + 2 + 4 * k]),
            columns[at + 3 + 4 * k],
            columns[at + 4 + 4 * k],
        )
        for k in range(int(columns[at]))
    ]
    return words, pointers


def lemma_of(word: str) -> str:
    return re.sub(r"\([a-z]+\)$", "", word).lower()


def test_the_fixture_is_small_and_carries_the_licence():
    total = sum(p.stat().st_size for p in TINY_WORDNET.iterdir())
    assert total < 200_000
    for name in REQUIRED_FILES:
        text = (TINY_WORDNET / name).read_text(encoding="utf-8")
        assert "WordNet 3.0 Copyright 2006 by Princeton University" in text, name


def test_every_offset_is_its_byte_position_and_every_pointer_lands_on_a_synset():
    lines = {name: synset_lines(name) for name in POS_FILES}
    pointer_count = 0
    for name, table in lines.items():
        assert len(table) > 10, name
        for position, line in table.items():
            assert int(line[:8]) == position, (name, position, line[:40])
            assert line.endswith("  \n")
            words, pointers = words_and_pointers(line)
            for symbol, offset, pos, source_target in pointers:
                pointer_count += 1
                target = lines[FILE_OF_POS[pos]].get(offset)
                assert target is not None, f"data.{name} {position}: {symbol} {offset} {pos}"
                if pos == "s":
                    assert target.split()[2] == "s"
                source, goal = divmod(int(source_target, 16), 256)  # two hex digits each
                assert source <= len(words)
                assert goal <= len(words_and_pointers(target)[0])
    assert pointer_count > 500


def test_index_files_list_exactly_the_synsets_of_each_lemma():
    tagged_senses = {}
    for line in (TINY_WORDNET / "index.sense").read_text().splitlines():
        key, offset, number, tag_count = line.split()
        lemma, rest = key.split("%")
        tagged_senses[FILE_OF_SENSE_TYPE[rest.split(":")[0]], lemma, int(offset)] = (
            int(number),
            int(tag_count),
        )
    for name in POS_FILES:
        data = synset_lines(name)
        listed = set()
        for line in (TINY_WORDNET / f"index.{name}").read_text().splitlines():
            if line.startswith("  "):
                continue
            columns = line.split()
            lemma, symbol_count = columns[0], int(columns[3])
            synsets, senses, tagged = (
                int(columns[2]),
                int(columns[4 + symbol_count]),
                int(columns[5 + symbol_count]),
            )
            offsets = [int(o) for o in columns[6 + symbol_count :]]
            assert synsets == senses == len(offsets) > 0, line
            for number, offset in enumerate(offsets, start=1):
                assert lemma in {lemma_of(w) for w in words_and_pointers(data[offset])[0]}, line
                # index.sense agrees: the same sense number, and the tagged senses come first.
                sense_number, tag_count = tagged_senses[name, lemma, offset]
                assert sense_number == number, line
                assert (tag_count > 0) == (number <= tagged), line
                listed.add((lemma, offset))
        every_word = {
            (lemma_of(w), offset)
            for offset, line in data.items()
            for w in words_and_pointers(line)[0]
        }
        assert listed == every_word, name


def test_lexbench_prepares_and_nltk_reads_it_in_a_temporary_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("LEXBENCH_CACHE", str(cache))
    directory = locate_wordnet(TINY_WORDNET, allow_install=False)
    assert directory == cache / "nltk_data" / "corpora" / "wordnet"
    assert (directory / "lexnames").read_bytes() == (TINY_WORDNET / "lexnames").read_bytes()
    reader = open_reader(directory)
    assert reader.get_version() == "3.0"
    assert [s.name() for s in reader.synsets("puppy")] == ["puppy.n.01", "puppy.n.02"]
    assert {h.name() for h in reader.synset("puppy.n.01").hypernyms()} == {"dog.n.01", "pup.n.01"}
    glad = reader.synset("happy.a.01").lemmas()[0].antonyms()
    assert [lemma.name() for lemma in glad] == ["unhappy"]
    assert reader.morphy("happier", "a") == "happy"
    assert locate_wordnet(TINY_WORDNET) == directory  # prepared once, then reused
    assert fingerprint(directory) == fingerprint(TINY_WORDNET)


def test_the_relation_index_pins_relations_by_hand(tiny_wordnet_index, tiny_wordnet_env):
    index = tiny_wordnet_index
    assert index.version == "3.0"
    assert index.fingerprint == fingerprint(TINY_WORDNET)
    assert "unhappy" in index.relation("antonym", "happy")
    assert set(index.relation("antonym", "large")) == {"little", "small"}
    assert "glad" in index.relation("synonym", "happy")
    assert index.relation("synonym", "huge") == ("Brobdingnagian", "immense", "vast")
    assert "big" in index.relation("synonym", "large")
    assert "decide" in index.relation("derivation", "decision")
    assert "happiness" in index.relation("derivation", "happy")
    assert "dog" in index.relation("hypernym", "puppy")
    assert "buyer" in index.relation("hyponym", "customer")
    assert index.exceptions["happier"] == ("happy",)
    assert index.pos["kitten"] == "noun" and index.pos["happy"] == "adj"
    # Only what the fixture holds: a word far from every seed is absent.
    assert "house" not in index.lemma_names
    # The index cached on disk sits in the temporary cache, never the user's.
    assert list((tiny_wordnet_env / "wordnet-index").glob("relations-*.json"))


def test_lambda_items_on_the_tiny_index_are_valid_and_deterministic(tiny_wordnet_index):
    config = LambdaConfig(per_relation=20)
    items = generate_items(tiny_wordnet_index, config)
    assert items == generate_items(tiny_wordnet_index, config)
    assert items != generate_items(tiny_wordnet_index, LambdaConfig(per_relation=20, seed=7))
    assert [i.relation for i in items] == [r for r in PAPER_RELATIONS for _ in range(20)]
    for item in items:
        (a, b), (c, d) = item.support
        tokens = (a, b, c, d, item.query, item.gold)
        assert all(in_strict_vocabulary(t) for t in tokens)
        assert not has_substring_clash(tokens)
        assert item.candidates == tiny_wordnet_index.relation(item.relation, item.query)
        assert item.gold in item.candidates
        assert b in tiny_wordnet_index.relation(item.relation, a)
        assert d in tiny_wordnet_index.relation(item.relation, c)


def test_make_tiny_wordnet_regenerates_the_fixture_byte_for_byte(tmp_path, monkeypatch):
    if not all((REAL_WORDNET / name).is_file() for name in (*REQUIRED_FILES, "index.sense")):
        pytest.skip(
            f"the real WordNet 3.0 is not at {REAL_WORDNET} (Debian: apt-get install "
            "wordnet-base wordnet-sense-index); the fixture cannot be regenerated here"
        )
    spec = importlib.util.spec_from_file_location("make_tiny_wordnet", MAKER)
    maker = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, maker)  # its dataclasses look it up there
    spec.loader.exec_module(maker)
    assert maker.main(["--source", str(REAL_WORDNET), "--out", str(tmp_path / "tiny")]) == 0
    written = sorted(p.name for p in (tmp_path / "tiny").iterdir())
    assert written == sorted(p.name for p in TINY_WORDNET.iterdir())
    for name in written:
        assert (tmp_path / "tiny" / name).read_bytes() == (TINY_WORDNET / name).read_bytes(), name
    with pytest.raises(FileExistsError, match="files this script does not write"):
        (tmp_path / "tiny" / "stray.txt").write_text("x")
        maker.main(["--source", str(REAL_WORDNET), "--out", str(tmp_path / "tiny")])
