"""Prompt wordings: the paper's prompt untouched, the others reworded as declared, for every
benchmark; the wording recorded in the run config and its folder hash, the default not."""

from pathlib import Path

import pytest

from lexbench import api, plugins
from lexbench.benchmarks.analogies.data import Analogy
from lexbench.benchmarks.analogies.prompts import query_prompt
from lexbench.benchmarks.ekar.files import read_split
from lexbench.benchmarks.ekar.prompts import (
    candidate_continuations,
    choice_prompt,
    loglikelihood_context,
)
from lexbench.benchmarks.ekar.splits import find_split_file
from lexbench.benchmarks.lambda_.items import LambdaConfig, generate_items
from lexbench.benchmarks.lambda_.prompts import prompt_text as lambda_prompt
from lexbench.benchmarks.setlexsem.prompts import prompt_text as setlexsem_prompt
from lexbench.types import Request
from lexbench.wordings import (
    PAPER,
    VariantBenchmark,
    apply_variant,
    chosen_variants,
    declared_variants,
    replace_required,
)
from mock_model import ScriptedModel

EKAR = Path(__file__).parents[1] / "fixtures" / "ekar"


def reworded(benchmark, name, item, request):
    (variant,) = chosen_variants(plugins.benchmark(benchmark), name)
    return variant.rewrite(item, request)


@pytest.mark.parametrize(
    "benchmark", ["lambda", "scan", "google", "bats", "sat", "setlexsem", "ekar"]
)
def test_every_benchmark_has_the_paper_first_and_three_more(benchmark):
    names = [v.name for v in declared_variants(plugins.benchmark(benchmark))]
    assert names[0] == PAPER and len(names) >= 4 and len(set(names)) == len(names)


def test_an_unknown_wording_is_refused_in_one_line():
    with pytest.raises(ValueError, match="no prompt variant 'loud'; choose from paper, guard"):
        chosen_variants(plugins.benchmark("lambda"), "loud")


def test_lambda_wordings_keep_the_pairs_and_the_query(tiny_wordnet_index):
    item = generate_items(tiny_wordnet_index, LambdaConfig(per_relation=2))[0]
    (a, b), (c, d) = item.support
    for style in ("paper", "completion"):
        paper = Request(id=item.id, kind="generate", prompt=lambda_prompt(item, style))
        guard = reworded("lambda", "guard", item, paper).prompt
        assert "Reply with the single word" in guard and "Do not explain" not in guard
        arrow = reworded("lambda", "arrow", item, paper).prompt
        assert f"{a} -> {b}\n{c} -> {d}\n{item.query} ->" in arrow
        instruction = reworded("lambda", "instruction", item, paper).prompt
        assert (
            instruction.endswith(paper.prompt)
            and instruction.count("\n") == paper.prompt.count("\n") + 1
        )


def test_analogy_wordings_reword_shots_and_query_and_sat_choices():
    shot = Analogy("s1", "sun", "planet", "nucleus", "electron")
    item = Analogy("q1", "atom", "solar system", "nucleus", "sun")
    request = Request(id="q1", kind="rank", prompt=query_prompt(item, [shot]), answer_suffix=".")
    assert reworded("scan", "as", item, request).prompt == (
        "sun is to planet as nucleus is to electron. atom is to solar system as nucleus is to"
    )
    assert reworded("bats", "colons", item, request).prompt.endswith(
        "atom : solar system :: nucleus :"
    )
    sat = Request(
        id="s",
        kind="loglikelihood",
        prompt="If ostrich is like bird, then",
        continuations=(" lion is like cat.", " goose is like flock."),
    )
    as_sat = reworded("sat", "as", None, sat)
    assert as_sat.prompt == "ostrich is to bird as"
    assert as_sat.continuations == (" lion is to cat.", " goose is to flock.")


def test_ekar_wordings_in_both_languages_and_both_methods():
    for language, folder in (("en", "english"), ("zh", "chinese")):
        item = read_split(find_split_file(EKAR / folder, "validation"), language)[2]
        generate = Request(id="e", kind="generate", prompt=choice_prompt(item, "hard"))
        ll = Request(
            id="e",
            kind="loglikelihood",
            prompt=loglikelihood_context(item, "hard"),
            continuations=candidate_continuations(item),
        )
        for request in (generate, ll):
            for name in ("instruction", "separator", "preamble"):
                changed = reworded("ekar", name, item, request)
                assert changed.prompt != request.prompt
        separated = reworded("ekar", "separator", item, ll)
        sep = " / " if language == "en" else "、"
        assert separated.continuations[0] == (" " if language == "en" else "") + sep.join(
            item.choices[0]
        )


@pytest.mark.parametrize("method", ["baseline", "cot_self_reflection"])
def test_setlexsem_wordings_keep_the_answer_format(method):
    paper = Request(
        id="s",
        kind="generate",
        prompt=setlexsem_prompt((12, 47), (47, 90), "union", method, "formal", []),
    )
    guard = reworded("setlexsem", "guard", None, paper).prompt
    assert "<answer></answer>" in guard and "At last, provide" not in guard
    task = reworded("setlexsem", "task-line", None, paper).prompt
    assert "\nTask: Print the set union of A and B as a Python set.\n" in task
    assert "<task>" not in task and "</task>" not in task
    assert reworded("setlexsem", "instruction", None, paper).prompt.endswith(paper.prompt)


def test_word_vectors_have_no_prompt_to_reword():
    from lexbench.types import AnalogyQuery

    spec = plugins.benchmark("google")

    class Built:
        def requests(self, item):
            return [Request(id="g", kind="analogy", query=AnalogyQuery("a", "b", "c"))]

    with pytest.raises(ValueError, match="no prompt to reword"):
        apply_variant(spec, Built(), "as").requests(None)
    assert isinstance(apply_variant(spec, Built(), "as"), VariantBenchmark)


def _oracle(request):
    return " wrong"


def test_the_wording_goes_into_the_config_and_the_default_leaves_it_alone(
    tiny_wordnet_env, tmp_path
):
    common = {
        "per_relation": 3,
        "out": tmp_path / "runs",
        "cache": tmp_path / "c.sqlite",
        "progress": False,
    }
    plain = api.run("lambda", ScriptedModel(_oracle), **common)
    paper = api.run("lambda", ScriptedModel(_oracle), prompt_variant="paper", **common)
    guard = api.run("lambda", ScriptedModel(_oracle), prompt_variant="guard", **common)
    assert paper.folder.path == plain.folder.path  # same config, same folder, same bytes
    assert "prompt_variant" not in plain.folder.config_path.read_text()
    assert guard.folder.path != plain.folder.path
    import json

    config = json.loads(guard.folder.config_path.read_text())
    assert config["benchmark"]["prompt_variant"] == "guard"
    assert "prompt_variant" not in config["run_options"]  # rescore rebuilds the plain benchmark
    sample = json.loads(guard.folder.samples_path.read_text().splitlines()[0])
    assert "Reply with the single word" in sample["prompt"]
    with pytest.raises(ValueError, match="no prompt variant"):
        api.run("lambda", ScriptedModel(_oracle), prompt_variant="nope", **common)


def test_a_run_in_another_wording_is_rescored_in_it(tiny_wordnet_env, tmp_path):
    import json

    from lexbench.run.rescore import rescore_run

    guard = api.run(
        "lambda",
        ScriptedModel(_oracle),
        prompt_variant="guard",
        per_relation=2,
        out=tmp_path / "runs",
        cache=tmp_path / "c.sqlite",
        progress=False,
    )
    before = guard.folder.samples_path.read_text()
    rescored = rescore_run(guard.folder.path, write=True)
    assert rescored.changed == 0
    after = [json.loads(line) for line in guard.folder.samples_path.read_text().splitlines()]
    assert [r["prompt"] for r in after] == [json.loads(x)["prompt"] for x in before.splitlines()]
    assert all("Reply with the single word" in r["prompt"] for r in after)


def test_replace_required_replaces_every_occurrence_and_refuses_when_absent():
    assert replace_required("a : b\nc : d", " : ", " -> ", "arrow") == "a -> b\nc -> d"
    with pytest.raises(ValueError, match="prompt variant 'arrow': the prompt lacks ' : '"):
        replace_required("a b", " : ", " -> ", "arrow")
