"""E-KAR explanation generation: the paper's input (Appendix A.1: the query and all
candidates, E_Q in EASY mode, which explanation to write) and lexbench's instruct format,
both modes, ROUGE-2 and sentence similarity per explanation (Chinese refused with the
English MiniLM), BLEURT and MoverScore skipped with the reason or run when planned, tables
with bootstrap intervals."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from lexbench.benchmarks.ekar.explain import ExplanationBenchmark, load_explanation_benchmark
from lexbench.benchmarks.ekar.explain_prompts import explanation_prompt
from lexbench.benchmarks.ekar.files import read_split
from lexbench.benchmarks.ekar.splits import find_split_file
from lexbench.run.evaluate import evaluate
from mock_model import ScriptedModel

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ekar"
FOLDERS = {"en": FIXTURES / "english", "zh": FIXTURES / "chinese"}


def items(language, split="validation"):
    return read_split(find_split_file(FOLDERS[language], split), language)


@pytest.fixture(scope="module")
def minilm():
    from lexbench.metrics.similarity import SentenceSimilarity

    return SentenceSimilarity()


@pytest.fixture(scope="module")
def multilingual_standin(tmp_path_factory):
    """The packaged MiniLM's files under a model card that declares `multilingual`: a
    stand-in for a real multilingual encoder (none ships offline) to run the Chinese path."""
    from lexbench.metrics.similarity import SentenceSimilarity, packaged_minilm_folder

    source = packaged_minilm_folder()
    folder = tmp_path_factory.mktemp("multilingual-standin")
    for path in source.iterdir():
        if path.name != "README.md":
            (folder / path.name).symlink_to(path)
    (folder / "README.md").write_text("---\nlanguage:\n- multilingual\n- zh\n---\n")
    return SentenceSimilarity(folder)


def test_paper_prompts_follow_appendix_a1():
    item = items("en")[0]  # timber:furniture; flour:bakery ... glass:transparent
    candidates = (
        "candidate = flour : bakery </s> candidate = chair : table </s> "
        "candidate = cotton : shirt </s> candidate = glass : transparent"
    )
    assert explanation_prompt(item, "Q", "hard") == (
        f"query = timber : furniture </s> {candidates} </s> generate the explanation of Q"
    )
    assert explanation_prompt(item, "C", "hard") == (
        f"query = timber : furniture </s> {candidates} </s> generate the explanation of C"
    )
    assert explanation_prompt(item, "C", "easy") == (
        f"query = timber : furniture </s> query explanation = {item.explanations[0]} </s> "
        f"{candidates} </s> generate the explanation of C"
    )
    # The candidates' own explanations never reach the input.
    assert all(e not in explanation_prompt(item, "A", "easy") for e in item.explanations[1:])
    three = items("zh")[2]
    assert explanation_prompt(three, "D", "hard").startswith(
        "query = 水果 : 苹果 : 香蕉 </s> candidate = 交通工具 : 汽车 : 车轮 </s>"
    )
    with pytest.raises(ValueError, match="EASY mode gives E_Q as input"):
        explanation_prompt(item, "Q", "easy")
    with pytest.raises(ValueError, match="unknown explanation target"):
        explanation_prompt(item, "E", "hard")


def test_instruct_prompts_show_the_same_information():
    item = items("en")[0]
    prompt = explanation_prompt(item, "C", "easy", "instruct")
    assert prompt.splitlines()[:3] == [
        "Query: timber : furniture",
        f"Explanation of the query: {item.explanations[0]}",
        "Candidates:",
    ]
    assert "A. flour : bakery" in prompt and "D. glass : transparent" in prompt
    assert "explanation of candidate C" in prompt and prompt.endswith("Explanation:")
    query = explanation_prompt(item, "Q", "hard", "instruct")
    assert "B. chair : table" in query and "explanation of the query" in query
    zh = explanation_prompt(items("zh")[0], "B", "hard", "instruct")
    assert "题干：木材：家具" in zh and "C. 棉花：衬衫" in zh and "选项B的解释" in zh
    with pytest.raises(ValueError, match="unknown prompt format"):
        explanation_prompt(item, "A", "hard", "chatty")


def test_every_request_carries_the_whole_problem():
    dataset = items("en")[:2]
    for mode, targets in (("hard", "QABCD"), ("easy", "ABCD")):
        bench = ExplanationBenchmark(dataset=dataset, mode=mode)
        requests = bench.requests(dataset[0])
        assert [r.id for r in requests] == [f"{dataset[0].id}:E{t}" for t in targets]
        for request, target in zip(requests, targets):
            assert request.prompt.count("candidate = ") == 4
            assert request.prompt.endswith(f"generate the explanation of {target}")
            assert ("query explanation = " in request.prompt) == (mode == "easy")
    assert (
        ExplanationBenchmark(dataset=dataset, prompt_format="instruct").config()["prompt_format"]
        == "instruct"
    )
    with pytest.raises(ValueError, match="unknown prompt format"):
        ExplanationBenchmark(dataset=dataset, prompt_format="chatty")


def echo_reference(request_id, dataset):
    """A scripted model that returns the reference for half the targets and nonsense else."""
    by_id = {i.id: i for i in dataset}
    item_id, target = request_id.rsplit(":E", 1)
    item = by_id[item_id]
    reference = item.explanations[0 if target == "Q" else 1 + "ABCD".index(target)]
    # A leading newline and a second line, as small models write: only the first
    # non-empty line is the explanation.
    return f"\n{reference}\nMore text." if target in ("Q", "A", "C") else "bananas are yellow"


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("mode", ["hard", "easy"])
def test_explanations_scored_with_rouge_and_similarity(
    tmp_path, minilm, multilingual_standin, language, mode
):
    dataset = items(language)[:4]
    model = ScriptedModel(reply=lambda r: echo_reference(r.id, dataset))
    benchmark = ExplanationBenchmark(
        dataset=dataset,
        language=language,
        mode=mode,
        similarity=minilm if language == "en" else multilingual_standin,
    )
    evaluation = evaluate(benchmark, model, out_root=tmp_path, progress=False)
    tables = evaluation.results["explanations"]
    if mode == "hard":
        assert len(model.sent) == 4 * 5
        assert tables["E_Q"]["rouge2_f1"]["estimate"] == pytest.approx(1.0)
        assert tables["E_Q"]["similarity"]["estimate"] == pytest.approx(1.0, abs=1e-4)
    else:
        assert len(model.sent) == 4 * 4 and "E_Q" not in tables
    # E_A: A and C echo the reference, B and D are nonsense -> F1 is the mean of 1, 0, 1, ~0.
    assert tables["E_A"]["rouge2_f1"]["n"] == 16
    assert tables["E_A"]["rouge2_f1"]["estimate"] == pytest.approx(0.5, abs=0.02)
    assert 0.5 < tables["E_A"]["similarity"]["estimate"] < 0.9
    interval = tables["E_A"]["rouge2_f1"]
    assert interval["low"] <= interval["estimate"] <= interval["high"]
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    for row in samples:
        assert row["correct"] is None and 0.0 <= row["value"] <= 1.0
        assert row["meta_relation"] and row["relation"]
        assert set(row["explanations"]) == (
            {"Q", "A", "B", "C", "D"} if mode == "hard" else {"A", "B", "C", "D"}
        )
    assert "rouge2_f1" in evaluation.report and "similarity" in evaluation.report
    # BLEURT and MoverScore: no checkpoint offline, so skipped -- and the run says why.
    skipped = evaluation.results["skipped_metrics"]
    assert set(skipped) == {"bleurt", "moverscore"}
    assert "no BLEURT checkpoint given (--bleurt-checkpoint DIR)" in skipped["bleurt"]
    assert "no MoverScore encoder given (--moverscore-model DIR)" in skipped["moverscore"]
    assert "bleurt: not computed -- no BLEURT checkpoint" in evaluation.report
    assert "moverscore: not computed" in evaluation.report
    config = evaluation.results["config"]
    assert config["bleurt"]["skipped"] and config["prompt_format"] == "paper"


def test_chinese_is_refused_with_the_english_encoder(minilm, multilingual_standin):
    with pytest.raises(
        ValueError,
        match=r"all-MiniLM-L6-v2 .* is for en only and cannot score "
        r"Chinese explanations: pass --similarity-model DIR "
        r"with a multilingual or Chinese .* or --no-similarity",
    ):
        ExplanationBenchmark(dataset=items("zh")[:1], language="zh", similarity=minilm)
    with pytest.raises(ValueError, match="--similarity-model DIR"):
        load_explanation_benchmark(language="zh", data=FOLDERS["zh"])
    ExplanationBenchmark(dataset=items("zh")[:1], language="zh", similarity=multilingual_standin)
    ExplanationBenchmark(dataset=items("zh")[:1], language="zh", similarity=None)
    assert minilm.languages == frozenset({"en"})
    assert multilingual_standin.languages == frozenset({"multilingual", "zh"})


def test_without_similarity_and_on_a_blind_split():
    dataset = items("en")[:2]
    model = ScriptedModel(reply=lambda r: "")
    bench = ExplanationBenchmark(dataset=dataset, similarity=None)
    from lexbench.run.runner import execute

    requests = [r for i in dataset for r in bench.requests(i)]
    responses, _ = execute(model, requests, progress=False)
    score = bench.score(dataset[0], responses[:5])
    assert score.error_class == "empty_output" and score.value == 0.0
    assert bench.summarize(dataset[:1], [score])["explanations"]["E_Q"].keys() == {
        "rouge2_f1",
        "rouge2_precision",
        "rouge2_recall",
    }
    blind = read_split(find_split_file(FIXTURES / "v1.0" / "english", "test", "easy"), "en")
    with pytest.raises(ValueError, match="blind test file cannot be scored"):
        ExplanationBenchmark(dataset=blind)
    # v1.1's labelled test.json carries the five references: it can be scored.
    assert len(ExplanationBenchmark(dataset=items("en", "test")).items()) == 3


def test_one_explanation_length_everywhere(tmp_path):
    """`run ekar --task explain` and the Acc(Δ) pipeline generate explanations of the same
    length (the paper gives none), and the run records it in config.json and report.md."""
    import argparse
    import inspect

    from lexbench.benchmarks.ekar.explain_prompts import EXPLANATION_MAX_NEW_TOKENS
    from lexbench.benchmarks.ekar.finetune_accdelta import accdelta_table
    from lexbench.benchmarks.ekar.finetune_cli import add_table_arguments
    from lexbench.benchmarks.ekar.finetune_explain import generate_explanations
    from lexbench.cli import build_parser

    assert EXPLANATION_MAX_NEW_TOKENS == 64
    explain = build_parser().parse_args(["run", "ekar", "--model", "m", "--task", "explain"])
    table = argparse.ArgumentParser()
    add_table_arguments(table)
    assert explain.max_new_tokens == table.parse_args([]).max_new_tokens == 64
    for function in (accdelta_table, generate_explanations):
        assert inspect.signature(function).parameters["max_new_tokens"].default == 64
    dataset = items("en")[:1]
    bench = ExplanationBenchmark(dataset=dataset, similarity=None)
    assert all(r.decoding.max_new_tokens == 64 for r in bench.requests(dataset[0]))
    evaluation = evaluate(bench, ScriptedModel(reply="x"), out_root=tmp_path, progress=False)
    assert evaluation.results["config"]["decoding"]["max_new_tokens"] == 64
    assert "explanations of at most 64 new tokens" in evaluation.report


@pytest.mark.skipif(
    importlib.util.find_spec("bert_score") is not None, reason="bert-score is installed"
)
def test_bertscore_model_without_the_package_is_a_clear_error():
    with pytest.raises(ImportError, match="pip install bert-score"):
        ExplanationBenchmark(dataset=items("en")[:1], bertscore_model="bert-base-uncased")
