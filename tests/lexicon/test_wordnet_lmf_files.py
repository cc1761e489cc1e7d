"""WN-LMF files, hand-made: the rules (every lemma of every synset, case-insensitive lookup,
English base forms, synset-level relations, one-way links), the cache, and every bad file
(one line naming the file and the problem, exit status 2, nothing left behind)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.lexicon.wordnet import lmf as wordnet_lmf
from lexbench.lexicon.wordnet import lmf_read as wordnet_lmf_read
from lexbench.lexicon.wordnet.lmf import LMF_RELATIONS, lmf_index
from lexbench.lexicon.wordnet.lmf_read import LmfFileError

pytest.importorskip("wn")

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE LexicalResource SYSTEM "http://globalwordnet.github.io/schemas/WN-LMF-1.0.dtd">\n'
    '<LexicalResource xmlns:dc="https://globalwordnet.github.io/schemas/dc/">\n'
)
LEXICON = (
    '<Lexicon id="t" label="t" language="{language}" email="t@example.org" '
    'license="https://example.org" version="1">\n'
)


def entry(number: int, lemma: str, pos: str, synset: str, links: str = "", forms: str = "") -> str:
    sense = f'<Sense id="s{number}" synset="{synset}">{links}</Sense>' if synset else ""
    return (
        f'<LexicalEntry id="e{number}"><Lemma writtenForm="{lemma}" partOfSpeech="{pos}"/>'
        f"{forms}{sense}</LexicalEntry>\n"
    )


def synset(name: str, pos: str, links: str = "") -> str:
    return f'<Synset id="{name}" ili="" partOfSpeech="{pos}">{links}</Synset>\n'


def write(tmp_path: Path, body: str, language: str = "en", name: str = "w.xml") -> Path:
    path = tmp_path / name
    lexicon = LEXICON.format(language=language) + body + "</Lexicon>\n"
    path.write_text(HEADER + lexicon + "</LexicalResource>\n", encoding="utf-8")
    return path


ANT = '<SenseRelation relType="antonym" target="{}"/>'
# hot/warm one synset, cold/chilly another; only "hot" and "cold" are linked (both ways).
TEMPERATURE = (
    entry(1, "hot", "a", "hot", ANT.format("s3"))
    + entry(2, "Warm", "a", "hot")
    + entry(3, "cold", "a", "cold", ANT.format("s1"))
    + entry(4, "chilly", "a", "cold")
    + entry(5, "glass", "n", "glass")
    + entry(6, "drinking glass", "n", "glass")
    + entry(7, "glasses", "n", "specs")
    + entry(8, "spectacles", "n", "specs")
    + entry(9, "mouse", "n", "mouse", forms='<Form writtenForm="mice"/>')
    + entry(10, "mice", "n", "mice")
    + synset("hot", "a")
    + synset("cold", "a")
    + synset("glass", "n")
    + synset("specs", "n")
    + synset("mouse", "n")
    + synset("mice", "n")
)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("LEXBENCH_CACHE", str(cache))
    monkeypatch.setattr(wordnet_lmf, "_LOADED", {})
    return cache


def left_behind(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file())


# ------------------------------------------------------------------------------- the rules


def test_listing_1_over_every_lemma_case_insensitive_with_english_base_forms(tmp_path):
    index = lmf_index(write(tmp_path, TEMPERATURE))
    # Every lemma of every synset of the word: "chilly" gets "cold"'s antonym (a sense link:
    # "cold" to "hot" only, not to "Warm").
    assert index.relation("antonym", "chilly") == ("hot",)
    assert index.relation("antonym", "warm") == ("cold",)
    # Looked up lowercased, written as the file writes them.
    assert "warm" in index.lemma_names and "Warm" not in index.lemma_names
    assert index.relation("synonym", "hot") == ("Warm",)
    # English: morphy's rules ("glasses" -> "glass") and the file's <Form>s ("mice" -> mouse).
    assert index.relation("synonym", "glasses") == ("drinking glass", "glass", "spectacles")
    assert index.exceptions == {"mice": ("mouse",)}
    assert index.relation("synonym", "mice") == ("mouse",)  # its own synset, and mouse's


def test_another_language_gets_no_base_form_lookup(tmp_path):
    index = lmf_index(write(tmp_path, TEMPERATURE, language="xx"))
    assert index.relation("synonym", "glasses") == ("spectacles",)
    assert index.relation("synonym", "mice") == ()
    assert index.exceptions == {}


def test_synset_level_relations_link_every_lemma_of_both_synsets(tmp_path, capsys):
    body = (
        entry(1, "alku", "n", "start")
        + entry(2, "aloitus", "n", "start")
        + entry(3, "loppu", "n", "end")
        + entry(4, "pääte", "n", "end")
        + synset("start", "n", '<SynsetRelation relType="antonym" target="end"/>')
        + synset("end", "n", '<SynsetRelation relType="antonym" target="start"/>')
    )
    index = lmf_index(write(tmp_path, body, language="fi"))
    assert index.relation("antonym", "aloitus") == ("loppu", "pääte")
    assert index.relation("antonym", "pääte") == ("alku", "aloitus")
    assert "one way" not in capsys.readouterr().err


def test_a_relation_stored_one_way_counts_both_ways_and_says_so(tmp_path, capsys):
    body = (
        entry(1, "iso", "a", "big", ANT.format("s2"))
        + entry(2, "pieni", "a", "small")
        + synset("big", "a")
        + synset("small", "a")
    )
    index = lmf_index(write(tmp_path, body, language="fi"))
    assert index.relation("antonym", "pieni") == ("iso",)
    assert "stores antonym links one way; each counts both ways" in capsys.readouterr().err


# ------------------------------------------------------------------------------- the cache


def test_the_index_is_cached_on_the_file_s_content_with_the_relations_asked_for(
    tmp_path, own_cache, monkeypatch
):
    path = write(tmp_path, TEMPERATURE)
    index = lmf_index(path, relations=("synonym", "antonym"))
    assert set(index.related) == {"synonym", "antonym"}  # only those asked for
    assert len(list((own_cache / "wordnet-index").glob("lmf-*.json"))) == 1
    # The same content elsewhere, in a new process's memory: read, not built.
    copy = tmp_path / "elsewhere" / "copy.xml"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(wordnet_lmf, "_LOADED", {})

    def never(*args):
        raise AssertionError("rebuilt")

    monkeypatch.setattr(wordnet_lmf, "build_lmf_index", never)
    assert lmf_index(copy, relations=("synonym", "antonym")).related == index.related
    with pytest.raises(AssertionError, match="rebuilt"):
        lmf_index(copy, relations=LMF_RELATIONS)  # other relations: another index
    copy.write_text(copy.read_text().replace("chilly", "icy"))
    with pytest.raises(AssertionError, match="rebuilt"):
        lmf_index(copy, relations=("synonym", "antonym"))  # other content


# ------------------------------------------------------------------------------- bad files


def refused(path: Path, cache: Path, match: str) -> None:
    with pytest.raises(LmfFileError, match=match) as caught:
        lmf_index(path)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    assert left_behind(cache) == []


def test_a_missing_required_attribute_is_named(tmp_path, own_cache):
    no_email = write(tmp_path, TEMPERATURE).read_text().replace(' email="t@example.org"', "")
    (tmp_path / "a.xml").write_text(no_email)
    refused(tmp_path / "a.xml", own_cache, "<Lexicon> missing required attribute: email")
    body = entry(1, "hot", "a", "hot", '<SenseRelation target="s1"/>') + synset("hot", "a")
    refused(write(tmp_path, body), own_cache, "a relation lacks the required attribute relType")


def test_truncated_and_corrupt_gzip_files_are_refused(tmp_path, own_cache):
    packed = gzip.compress(write(tmp_path, TEMPERATURE).read_bytes())
    (tmp_path / "cut.xml.gz").write_bytes(packed[: len(packed) // 2])
    refused(tmp_path / "cut.xml.gz", own_cache, r"cannot unpack the gzipped file \(it ends early\)")
    (tmp_path / "bad.xml.gz").write_bytes(packed[:10] + b"\xff" * 40 + packed[50:])
    refused(tmp_path / "bad.xml.gz", own_cache, "cannot unpack the gzipped file")
    (tmp_path / "good.xml.gz").write_bytes(packed)
    assert lmf_index(tmp_path / "good.xml.gz").relation("antonym", "chilly") == ("hot",)
    assert [p for p in left_behind(own_cache) if "wordnet-lmf" in p] == []  # unpacked: gone


def test_a_file_unpacking_past_the_cap_is_stopped_and_removed(tmp_path, own_cache, monkeypatch):
    monkeypatch.setattr(wordnet_lmf_read, "MAX_UNPACKED_BYTES", 3 << 20)
    (tmp_path / "zeros.xml.gz").write_bytes(gzip.compress(bytes(8 << 20)))
    refused(tmp_path / "zeros.xml.gz", own_cache, "unpacks to more than 3,145,728 bytes")


def test_undeclared_entities_are_refused_with_their_count(tmp_path, own_cache):
    body = entry(1, "caf&eacute;", "n", "c") + entry(2, "&bogus;", "n", "c") + synset("c", "n")
    refused(write(tmp_path, body), own_cache, r"2 references to entities .*\(&bogus;, &eacute;\)")
    fine = entry(1, "AT&amp;T", "n", "c") + entry(2, "caf&#233;", "n", "c") + synset("c", "n")
    assert lmf_index(write(tmp_path, fine)).relation("synonym", "café") == ("AT&T",)


def test_dangling_relations_and_repeated_ids_are_left_out_with_a_warning(tmp_path, capsys):
    body = (
        entry(1, "hot", "a", "hot", ANT.format("s3") + ANT.format("nowhere"))
        + entry(3, "cold", "a", "cold", ANT.format("s1"))
        + entry(3, "again", "a", "cold")
        + entry(4, "lost", "a", "no-such-synset")
        + synset("hot", "a", '<SynsetRelation relType="similar" target="gone"/>')
        + synset("cold", "a")
        + synset("cold", "a")
    )
    index = lmf_index(write(tmp_path, body))
    assert index.relation("antonym", "hot") == ("cold",) and "again" not in index.lemma_names
    assert "lost" not in index.lemma_names
    err = capsys.readouterr().err
    # Dangling: s-nowhere, the sense of "lost", the link to "gone"; repeated: e3 and "cold".
    assert "3 relations point to no sense or synset; 2 ids repeat (the first of each kept)" in err


# The Romanian wordnet marks reflexive pronouns with bars (560 lemmas such as "|se| grăbi"):
# `|` joins names in the cached index and a line break splits a LAMBDA prompt's lines.
REFLEXIVE = (
    entry(1, "grăbi", "v", "hurry")
    + entry(2, "zori", "v", "hurry")
    + entry(3, "|se| grăbi", "v", "hurry", '<SenseRelation relType="derivation" target="s9"/>')
    + entry(4, "|se| duce", "v", "go")
    + entry(5, "mare", "a", "big")
    + entry(6, "uriaș", "a", "big")
    + entry(7, "casă", "n", "house")
    + entry(8, "locuință", "n", "house")
    + entry(9, "grabă", "n", "haste", '<SenseRelation relType="derivation" target="s1"/>')
    + entry(10, "cămin&#10;ul", "n", "house")  # a line break, as a character reference
    + entry(11, "grăbit", "a", "hasty", '<SenseRelation relType="derivation" target="s3"/>')
    + synset("hurry", "v")
    + synset("go", "v")
    + synset("big", "a")
    + synset("house", "n")
    + synset("haste", "n")
    + synset("hasty", "a")
)


def test_lemmas_lambda_prompts_cannot_carry_are_left_out_with_one_warning(tmp_path, capsys):
    """Before, the whole file was refused, after parsing it all, naming no file: "a
    WordNet name holds '|'"."""
    path = write(tmp_path, REFLEXIVE, language="ro", name="ro.xml")
    index = lmf_index(path, relations=("synonym", "derivation"))
    assert not [name for name in index.lemma_names if "|" in name or "\n" in name]
    assert index.relation("synonym", "grăbi") == ("zori",)
    assert index.relation("synonym", "casă") == ("locuință",)
    assert index.relation("derivation", "grabă") == ("grăbi",)  # its link to s3 went too
    assert "grăbit" not in index.related["derivation"]  # its only link was to s3
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        f"lexbench: warning: {path}: 3 lemma(s) hold a character LAMBDA's prompts cannot carry "
        "('|' or a line break; e.g. '|se| grăbi'); left out"
    ]  # the links to their senses are not counted as pointing to nothing


def test_the_generate_command_reads_such_a_wordnet_with_one_warning(tmp_path, own_cache):
    path = write(tmp_path, REFLEXIVE, language="ro", name="ro.xml")
    out = tmp_path / "ro.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "lexbench.cli", "generate", "lambda", "--wordnet-lmf", str(path),
         "--language", "ro", "--relations", "synonym", "--per-relation", "1", "-o", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "lemma(s) hold" in line]
    assert len(said) == 1 and str(path) in said[0] and "3 lemma(s)" in said[0]
    [item] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert "|" not in json.dumps(item, ensure_ascii=False)


def test_no_lexicon_and_an_empty_lexicon_are_refused(tmp_path, own_cache):
    bare = tmp_path / "bare.xml"
    bare.write_text(HEADER + "</LexicalResource>\n")
    refused(bare, own_cache, "holds no lexicon")
    refused(write(tmp_path, ""), own_cache, "the lexicon t holds no word with a sense")
    refused(write(tmp_path, entry(1, "a", "n", "")), own_cache, "holds no word with a sense")


def test_entity_declarations_and_broken_xml_are_refused(tmp_path, own_cache):
    laughs = tmp_path / "laughs.xml"
    laughs.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE LexicalResource [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n'
        "<LexicalResource>&b;</LexicalResource>\n"
    )
    refused(laughs, own_cache, "laughs.xml: its DOCTYPE declares entities")
    external = tmp_path / "external.xml"
    external.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE LexicalResource [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        "<LexicalResource>&x;</LexicalResource>\n"
    )
    refused(external, own_cache, "external.xml: its DOCTYPE declares entities")
    # WN-LMF's own DOCTYPE line with entities declared after it, over several lines (a
    # national wordnet's `&icirc;`): the same, not "no LexicalResource header".
    declared = tmp_path / "declared.xml"
    declared.write_text(
        HEADER.replace('.dtd">', '.dtd" [\n  <!ENTITY icirc "&#238;">\n]>')
        + LEXICON.format(language="ro")
        + entry(1, "&icirc;n", "p", "in")
        + synset("in", "p")
        + "</Lexicon>\n</LexicalResource>\n"
    )
    refused(declared, own_cache, "declared.xml: its DOCTYPE declares entities .*refused unread")
    plain = tmp_path / "plain.xml"  # a file that is no WN-LMF file at all is still named so
    plain.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<html></html>\n')
    refused(plain, own_cache, "plain.xml is not a WN-LMF file")
    cut = tmp_path / "cut.xml"
    cut.write_bytes(write(tmp_path, TEMPERATURE).read_bytes()[:-200])
    refused(cut, own_cache, "not a valid WN-LMF file .*ill-formed XML")


def test_the_command_says_one_line_and_exits_2(tmp_path, own_cache):
    packed = gzip.compress(write(tmp_path, TEMPERATURE).read_bytes())
    (tmp_path / "cut.xml.gz").write_bytes(packed[:-30])
    done = subprocess.run(
        [sys.executable, "-m", "lexbench.cli", "generate", "lambda", "--wordnet-lmf",
         str(tmp_path / "cut.xml.gz"), "--per-relation", "1", "-o", str(tmp_path / "o.jsonl")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "cut.xml.gz: cannot unpack" in done.stderr
    assert not (tmp_path / "o.jsonl").exists() and left_behind(own_cache) == []
