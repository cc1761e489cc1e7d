"""WordNet 3.0 written as WN-LMF (tests/fixtures/wordnet_lmf/write_wordnet_lmf.py, from the
prepared Debian WordNet) gives the native index and byte-identical LAMBDA item files: the
default 3,000 items and the listing profile's.

CPU (2 cores, shared): converting about 13 s, once per session (the file is named by the
WordNet's fingerprint); building the WN-LMF index about 12 s (in this test's own cache, so
it is always built, never read from an earlier run); four generations about 1 s each.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lexbench.benchmarks.lambda_.items import LambdaConfig
from lexbench.benchmarks.lambda_.lmf import WordSource, generate_from

pytest.importorskip("wn")
sys.path.insert(0, str(Path(__file__).parent.parent / "fixtures" / "wordnet_lmf"))
from write_wordnet_lmf import write_wordnet_lmf


@pytest.fixture(scope="session")
def wordnet30_lmf(user_cache_root, tmp_path_factory) -> Path:
    """The prepared WordNet 3.0 as a WN-LMF file, written once per session."""
    from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet
    from lexbench.lexicon.wordnet.reader import open_reader

    directory = locate_wordnet()
    target = tmp_path_factory.mktemp("wordnet-lmf") / f"wn30-{fingerprint(directory)[:16]}.xml"
    counts = write_wordnet_lmf(open_reader(directory), target)
    assert counts["synsets"] == 117_659 and counts["senses"] == 206_978
    return target


def test_wordnet_as_wn_lmf_gives_the_native_index_and_the_same_item_files(
    wordnet30_lmf, wordnet_index, tmp_path, monkeypatch
):
    native_files = {}
    for profile in ("strict", "listing"):
        out = tmp_path / f"native-{profile}.jsonl"
        generate_from(LambdaConfig(profile=profile), WordSource(), out, progress=False)
        native_files[profile] = out
    # The WN-LMF index is built here, in a cache of this test's own.
    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    from lexbench.lexicon.wordnet.lmf import lmf_index

    lmf = lmf_index(wordnet30_lmf)
    assert lmf.version == "pwn:3.0 (en)"
    assert lmf.lemma_names == wordnet_index.lemma_names  # 147,306, lowercased as NLTK's
    assert dict(lmf.pos) == dict(wordnet_index.pos)
    assert set(lmf.related) == set(wordnet_index.related)
    for relation, table in wordnet_index.related.items():
        assert dict(lmf.related[relation]) == dict(table), relation
    # Exception lists: NLTK keeps the last of a form's repeated lines, the native index all.
    differing = {
        form
        for form in set(lmf.exceptions) | set(wordnet_index.exceptions)
        if lmf.exceptions.get(form) != wordnet_index.exceptions.get(form)
    }
    assert differing == {"aurar", "involucra", "offer"}
    for profile, native in native_files.items():
        out = tmp_path / f"lmf-{profile}.jsonl"
        source = WordSource(wordnet_lmf=str(wordnet30_lmf))
        drawn = generate_from(LambdaConfig(profile=profile), source, out, progress=False)
        assert len(drawn.items) == 3000
        assert out.read_bytes() == native.read_bytes(), profile
