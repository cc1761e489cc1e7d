"""The WordNet sense table answers as NLTK's reader does, on every word and sense of the tiny
WordNet; the compact cache formats (sense table, relation index, GloVe's vocabulary) read
back what was written, convert what an earlier lexbench wrote, and name a damaged file."""

from __future__ import annotations

import gc
import itertools
import json
import random
import subprocess
import sys

import pytest

from lexbench.lexicon.wordnet import index as wordnet
from lexbench.lexicon.wordnet import index_cache
from lexbench.lexicon.wordnet import reader as wordnet_reader
from lexbench.lexicon.wordnet import senses as wordnet_senses
from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet
from lexbench.lexicon.wordnet.reader import open_reader
from lexbench.lexicon.wordnet.senses import (
    DETACHMENT_RULES,
    LemmaSenses,
    load_sense_table,
    read_sense_table,
    sense_table_path,
)


@pytest.fixture
def reader_and_table(tiny_wordnet_env):
    directory = locate_wordnet(allow_install=False)
    return open_reader(directory), load_sense_table(directory, fingerprint(directory))


def _inflections(word: str) -> list[str]:
    """The word with every ending the detachment rules undo (and a few that no rule does)."""
    endings = {old for rules in DETACHMENT_RULES.values() for old, _ in rules} | {"ly", "x"}
    return [word + ending for ending in sorted(endings)]


def test_senses_of_every_word_and_inflection_are_nltks(reader_and_table):
    reader, table = reader_and_table
    lemmas = sorted(reader.all_lemma_names())
    exceptions = sorted({form for pos in "nvar" for form in reader._exception_map[pos]})
    words = lemmas + exceptions + [w for lemma in lemmas for w in _inflections(lemma)]
    words += [lemma.upper() for lemma in lemmas[:50]] + ["", "qqq", "hot_dogs"]
    assert len(lemmas) > 500
    found = 0
    for word in words:
        ours = [table.names[sense] for sense in table.synsets(word)]
        assert ours == [s.name() for s in reader.synsets(word)], word
        found += bool(ours)
    # The inflections reach NLTK's morphy rules, not only the lemmas themselves.
    assert found > len(lemmas) + len(exceptions) // 2


def test_facts_of_every_sense_are_nltks(reader_and_table):
    reader, table = reader_and_table
    synsets = [s for pos in "nvar" for s in reader.all_synsets(pos)]
    assert len(synsets) == len(table)
    by_name = {name: number for number, name in enumerate(table.names)}
    for synset in synsets:
        sense = by_name[synset.name()]
        assert table.pos(sense) == synset.pos()
        assert list(table.lemmas[sense]) == synset.lemma_names()
        assert table.definitions[sense] == synset.definition()
        assert sorted(table.names[h] for h in table.hypernyms[sense]) == sorted(
            h.name() for h in synset.hypernyms() + synset.instance_hypernyms()
        )
        assert sorted(table.names[t] for t in table.similar[sense]) == sorted(
            t.name() for t in synset.similar_tos() + synset.also_sees()
        )
        assert (table.min_depth[sense], table.max_depth[sense]) == (
            synset.min_depth(),
            synset.max_depth(),
        )
    # The tiny WordNet holds every kind of link the scorer reads.
    assert any(table.similar) and any(len(h) > 1 for h in table.hypernyms)
    assert {table.pos(s) for s in range(len(table))} == {"n", "v", "a", "s", "r"}


def test_wu_palmer_is_nltks_for_every_pair_of_noun_and_verb_senses(reader_and_table):
    reader, table = reader_and_table
    by_name = {name: number for number, name in enumerate(table.names)}
    senses = [(s, by_name[s.name()]) for pos in "nv" for s in reader.all_synsets(pos)]
    pairs = list(itertools.product(senses, repeat=2))
    if len(pairs) > 60_000:
        pairs = random.Random(4).sample(pairs, 60_000)
    values = set()
    for (a, x), (b, y) in pairs:
        expected = a.wup_similarity(b)
        assert table.wup_similarity(x, y) == expected, (a, b)
        values.add(expected)
    # Nouns, verbs (the simulated root), mixed pairs, and nouns the cut-down WordNet leaves
    # without a common hypernym (None, as NLTK) all occur.
    assert None in values and len(values) > 12


def test_the_table_is_cached_and_read_back_whole(reader_and_table, tiny_wordnet_env):
    _, table = reader_and_table
    path = sense_table_path(table.fingerprint)
    assert path.is_file() and path.parent.name == "wordnet-index"
    again = read_sense_table(path)
    assert again == table and again is not table
    assert again.pos_letters == table.pos_letters
    assert all(dict(again.senses[pos]) == dict(table.senses[pos]) for pos in "nvar")
    directory = locate_wordnet(allow_install=False)
    assert load_sense_table(directory, table.fingerprint) is table  # kept in memory


def test_a_damaged_or_foreign_table_is_named_with_the_way_out(tiny_wordnet_env):
    directory = locate_wordnet(allow_install=False)
    content = fingerprint(directory)
    path = sense_table_path(content)
    wordnet_senses._LOADED.clear()
    load_sense_table(directory, content)
    payload = json.loads(path.read_text())
    path.write_text(path.read_text()[:1000])
    wordnet_senses._LOADED.clear()
    with pytest.raises(ValueError, match=rf"{path.name}.*cannot be read.*delete it"):
        load_sense_table(directory, content)
    path.write_text(json.dumps({**payload, "format": 99}))
    with pytest.raises(ValueError, match="sense table format 99, expected 1; delete it"):
        load_sense_table(directory, content)
    path.write_text(json.dumps({**payload, "fingerprint": "0" * 64}))
    with pytest.raises(ValueError, match="another WordNet"):
        load_sense_table(directory, content)
    path.write_text(json.dumps({**payload, "min_depth": payload["min_depth"][:-1]}))
    with pytest.raises(ValueError, match="differ in length"):
        load_sense_table(directory, content)
    path.unlink()  # deleted: built again, as said
    assert len(load_sense_table(directory, content)) == len(payload["names"])


def test_lemma_senses_round_trip_and_reject_bad_offsets():
    table = {"dog": [3, 1], "cat": [2], "hot_dog": [0, 4, 5]}
    senses = LemmaSenses.of(table)
    assert dict(senses) == table and "dog" in senses and "bird" not in senses
    assert list(senses) == ["cat", "dog", "hot_dog"] and len(senses) == 3
    again = LemmaSenses.from_json(json.loads(json.dumps(senses.to_json())))
    assert dict(again) == table
    assert (
        dict(LemmaSenses.of({})) == {}
        and dict(LemmaSenses.from_json(LemmaSenses.of({}).to_json())) == {}
    )
    with pytest.raises(ValueError, match="starts do not match"):
        LemmaSenses(["dog"], [0, 3], [1])


# ------------------------------------------------------------------------------ relation index


def test_joined_relation_index_equals_the_built_one(tiny_wordnet_env):
    directory = locate_wordnet(allow_install=False)
    built = wordnet.build_index(directory)
    path = tiny_wordnet_env / "index.json"
    index_cache.save_index(built, path)
    read = index_cache.read_index(path)
    assert all(type(table) is wordnet.JoinedNames for table in read.related.values())
    assert read == built
    for word in [*list(built.lemma_names), "qqq", "hot_dog"]:
        assert read.all_related(word) == built.all_related(word), word
        for relation in built.relations:
            assert read.relation(relation, word) == built.relation(relation, word)


def test_an_index_of_the_first_format_is_converted_once(tiny_wordnet_env):
    directory = locate_wordnet(allow_install=False)
    names = wordnet.default_relations()
    current = index_cache._index_path(directory, names)
    earlier = index_cache._index_path(directory, names, version=1)
    built = wordnet.build_index(directory)
    payload = {
        "format": 1,
        "version": built.version,
        "fingerprint": built.fingerprint,
        "lemma_names": list(built.lemma_names),
        "related": {r: {w: list(v) for w, v in t.items()} for r, t in built.related.items()},
        "pos": dict(built.pos),
        "exceptions": {w: list(v) for w, v in built.exceptions.items()},
    }
    current.unlink()
    earlier.write_text(json.dumps(payload))
    index_cache._LOADED.clear()
    index = index_cache.load_index(progress=False)
    assert index == built
    assert current.is_file() and not earlier.exists()
    assert json.loads(current.read_text())["format"] == index_cache.INDEX_FORMAT == 2


def test_a_damaged_index_is_named_with_the_way_out(tmp_path):
    path = tmp_path / "relations-v2-x.json"
    path.write_text('{"format": 2, "related": {"syn')
    with pytest.raises(
        ValueError,
        match=r"relations-v2-x.json: the WordNet relation index cannot be read.*delete it",
    ):
        index_cache.read_index(path)
    path.write_text('{"format": 7}')
    with pytest.raises(ValueError, match="relation index format 7, expected 2; delete it"):
        index_cache.read_index(path)


def test_a_name_holding_the_separator_is_refused(tmp_path):
    index = wordnet.RelationIndex(
        version="3.0",
        fingerprint="x",
        lemma_names=("a",),
        related={"synonym": {"a": ("b|c",)}},
        pos={"a": "noun"},
    )
    with pytest.raises(ValueError, match="holds '\\|'"):
        index_cache.save_index(index, tmp_path / "index.json")


# ------------------------------------------------------------------------------ GloVe, gc


def test_glove_vocabulary_is_kept_as_text_after_the_first_read(tmp_path, monkeypatch):
    from lexbench.lexicon import vectors

    try:
        _, parquet = vectors.packaged_glove_files()
    except FileNotFoundError:
        pytest.skip("the packaged GloVe vectors are not installed")
    if not parquet.is_file():
        pytest.skip("the packaged GloVe vectors are not installed")
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path))
    first = vectors._cached_parquet_vocabulary(parquet)
    assert first == vectors._read_parquet_vocabulary(parquet) and len(first) == 400_000
    [kept] = (tmp_path / "vectors").glob("vocabulary-*.txt")

    def unread(path):
        raise AssertionError("the parquet file was read again")

    monkeypatch.setattr(vectors, "_read_parquet_vocabulary", unread)
    assert vectors._cached_parquet_vocabulary(parquet) == first
    assert kept.stat().st_size > 1_000_000


def test_paused_gc_freezes_only_in_the_command_line(monkeypatch):
    gc.unfreeze()
    before = gc.get_freeze_count()
    with wordnet_reader.paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == before == 0
    monkeypatch.setattr(wordnet_reader, "FREEZE_LOADED", [True])
    try:
        with wordnet_reader.paused_gc():
            kept = [[n] for n in range(1000)]
        assert gc.get_freeze_count() > len(kept)
    finally:
        gc.unfreeze()


def test_the_command_line_freezes_what_it_loads(tiny_wordnet_env, tmp_path):
    """`lexbench ...` (no argv given to main) freezes the index it loaded; a caller of
    main(argv) keeps its own heap as it was."""
    out = tmp_path / "items.jsonl"
    script = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('FROZEN', gc.get_freeze_count()))\n"
        "from lexbench.cli import main\n"
        f"sys.argv = ['lexbench', 'generate', 'lambda', '--per-relation', '2', '-o', {str(out)!r}]\n"
        "code = main()\n"
        f"main(['generate', 'lambda', '--per-relation', '2', '-o', {str(out)!r}])\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    frozen = int(done.stdout.split("FROZEN")[-1])
    assert frozen > 10_000
    in_process = subprocess.run(
        [sys.executable, "-c", script.replace("code = main()\n", "code = 0\n")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert in_process.returncode == 0, in_process.stderr
    assert int(in_process.stdout.split("FROZEN")[-1]) == 0
