"""`lexbench report` compares the runs that share items and names the ones it leaves out
(issue 43): one run of other items, or one whose every request failed, no longer drops
every paired comparison of the others."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
from test_report_runs import lambda_answerer, lambda_items, make_lambda_run

from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
from lexbench.cli import main
from lexbench.run.evaluate import evaluate
from mock_model import ScriptedModel


def other_items_run(root, name: str = "model-c"):
    """A LAMBDA run of the same 30 ids asking other questions (as another --seed draws)."""
    items = [dataclasses.replace(item, query=item.query + "ness") for item in lambda_items(10)]
    bench = LambdaBenchmark(
        dataset=items,
        index=None,
        dataset_config={"relations": ["synonym", "antonym", "derivation"], "seed": 7},
    )
    model = ScriptedModel(lambda_answerer(3, 0.5), name=name)
    return evaluate(bench, model, out_root=root, cache=None, progress=False).folder.path


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return (
        make_lambda_run(root, "model-a", 1, 0.6),
        make_lambda_run(root, "model-b", 2, 0.3),
        other_items_run(root),
    )


def test_report_compares_the_two_runs_that_share_items_and_names_the_third(
    three_runs, tmp_path, capsys
):
    out = tmp_path / "report"
    assert main(["report", *map(str, three_runs), "-o", str(out)]) == 0
    markdown = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    assert "do not all share scored items" not in markdown
    assert (
        "Run model-c (seed=7) is left out of the paired comparisons: its items share ids "
        "with another run's but not the questions" in markdown
    )
    assert "Paired comparisons of model-a and model-b (they share scored items)" in markdown
    table = markdown.split("### Paired comparisons", 1)[1]
    row = next(line for line in table.splitlines() if line.startswith("| model-a | model-b |"))
    assert "| accuracy | 30 |" in row and "exact McNemar" in row
    tests = table.split("### Published results", 1)[0].split("### Figures", 1)[0]
    assert "model-c" not in tests  # in no paired test
    assert "left out of the paired comparisons" in page and "<h3>Paired comparisons</h3>" in page
    # compare agrees: given the two that share items, the same test and numbers.
    capsys.readouterr()
    assert main(["compare", str(three_runs[0]), str(three_runs[1]), "--format", "markdown"]) == 0
    compared = capsys.readouterr().out
    assert row in compared.splitlines()
    # compare, given the same three, refuses in one line naming the pair that shares nothing.
    assert main(["compare", *map(str, three_runs)]) == 2
    assert "share 30 item ids but not one question" in capsys.readouterr().err


def test_a_run_whose_every_request_failed_is_left_out_with_its_flag(three_runs, tmp_path):
    failed = make_lambda_run(
        tmp_path / "runs",
        "model-down",
        4,
        0.5,
        fail_ids=[item.id for item in lambda_items(10)],
    )
    out = tmp_path / "report"
    chosen = [str(three_runs[0]), str(three_runs[1]), str(failed)]
    assert main(["report", *chosen, "-o", str(out)]) == 0
    markdown = (out / "report.md").read_text()
    assert (
        "Run model-down is left out of the paired comparisons: every request failed (30 of 30)"
        in markdown
    )
    assert "| model-a | model-b |" in markdown.split("### Paired comparisons", 1)[1]


def test_runs_that_share_items_only_in_pairs_are_compared_in_pairs():
    from lexbench.report.groups import cliques

    # a shares with b, b with c, a not with c; d with nobody.
    runs = [SimpleNamespace(label=x) for x in "abcd"]
    share = {frozenset("ab"), frozenset("bc")}
    groups = cliques(runs, lambda x, y: frozenset({x.label, y.label}) in share)
    assert [[r.label for r in g] for g in groups] == [["a", "b"], ["b", "c"]]
    every = {frozenset(p) for p in ("ab", "ac", "ad", "bc", "bd", "cd")}
    groups = cliques(runs, lambda x, y: frozenset({x.label, y.label}) in every)
    assert [[r.label for r in g] for g in groups] == [["a", "b", "c", "d"]]
    groups = cliques(runs, lambda x, y: frozenset({x.label, y.label}) in every - {frozenset("cd")})
    assert [[r.label for r in g] for g in groups] == [["a", "b", "c"], ["a", "b", "d"]]
