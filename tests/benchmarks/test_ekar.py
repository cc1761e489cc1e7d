"""E-KAR question answering: prompts, letter extraction, scoring with a scripted model for
both QA methods and both modes, tables and figures, the embedding baseline with the
packaged GloVe and a hand-made Chinese vectors file, and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from lexbench.benchmarks.ekar.benchmark import (
    EkarBenchmark,
    Extraction,
    best_index,
    extract_letter,
    load_benchmark,
    normalised_scores,
    run_ekar,
)
from lexbench.benchmarks.ekar.embedding import resolve_model
from lexbench.benchmarks.ekar.files import read_split
from lexbench.benchmarks.ekar.prompts import (
    candidate_continuations,
    choice_prompt,
    loglikelihood_context,
)
from lexbench.benchmarks.ekar.splits import find_split_file
from lexbench.benchmarks.ekar.tables import summarize_qa
from lexbench.lexicon.vectors import WordVectors
from lexbench.models.embeddings import WordVectorModel
from lexbench.run.evaluate import evaluate
from lexbench.types import Failure, Request, Score, TupleChoiceQuery
from mock_model import ScriptedModel

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ekar"
FOLDERS = {"en": FIXTURES / "english", "zh": FIXTURES / "chinese"}
V1_0 = {"en": FIXTURES / "v1.0" / "english", "zh": FIXTURES / "v1.0" / "chinese"}


def items(language: str, split: str = "validation"):
    return read_split(find_split_file(FOLDERS[language], split), language)


def blind_items(language: str, mode: str = "hard"):
    return read_split(find_split_file(V1_0[language], "test", mode), language)


# ------------------------------------------------------------------------------ prompts


def test_prompts_in_both_modes_and_languages():
    tea = items("en")[2]  # fruit:apple:banana
    hard = choice_prompt(tea, "hard")
    easy = choice_prompt(tea, "easy")
    assert "Query: fruit : apple : banana" in hard
    assert "D. instrument : violin : cello" in hard and hard.endswith("Answer:")
    assert "Explanation of the query:" not in hard
    assert f"Explanation of the query: {tea.explanations[0]}" in easy
    # The candidates' explanations never leak into the prompt (they give the answer away).
    assert all(e not in easy for e in tea.explanations[1:])
    zh = items("zh")[2]
    assert "题干：水果：苹果：香蕉" in choice_prompt(zh, "hard")
    assert choice_prompt(zh, "easy").count("题干解释：") == 1
    assert loglikelihood_context(tea, "hard").endswith("fruit : apple : banana ::")
    assert candidate_continuations(tea)[3] == " instrument : violin : cello"
    assert loglikelihood_context(zh, "hard").endswith("水果：苹果：香蕉，相当于")
    assert candidate_continuations(zh)[0] == "交通工具：汽车：车轮"


def test_easy_mode_needs_query_explanations():
    with pytest.raises(ValueError, match="EASY mode needs"):
        EkarBenchmark(dataset=blind_items("en"), mode="easy")
    with pytest.raises(ValueError, match="does not apply"):
        EkarBenchmark(dataset=items("en"), mode="easy", method="embedding")
    with pytest.raises(ValueError, match="contextual baseline compares term vectors"):
        EkarBenchmark(dataset=items("en"), mode="easy", method="contextual")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_easy_mode_on_the_v1_0_test_split_reads_test_easy_blind(tmp_path, language):
    benchmark = load_benchmark(
        language=language, split="test", mode="easy", method="generate", data=V1_0[language]
    )
    assert benchmark.config()["dataset"]["file"] == "test_easy_blind.json"
    assert benchmark.config()["dataset"]["blind"] is True
    labelled = {i.id: i for i in items(language, "test")}
    for item in benchmark.items():
        assert labelled[item.id].explanations[0] in choice_prompt(item, "easy")
    evaluation = evaluate(
        benchmark, ScriptedModel(reply=lambda r: "A"), out_root=tmp_path, progress=False
    )
    assert evaluation.results["labelled"] == 0 and evaluation.results["items"] == 3
    hard = load_benchmark(language=language, split="test", data=V1_0[language])
    assert hard.config()["dataset"]["file"] == "test_blind.json"
    with pytest.raises(ValueError, match="unknown method"):
        EkarBenchmark(dataset=items("en"), method="telepathy")


# ------------------------------------------------------------------------------ letters


@pytest.mark.parametrize(
    "output, letter",
    [
        ("B", "B"),
        (" C", "C"),
        ("(B)", "B"),
        ("D.", "D"),
        ("A)", "A"),
        ("（C）", "C"),
        ("Ｂ", "B"),
        ("Answer: c", "C"),
        ("the answer is D.", "D"),
        ("The correct answer would be (B).", "B"),
        ("答案：B", "B"),
        ("答案是C", "C"),
        ("答：d", "D"),
        ("选项B", "B"),
        ("Option C fits best", "C"),
        ("B is the best choice", "B"),
        ("I think D", "D"),
        (" A\nThe answer is D.", "A"),
        ("A passenger : bus : taxi", "A"),
        ("magazine: bookshelf", "B"),
    ],
)
def test_letters_are_extracted(output, letter):
    candidates = ["passenger : bus : taxi", "magazine : bookshelf", "x : y", "z : w"]
    assert extract_letter(output, candidates).letter == letter


@pytest.mark.parametrize(
    "output, letter, how",
    [
        ("A. 密码：账户；B. 门：窗户；C. 面包：黄油；D. 河流：桥梁", None, "echoed_options"),
        ("A. 密码：账户；B.", None, "echoed_options"),
        (
            "A. password : account\nB. door : window\nC. bread : butter\nD. river : bridge",
            None,
            "echoed_options",
        ),
        ("(A) password : account (B) door : window", None, "echoed_options"),
        (
            "A. flour : bakery\nB. chair : table\nC. cotton : shirt\nD. glass : transparent\n"
            "Answer: C",
            "C",
            "answer_phrase",
        ),
        ("A. 密码：账户；B. 门：窗户；C. 面包：黄油；D. 河流：桥梁\n答案：D", "D", "answer_phrase"),
        # One option with its text is an answer, not an echo.
        ("A. password : account", "A", "leading_letter"),
        ("A. password : account, because both open something", "A", "leading_letter"),
        ("B. door : window", "B", "leading_letter"),
    ],
)
def test_an_echoed_option_list_is_not_answer_a(output, letter, how):
    assert extract_letter(output) == Extraction(letter, how)


@pytest.mark.parametrize(
    "output, how",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("none of them", "no_letter"),
        ("A cat sat", "no_letter"),
        ("A or B", "ambiguous"),
        ("Both B and D work", "ambiguous"),
        ("我不知道", "no_letter"),
    ],
)
def test_extraction_failures_are_named(output, how):
    extraction = extract_letter(output)
    assert extraction.letter is None and extraction.how == how


# ------------------------------------------------------------------------------ scoring


def test_normalised_scores_and_best_index():
    scores = normalised_scores([-6.0, -4.0], [3, 1], [" ab : cd", " abcdefgh : ij"])
    assert scores["sum"] == [-6.0, -4.0]
    assert scores["per_token"] == [-2.0, -4.0]
    assert scores["per_char"] == pytest.approx([-6.0 / 7, -4.0 / 13])
    assert best_index([-1.0, -0.5, -0.5]) == 1
    assert best_index([-math.inf, -math.inf]) is None


def scripted_loglikelihoods(gold_by_prompt):
    """Log-likelihoods that favour the gold candidate by a margin under every normalisation."""

    def score(request):
        gold = gold_by_prompt.get(request.prompt)
        return [-1.0 if "ABCD"[i] == gold else -50.0 for i in range(len(request.continuations))]

    return score


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("mode", ["hard", "easy"])
def test_loglikelihood_method_through_evaluate(tmp_path, language, mode):
    dataset = items(language)
    # Right on the first eight items, wrong ("A" favoured when gold is not A) on the rest.
    golds = {
        loglikelihood_context(i, mode): (
            i.answer if n < 8 else "ABCD"[("ABCD".index(i.answer) + 1) % 4]
        )
        for n, i in enumerate(dataset)
    }
    model = ScriptedModel(loglikelihoods=scripted_loglikelihoods(golds))
    benchmark = EkarBenchmark(dataset=dataset, language=language, mode=mode)
    evaluation = evaluate(benchmark, model, out_root=tmp_path, progress=False)
    results = evaluation.results
    assert results["overall"]["correct"] == 8 and results["overall"]["n"] == 12
    assert set(results["by_normalisation"]) == {"sum", "per_token", "per_char"}
    assert all(row["correct"] == 8 for row in results["by_normalisation"].values())
    assert {r["meta_relation"] for r in results["by_meta_relation"]} == {
        "R1",
        "R2",
        "R3",
        "R4",
        "R5",
    }
    assert sum(r["n"] for r in results["by_meta_relation"]) == 12
    assert sum(r["n"] for r in results["by_terms"]) == 12
    for row in results["by_meta_relation"]:
        assert row["wald"]["method"] == "wald" and row["wilson"]["method"] == "wilson"
    # One context per item, its four continuations in one request.
    assert len(model.sent) == 12 and all(len(r.continuations) == 4 for r in model.sent)
    assert all(
        ("Explanation of the query" in r.prompt or "题干解释" in r.prompt) == (mode == "easy")
        for r in model.sent
    )
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    for row in samples:
        for key in ("id", "correct", "value", "error_class", "relation", "meta_relation"):
            assert key in row
    assert sum(row["correct"] for row in samples) == 8
    assert (evaluation.folder.path / "figures" / "accuracy_by_meta_relation.png").is_file()
    assert "By meta-relation" in evaluation.report and "per_token" in evaluation.report


@pytest.mark.parametrize("mode", ["hard", "easy"])
def test_generate_method_counts_unparsed_outputs_apart(tmp_path, mode):
    dataset = items("en")
    replies = {}
    for n, item in enumerate(dataset):
        if n < 6:
            replies[item.id] = f"The answer is {item.answer}."
        elif n < 9:
            replies[item.id] = "I cannot tell."  # unparsed
        else:
            replies[item.id] = "(A)" if item.answer != "A" else "(B)"  # wrong
    model = ScriptedModel(reply=replies)
    evaluation = evaluate(
        EkarBenchmark(dataset=dataset, method="generate", mode=mode),
        model,
        out_root=tmp_path,
        progress=False,
    )
    results = evaluation.results
    assert results["overall"]["correct"] == 6 and results["overall"]["n"] == 12
    assert results["unparsed"] == 3
    assert results["accuracy_when_parsed"]["n"] == 9
    assert results["error_classes"] == {"correct": 6, "unparsed": 3, "wrong": 3}
    assert results["extraction"]["no_letter"] == 3
    assert all(r.kind == "generate" for r in model.sent)
    assert "Unparsed outputs" in evaluation.report


def test_every_relation_annotated_for_the_query_counts():
    # 8c2f64 is annotated R3.8 and R3.9 (both R3); 9d6a15 R5.2 and R2.3.
    dataset = items("en", "test")
    scores = [Score(i.id, True, 1.0, i.answer, "correct") for i in dataset[:2]]
    scores.append(Score(dataset[2].id, False, 0.0, "A", "wrong"))
    results = summarize_qa(dataset, scores, {"method": "generate"})
    by_relation = {r["relation"]: (r["n"], r["correct"]) for r in results["by_relation"]}
    assert by_relation == {
        "R1.2": (1, 0),
        "R2.3": (1, 1),
        "R3.8": (1, 1),
        "R3.9": (1, 1),
        "R5.2": (1, 1),
    }
    by_meta = {r["meta_relation"]: (r["n"], r["correct"]) for r in results["by_meta_relation"]}
    assert by_meta == {"R1": (1, 0), "R2": (1, 1), "R3": (1, 1), "R4": (0, 0), "R5": (1, 1)}
    assert results["overall"]["n"] == 3
    assert "rows can sum to more than the items" in EkarBenchmark(dataset=dataset).report(results)


def test_samples_carry_every_query_relation(tmp_path):
    dataset = items("zh", "test")
    evaluation = evaluate(
        EkarBenchmark(dataset=dataset, language="zh", split="test", method="generate"),
        ScriptedModel(reply=lambda r: "答案：A"),
        out_root=tmp_path,
        progress=False,
    )
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    assert samples[0]["relations"] == ["R3.8", "R3.9"] and samples[0]["meta_relations"] == ["R3"]
    assert samples[1]["relations"] == ["R5.2", "R2.3"] and samples[0]["relation"] == "R3.8"


def test_blind_test_split_gives_predictions_without_accuracy(tmp_path):
    model = ScriptedModel(reply=lambda request: "B")
    evaluation = evaluate(
        EkarBenchmark(dataset=blind_items("zh"), language="zh", split="test", method="generate"),
        model,
        out_root=tmp_path,
        progress=False,
    )
    assert evaluation.results["labelled"] == 0 and evaluation.results["overall"]["n"] == 0
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    assert {(s["answer"], s["correct"], s["value"], s["error_class"]) for s in samples} == {
        ("B", None, None, "unlabelled")
    }
    assert "blind split" in evaluation.report


def test_failed_requests_are_their_own_class(tmp_path):
    model = ScriptedModel(
        loglikelihoods=lambda r: [-1.0] * 4, fail_on=lambda r: "timber" in r.prompt
    )
    evaluation = evaluate(
        EkarBenchmark(dataset=items("en")), model, out_root=tmp_path, progress=False
    )
    assert evaluation.results["error_classes"]["request_failed"] == 1


# ------------------------------------------------------------------------------ embeddings


def tiny_vectors() -> WordVectors:
    words = ["king", "queen", "man", "woman", "ice", "cream", "苹果", "水果", "香", "蕉", "x"]
    rng = np.random.default_rng(0)
    return WordVectors.from_matrix("tiny", words, rng.normal(size=(len(words), 4)))


def test_tuple_vector_is_the_sum_of_pairwise_differences():
    model = WordVectorModel(tiny_vectors(), source="tiny")
    v = model.vectors.vector
    assert np.allclose(model.tuple_vector(["king", "queen"]), v("queen") - v("king"))
    three = model.tuple_vector(["king", "queen", "man"])
    expected = (v("queen") - v("king")) + (v("man") - v("king")) + (v("man") - v("queen"))
    assert np.allclose(three, expected)
    # A multi-word term is the mean of its words.
    assert np.allclose(
        model.tuple_vector(["ice cream", "man"]), v("man") - (v("ice") + v("cream")) / 2
    )
    assert model.tuple_vector(["king", "unicorn"]) is None
    # Chinese: a whole in-vocabulary word, else greedy segmentation down to characters.
    assert model.term_words("苹果") == ["苹果"]
    assert model.term_words("香蕉") == ["香", "蕉"]
    assert model.term_words("KING") == ["king"]


def test_tuple_model_answers_with_cosines_and_flags_oov():
    model = WordVectorModel(tiny_vectors(), source="tiny")
    responses = model.analogy(
        [
            Request(
                id="a",
                kind="analogy",
                query=TupleChoiceQuery(
                    ("man", "woman"),
                    (("king", "queen"), ("queen", "king"), ("king", "unicorn"), ("man", "woman")),
                ),
            ),
            Request(
                id="b",
                kind="analogy",
                query=TupleChoiceQuery(("unicorn", "king"), (("man", "woman"), ("king", "queen"))),
            ),
        ]
    )
    cosines = responses[0].choice_scores
    assert cosines[3] == pytest.approx(1.0)
    assert cosines[0] == pytest.approx(-cosines[1])
    assert cosines[2] == -math.inf
    assert responses[1].failure == Failure.OUT_OF_VOCABULARY and "unicorn" in responses[1].error


def test_glove_baseline_on_the_english_fixtures(tmp_path):
    evaluation = run_ekar(
        "glove", data=FOLDERS["en"], method="embedding", out=tmp_path, progress=False
    )
    results = evaluation.results
    assert results["overall"]["n"] == 12 and results["out_of_vocabulary"] == 0
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    assert all(len(s["cosines"]) == 4 and s["answer"] in "ABCD" for s in samples)
    # The answer really is the candidate with the highest cosine.
    for s in samples:
        assert s["answer"] == "ABCD"[int(np.argmax(s["cosines"]))]
    config = json.loads(evaluation.folder.config_path.read_text())
    assert config["model"]["backend"] == "vectors"


def test_chinese_vectors_by_path(tmp_path):
    # No Chinese vectors ship offline; a file passed by path is used, segmenting unknown terms.
    words = sorted(
        {term for item in items("zh") for tuple_ in (item.query, *item.choices) for term in tuple_}
    )
    rng = np.random.default_rng(1)
    path = tmp_path / "zh.vec"
    path.write_text(
        f"{len(words)} 8\n"
        + "".join(w + " " + " ".join(f"{x:.5f}" for x in rng.normal(size=8)) + "\n" for w in words),
        encoding="utf-8",
    )
    evaluation = run_ekar(
        f"vectors:{path}",
        language="zh",
        data=FOLDERS["zh"],
        method="embedding",
        out=tmp_path / "runs",
        progress=False,
    )
    assert evaluation.results["overall"]["n"] == 12
    assert evaluation.results["out_of_vocabulary"] == 0
    # A vectors file that knows only some terms: items it cannot embed are counted wrong.
    partial = tmp_path / "partial.vec"
    partial.write_text(
        "".join(
            line
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(True)[1:])
            if n % 3
        ),
        encoding="utf-8",
    )
    some = run_ekar(
        f"vectors:{partial}",
        language="zh",
        data=FOLDERS["zh"],
        method="embedding",
        out=tmp_path / "runs",
        progress=False,
    )
    assert 0 < some.results["out_of_vocabulary"] < 12
    assert some.results["error_classes"]["out_of_vocabulary"] == some.results["out_of_vocabulary"]
    # The packaged English GloVe knows no Chinese word: refused with a plain explanation.
    with pytest.raises(ValueError, match="No Chinese vectors ship with lexbench"):
        run_ekar(
            "glove",
            language="zh",
            data=FOLDERS["zh"],
            method="embedding",
            out=tmp_path / "runs",
            progress=False,
        )


def test_model_and_method_must_agree():
    with pytest.raises(ValueError, match="--method embedding"):
        resolve_model("glove", "loglikelihood")
    with pytest.raises(ValueError, match="static word vectors"):
        resolve_model("smollm2-135m", "embedding")


# ------------------------------------------------------------------------------ command line


def test_cli_runs_the_glove_baseline(tmp_path, capsys):
    from lexbench.cli import main

    status = main(
        [
            "run",
            "ekar",
            "--model",
            "glove",
            "--data",
            str(FOLDERS["en"]),
            "--out",
            str(tmp_path),
            "--no-cache",
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "embedding" in out and "By meta-relation" in out and "R5 association" in out
    folder = Path(out.strip().splitlines()[-1].split(": ", 1)[1])
    assert (folder / "figures" / "accuracy_by_meta_relation.png").is_file()


def test_cli_errors_are_one_clear_line(tmp_path, capsys):
    from lexbench.cli import main

    status = main(
        [
            "run",
            "ekar",
            "--model",
            "glove",
            "--method",
            "generate",
            "--data",
            str(FOLDERS["en"]),
            "--out",
            str(tmp_path),
            "--no-cache",
        ]
    )
    assert status == 2 and "--method embedding" in capsys.readouterr().err
    status = main(
        [
            "run",
            "ekar",
            "--model",
            "glove",
            "--data",
            str(tmp_path / "missing"),
            "--out",
            str(tmp_path),
            "--no-cache",
        ]
    )
    assert status == 2 and "No such file or folder (data)" in capsys.readouterr().err


def test_load_benchmark_records_the_data_hash():
    benchmark = load_benchmark(data=FOLDERS["en"], limit=1)
    assert len(benchmark.items()) == 5  # the first item of each meta-relation the file has
    info = benchmark.config()["dataset"]
    assert info["source"] == "local" and len(info["sha256"]) == 64 and info["limit"] == 1
    assert info["limit_per"] == "meta-relation"
