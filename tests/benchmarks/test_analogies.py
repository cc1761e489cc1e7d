"""The classic sets: Google (and gensim agreement), BATS from a hand-made zip, pair files."""

from __future__ import annotations

import hashlib
import json

import pytest

from lexbench import api
from lexbench.benchmarks.analogies.data import Analogy, limit_per_mapping
from lexbench.benchmarks.analogies.google import GOOGLE_SHA256, load_google, locate_google
from lexbench.benchmarks.analogies.pairs import (
    BATS_SHA1,
    load_pair_file,
    locate_bats,
    parse_pair_lines,
    read_pair_collection,
    verify_bats,
    zip_bytes,
)
from lexbench.benchmarks.analogies.prompts import choose_shots

BATS_FIXTURE = {
    "BATS_3.0/3_Encyclopedic_semantics/E01 [country - capital].txt": "france\tparis\ngermany\tberlin\nitaly\trome\njapan\ttokyo\n",
    "BATS_3.0/1_Inflectional_morphology/I01 [noun - plural_reg].txt": "cat\tcats\ndog\tdogs\r\ncar\tcars/automobiles\n\nhouse houses\n",
    "BATS_3.0/__MACOSX/._junk.txt": "not a pair file",
}


@pytest.fixture
def bats_zip(tmp_path):
    path = tmp_path / "BATS_mini.zip"
    path.write_bytes(zip_bytes(BATS_FIXTURE))
    return path


def test_google_file_is_the_pinned_one_and_loads():
    path = locate_google()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == GOOGLE_SHA256
    items = load_google()
    assert len(items) == 19544
    assert len({i.mapping for i in items}) == 14
    assert sum(i.type == "semantic" for i in items) == 8869
    assert items[0] == Analogy(
        "capital-common-countries/0000",
        "Athens",
        "Greece",
        "Baghdad",
        "Iraq",
        (),
        "semantic",
        "capital-common-countries",
    )


def _google_subset(path, every: int):
    """Every `every`-th question of each section of the Google file (headers kept)."""
    lines, seen = [], 0
    for line in locate_google().read_text(encoding="utf-8").splitlines():
        if line.startswith(":"):
            lines.append(line)
            seen = 0
            continue
        if seen % every == 0:
            lines.append(line)
        seen += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _ours_and_gensims(questions, tmp_path):
    """Our vectorised 3CosAdd through the benchmark, and gensim's evaluate_word_analogies on a
    KeyedVectors of the same matrix: packaged GloVe, the 30,000 most frequent words."""
    gensim_models = pytest.importorskip("gensim.models")
    from lexbench.lexicon.vectors import load_packaged_glove
    from lexbench.models.embeddings import WordVectorModel

    glove = load_packaged_glove()
    ours = api.run(
        "google",
        WordVectorModel(glove, source="glove", restrict=30000),
        data=questions,
        out=tmp_path / "runs",
        progress=False,
        use_cache=False,
    )
    top = glove.restrict(30000)
    keyed = gensim_models.KeyedVectors(vector_size=top.dim)
    keyed.add_vectors(list(top.words), top.matrix)
    score, sections = keyed.evaluate_word_analogies(str(questions), restrict_vocab=30000)
    samples = [json.loads(line) for line in ours.folder.samples_path.read_text().splitlines()]
    return ours.results["overall"], samples, score, sections


def _assert_agreement(overall, samples, score, sections):
    total = sections[-1]
    assert overall["scored"] == len(total["correct"]) + len(total["incorrect"])
    assert abs(overall["acc_at_1"]["estimate"] - score) * 100 <= 0.5
    for section in sections[:-1]:  # per section too: a sharper check
        mine = [
            s for s in samples if s["mapping"] == section["section"] and s["correct"] is not None
        ]
        assert len(mine) == len(section["correct"]) + len(section["incorrect"])
        assert abs(sum(s["correct"] for s in mine) - len(section["correct"])) <= max(
            2, len(mine) // 200
        )


def test_3cosadd_on_google_matches_gensim_on_a_stratified_fifth(tmp_path):
    """Every fifth question of each section: gensim needs ~4 ms a question, so the whole
    set is the slow test in test_analogies_gensim.py."""
    questions = _google_subset(tmp_path / "google-fifth.txt", every=5)
    _assert_agreement(*_ours_and_gensims(questions, tmp_path))


def test_bats_zip_layout_questions_and_alternatives(bats_zip):
    items = read_pair_collection(bats_zip)
    capitals = [i for i in items if i.mapping == "E01 [country - capital]"]
    plurals = [i for i in items if i.mapping == "I01 [noun - plural_reg]"]
    assert len(capitals) == 4 * 3 and len(plurals) == 4 * 3  # ordered pairs of lines
    assert {i.type for i in capitals} == {"3_Encyclopedic_semantics"}
    to_car = [i for i in plurals if i.c == "car"]
    assert {(i.d, i.alternatives) for i in to_car} == {("cars", ("automobiles",))}
    from_car = [i for i in plurals if i.a == "car"]
    assert {i.b for i in from_car} == {"cars"}  # b: the first target only
    assert len({i.id for i in items}) == len(items)
    assert [i.id for i in read_pair_collection(bats_zip)] == [i.id for i in items]


def test_bats_checks_and_errors(bats_zip, tmp_path):
    assert len(BATS_SHA1) == 40 and len({k.split("/")[0] for k in BATS_SHA1}) == 4
    with pytest.raises(ValueError, match=r"is not BATS 3.0: 38 file"):
        verify_bats(bats_zip)
    with pytest.raises(FileNotFoundError, match="no BATS zip or folder"):
        locate_bats(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="expected 'word1<TAB>word2"):
        parse_pair_lines("lonely\n", "x.txt")
    one = tmp_path / "one.txt"
    one.write_text("a\tb\n")
    with pytest.raises(ValueError, match="at least two pairs"):
        read_pair_collection(one)


def test_a_failed_bats_download_names_the_data_option(tmp_path, monkeypatch, capsys):
    """Offline (no network, empty cache), the error says how to give BATS by hand, as
    E-KAR's does: the zip or folder with --data."""
    import urllib.error
    import urllib.request

    from lexbench.cli import main
    from lexbench.datasets.fetch import DownloadError

    def offline(*args, **kwargs):
        raise urllib.error.URLError("no network")

    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(DownloadError, match=r"could not download BATS.*--data PATH"):
        locate_bats()
    assert main(["run", "bats", "--model", "glove", "--no-cache", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "BATS_3.0.zip" in err and "--data PATH" in err


def test_glove_on_the_bats_fixture(bats_zip, tmp_path):
    from lexbench.models.registry import load_model

    run = api.run(
        "bats",
        load_model("glove", {}),
        data=bats_zip,
        out=tmp_path / "runs",
        progress=False,
        use_cache=False,
        method="3cosadd",
    )
    capitals = run.results["by_type"]["3_Encyclopedic_semantics"]
    assert capitals["n"] == 12 and capitals["scored"] == 12
    assert capitals["acc_at_1"]["estimate"] >= 0.75
    assert run.results["overall"]["n"] == 24
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    assert all(
        {"id", "correct", "value", "error_class", "type", "mapping"} <= set(s) for s in samples
    )
    assert (run.folder.path / "figures" / "mrr_by_type.png").is_file()


def test_pair_files_by_path(tmp_path):
    questions = tmp_path / "mine.txt"
    questions.write_text(": family\nboy girl brother sister\nking queen man woman\n")
    items = load_pair_file(questions)
    assert [(i.a, i.b, i.c, i.d, i.mapping) for i in items] == [
        ("boy", "girl", "brother", "sister", "family"),
        ("king", "queen", "man", "woman", "family"),
    ]
    pairs = tmp_path / "antonyms.txt"
    pairs.write_text("hot\tcold\nbig\tsmall/little\nup\tdown\n")
    assert len(load_pair_file(pairs)) == 6
    bad = tmp_path / "bad.txt"
    bad.write_text(": s\none two three\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: expected four words"):
        load_pair_file(bad)


def test_limit_and_shots_are_deterministic_and_disjoint():
    items = [
        Analogy(f"r/{i}", f"a{i}", f"b{i}", f"c{i}", f"d{i}", (), "t", f"m{i % 3}")
        for i in range(30)
    ]
    first = limit_per_mapping(items, 4, seed=1)
    assert len(first) == 12 and first == limit_per_mapping(items, 4, seed=1)
    assert {i.id for i in limit_per_mapping(list(reversed(items)), 4, seed=1)} == {
        i.id for i in first
    }
    assert {i.id for i in limit_per_mapping(items, 4, seed=2)} != {i.id for i in first}
    shot = choose_shots(items[0], items, 1, seed=3)
    assert shot == choose_shots(items[0], list(reversed(items)), 1, seed=3)
    assert len(shot) == 1 and shot[0].id != items[0].id
    assert not (shot[0].words() & items[0].words())
    lonely = [Analogy("x", "w", "w", "w", "w"), Analogy("y", "w", "v", "v", "v")]
    with pytest.raises(ValueError, match="share no word"):
        choose_shots(lonely[0], lonely, 1, seed=0)


SAT_TEXT = """# a hand-made SAT-format file
190 FROM REAL SATs
ostrich bird n:n
lion cat n:n
goose flock n:n
ewe sheep n:n
cub bear n:n
primate monkey n:n
a

ML:1 from a workbook
king queen n:n
man woman n:n
cat dog n:n
red blue a:a
a
"""


def test_sat_style_files_and_vectors(tmp_path):
    from lexbench.benchmarks.analogies.choice import read_choice_file

    text_file = tmp_path / "sat.txt"
    text_file.write_text(SAT_TEXT)
    items = read_choice_file(text_file)
    assert [(i.a, i.b, len(i.choices), i.answer) for i in items] == [
        ("ostrich", "bird", 5, 0),
        ("king", "queen", 3, 0),
    ]
    # The source line is the item's type; it is never read as a stem.
    assert [i.type for i in items] == ["190 FROM REAL SATs", "ML:1 from a workbook"]
    headed = tmp_path / "headed.txt"
    headed.write_text(
        "A file header line\n\n" + SAT_TEXT.replace("# a hand-made SAT-format file\n", "")
    )
    assert [(i.a, i.b) for i in read_choice_file(headed)] == [
        ("ostrich", "bird"),
        ("king", "queen"),
    ]
    glued = tmp_path / "glued.txt"
    glued.write_text("A file header glued to the first block\n" + SAT_TEXT)
    [first, _] = read_choice_file(glued)
    assert (first.a, first.b, first.type) == ("ostrich", "bird", "190 FROM REAL SATs")
    jsonl = tmp_path / "sat.jsonl"
    jsonl.write_text(
        "\n".join(
            json.dumps(
                {"stem": [i.a, i.b], "answer": i.answer, "choice": [list(c) for c in i.choices]}
            )
            for i in items
        )
    )
    assert [(i.a, i.choices, i.answer) for i in read_choice_file(jsonl)] == [
        (i.a, i.choices, i.answer) for i in items
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"stem": ["a", "b"], "choice": [["c", "d"]], "answer": 3}\n')
    with pytest.raises(ValueError, match="two or more choices"):
        read_choice_file(bad)

    from lexbench.models.registry import load_model

    run = api.run(
        "sat",
        load_model("glove", {}),
        data=jsonl,
        out=tmp_path / "runs",
        progress=False,
        use_cache=False,
    )
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    # king : queen :: man : woman is the pair-direction method's easy case.
    assert samples[1]["order"][0] == 0 and samples[1]["correct"] is True
    assert run.results["metrics"] == ["acc_at_1", "mrr"] and run.results["overall"]["n"] == 2


def test_sat_with_a_causal_lm_uses_loglikelihoods(tmp_path):
    from mock_model import ScriptedModel

    sat = tmp_path / "sat.txt"
    sat.write_text(SAT_TEXT)
    seen = []

    def loglikelihoods(request):
        seen.append(request)
        return [
            -10.0 + (3.0 if "woman" in c else 0.0) - i for i, c in enumerate(request.continuations)
        ]

    model = ScriptedModel(loglikelihoods=loglikelihoods)
    run = api.run("sat", model, data=sat, out=tmp_path / "runs", progress=False, use_cache=False)
    assert seen[0].prompt == "If ostrich is like bird, then"
    assert seen[0].continuations[0] == " lion is like cat."
    samples = [json.loads(line) for line in run.folder.samples_path.read_text().splitlines()]
    assert [s["correct"] for s in samples] == [True, True]
    assert [s["value"] for s in samples] == [1.0, 1.0]


def test_command_line_for_the_classic_sets(bats_zip, tmp_path, capsys):
    from lexbench.cli import main

    common = ["--out", str(tmp_path / "runs"), "--no-cache", "--no-progress"]
    glove = ["--model", "glove"]  # every run defaults to the packaged SmolLM2
    assert (
        main(["run", "bats", "--data", str(bats_zip), "--method", "3cosmul", *glove, *common]) == 0
    )
    assert "| 3_Encyclopedic_semantics | 12 | 12 |" in capsys.readouterr().out
    assert main(["run", "pairs", "--data", str(tmp_path / "none.txt"), *glove, *common]) == 2
    assert "No such file or folder (data)" in capsys.readouterr().err  # before any model loads


def test_bats_defaults_are_scans_so_the_papers_glove_comparison_is_one_command(bats_zip, tmp_path):
    # The SCAN paper compares GloVe on BATS and on SCAN with one baseline: |b - a| + c with
    # question words allowed, a missing item counted wrong. Google keeps gensim's rules.
    from lexbench.models.registry import load_model

    glove = load_model("glove", {})
    bats = api.run(
        "bats", glove, data=bats_zip, out=tmp_path / "runs", progress=False, use_cache=False
    )
    scan = api.run("scan", glove, limit=10, out=tmp_path / "runs", progress=False, use_cache=False)
    config_of = lambda run: json.loads(run.folder.config_path.read_text())["benchmark"]  # noqa: E731
    assert (
        {k: config_of(bats)[k] for k in ("method", "oov_policy")}
        == {k: config_of(scan)[k] for k in ("method", "oov_policy")}
        == {"method": "scan-paper", "oov_policy": "wrong"}
    )
    google = api.run(
        "google",
        glove,
        limit_per_relation=1,
        out=tmp_path / "runs",
        progress=False,
        use_cache=False,
    )
    assert (config_of(google)["method"], config_of(google)["oov_policy"]) == ("3cosadd", "skip")
