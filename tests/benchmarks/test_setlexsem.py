"""SetLexSem: set algebra, samplers, deterministic generation, scoring, analysis, CLI.

The paper's design (grid counts, prompts, vocabulary, tables) is pinned in
test_setlexsem_paper.py; grid validation in test_setlexsem_grid.py; parser robustness in
test_setlexsem_fuzz.py; the real model in test_setlexsem_smollm2.py.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.benchmarks.setlexsem.benchmark import (
    SetLexSemBenchmark,
    generate_items,
    limit_per_config,
    read_items,
    run_setlexsem,
    write_items,
)
from lexbench.benchmarks.setlexsem.grid_read import grid_from_mapping
from lexbench.benchmarks.setlexsem.sets import (
    OPERATIONS,
    draw_independent,
    draw_overlapping,
    ground_truth,
    number_pool,
    ordered_answer,
)
from lexbench.types import Response
from mock_model import ScriptedModel

ROOT = Path(__file__).resolve().parents[2]


def _definition(operation, a, b):
    """Set operations from their membership definitions, independent of set operators."""
    universe = list(a) + list(b)
    if operation == "union":
        return {x for x in universe if x in a or x in b}
    if operation == "intersection":
        return {x for x in universe if x in a and x in b}
    if operation == "difference":
        return {x for x in universe if x in a and x not in b}
    return {x for x in universe if (x in a) != (x in b)}


PYTHON_OPERATOR = {
    "union": lambda a, b: a | b,
    "intersection": lambda a, b: a & b,
    "difference": lambda a, b: a - b,
    "symmetric_difference": lambda a, b: a ^ b,
}


def test_ground_truth_matches_python_set_algebra_on_thousands_of_random_cases():
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    checked = 0
    for case in range(3000):
        pool = list(range(rng.choice([5, 20, 1000]))) if case % 2 else words
        a = tuple(rng.sample(pool, rng.randint(0, min(16, len(pool)))))
        b = tuple(rng.sample(pool, rng.randint(0, min(16, len(pool)))))
        for operation in OPERATIONS:
            expected = PYTHON_OPERATOR[operation](set(a), set(b))
            assert (
                ground_truth(operation, a, b) == expected == _definition(operation, set(a), set(b))
            )
            ordered = ordered_answer(operation, a, b)
            assert set(ordered) == expected and len(ordered) == len(expected)
            checked += 1
    assert checked == 12_000
    with pytest.raises(ValueError, match="unknown operation"):
        ground_truth("product", (1,), (2,))


@pytest.fixture(scope="module")
def small_items():
    return generate_items("small")


def test_generated_answers_match_set_algebra(small_items):
    for item in small_items:
        expected = PYTHON_OPERATOR[item.operation](set(item.set_a), set(item.set_b))
        assert set(item.answer) == expected and len(item.answer) == len(expected)
        assert len(set(item.set_a)) == item.m == len(set(item.set_b))


def test_number_pools_have_exact_digit_counts():
    assert number_pool(3, 1000) == range(100, 1000)
    assert number_pool(1, 1000) == range(1, 10)
    assert number_pool(None, 10_000) == range(0, 10_000)
    a, b = draw_independent(random.Random(1), number_pool(4, 0), 16)
    assert all(1000 <= x < 10_000 for x in a + b) and len(set(a)) == len(set(b)) == 16


def test_independent_draws_leave_intersections_empty_at_the_exact_rate():
    # Two independent m-subsets of an N-word pool are disjoint with probability
    # C(N-m, m) / C(N, m): the reason the overlap sampler exists. 2,000 seeded draws land
    # within 4 binomial standard errors of it (and the rate is far from 0 and from 1).
    from math import comb, sqrt

    from lexbench.lexicon.words import words_of_length

    pool = words_of_length(2)
    m, draws = 8, 2000
    expected = comb(len(pool) - m, m) / comb(len(pool), m)
    rng = random.Random(0)
    empty = (
        sum(
            1
            for _ in range(draws)
            if not ground_truth("intersection", *draw_independent(rng, pool, m))
        )
        / draws
    )
    assert abs(empty - expected) < 4 * sqrt(expected * (1 - expected) / draws)
    assert 0.05 < expected < 0.95, (len(pool), expected)


def test_overlap_sampler_shares_exactly_the_fraction():
    rng = random.Random(3)
    for m in (2, 4, 8, 16):
        for fraction in (0.0, 0.25, 0.5, 1.0):
            for _ in range(50):
                a, b = draw_overlapping(rng, range(100, 1000), m, fraction)
                assert len(set(a)) == len(set(b)) == m
                assert len(set(a) & set(b)) == int(m * fraction)


# ------------------------------------------------------------------------------ generation


def test_small_grid_rows_carry_every_hyperparameter(small_items):
    ids = [i.id for i in small_items]
    assert len(ids) == len(set(ids)) == 2 * 272
    row = small_items[0].to_dict()
    for key in (
        "token_type",
        "operation",
        "m",
        "token_length",
        "number_range",
        "overlap",
        "decile",
        "decile_scope",
        "deceptive_condition",
        "k",
        "method",
        "phrasing",
        "seed",
        "decoding",
        "prompt",
        "set_a",
        "set_b",
        "answer",
        "studies",
        "prompt_index",
    ):
        assert key in row
    assert row["decoding"]["temperature"] == 0.0  # greedy by default, recorded


def test_sets_stay_the_same_as_k_method_and_phrasing_vary(small_items):
    by_cell: dict = {}
    for item in small_items:
        if item.token_type in ("numbers", "words") and item.overlap is None:
            key = (item.token_type, item.token_length, item.m, item.prompt_index)
            by_cell.setdefault(key, set()).add((item.set_a, item.set_b))
    assert by_cell and all(len(pairs) == 1 for pairs in by_cell.values())
    prefix = "numbers/L2/m2/union/k{}/baseline_allow_empty/formal"
    one = next(i for i in small_items if i.config_id == prefix.format(1))
    zero = next(i for i in small_items if i.config_id == prefix.format(0))
    assert (one.set_a, one.set_b) == (zero.set_a, zero.set_b)
    assert len(one.demonstrations) == 1 and zero.demonstrations == ()
    assert (one.set_a, one.set_b) not in one.demonstrations


def test_demonstrations_for_small_k_are_a_prefix_of_larger_k():
    grid = grid_from_mapping(
        {
            "prompts_per_config": 1,
            "study": [
                {
                    "name": "k",
                    "token_types": ["words"],
                    "token_lengths": [4],
                    "operand_sizes": [4],
                    "operations": ["intersection"],
                    "k_shots": [0, 1, 3, 5],
                }
            ],
        }
    )
    by_k = {i.k: i for i in generate_items(grid)}
    assert by_k[5].demonstrations[:3] == by_k[3].demonstrations
    assert by_k[3].demonstrations[:1] == by_k[1].demonstrations
    assert by_k[5].prompt.count("\n- If set A is") == 5


def test_limit_and_selection_render_only_what_is_asked(small_items):
    limited = generate_items("small", limit=1)
    assert limited == [i for i in small_items if i.prompt_index == 0]
    chosen = generate_items(
        "small", limit=1, selection={"study": ("deceptive",), "operation": ("union",)}
    )
    assert {i.deceptive_condition for i in chosen} == {"not_swapped", "swapped", "random_baseline"}
    assert all(i.operation == "union" and i.prompt_index == 0 for i in chosen)
    with pytest.raises(ValueError, match="matches no configuration"):
        generate_items("small", selection={"m": ("99",)})


def test_generation_is_byte_identical_across_hash_seeds(tmp_path):
    digests = set()
    for seed in ("0", "4242"):
        out = tmp_path / f"items-{seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "lexbench.cli",
                "generate",
                "setlexsem",
                "--grid",
                "small",
                "-o",
                str(out),
            ],
            check=True,
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        digests.add(out.read_bytes())
    assert len(digests) == 1


def test_write_and_read_items_round_trip(tmp_path, small_items):
    meta = write_items(tmp_path / "small.jsonl", "small")
    assert meta["prompts"] == 544 and meta["configurations"] == 272
    assert meta["per_study"]["deceptive"] == {"configurations": 6, "prompts": 12}
    assert meta["skipped_cells"] == []
    back = read_items(tmp_path / "small.jsonl")
    assert back == small_items
    assert len(limit_per_config(back, 1)) == 272
    # Nothing but the file and its manifest: no temporary file is left behind; and they
    # are as readable as any file the user creates (not the temporary file's 0600).
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "small.jsonl",
        "small.jsonl.manifest.json",
    ]
    mask = os.umask(0)
    os.umask(mask)
    for name in ("small.jsonl", "small.jsonl.manifest.json"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~mask


# ------------------------------------------------------------------------------ scoring, analysis


def _oracle(items_by_id, wrong_every=3):
    """Right on most prompts, a typical mistake on every third, a format failure now and then."""
    counter = {"n": 0}

    def reply(request):
        item = items_by_id[request.id]
        counter["n"] += 1
        n = counter["n"]
        if n % 11 == 0:
            return "I think the answer is " + ", ".join(map(str, item.answer))
        members = list(item.answer)
        if n % wrong_every == 0:
            members = members[:-1] if members else [item.set_a[0]]
        return "<answer>{" + ", ".join(map(str, members)) + "}</answer>"

    return reply


def test_evaluate_on_scripted_model_writes_tables_and_figures(tmp_path, small_items):
    items = limit_per_config(small_items, 1)
    model = ScriptedModel(_oracle({i.id: i for i in items}), name="oracle")
    evaluation = run_setlexsem(
        model, grid="small", limit=1, out=tmp_path / "runs", use_cache=False, progress=False
    )
    results = evaluation.results
    assert results["overall"]["prompts"] == 272
    assert 0.4 < results["overall"]["accuracy"] < 0.8
    paper = results["paper_tables"]
    for name in (
        "table3",
        "table4",
        "table5",
        "table6",
        "table7",
        "table8",
        "table9",
        "table10",
        "table11",
        "table12",
        "table13",
        "table14",
    ):
        assert paper[name]["rows"], name
    assert {r["deceptive_condition"] for r in paper["table8"]["rows"]} == {
        "not_swapped",
        "swapped",
        "random_baseline",
    }
    error_tables = results["paper_error_tables"]
    assert list(error_tables) == ["table15", "table16", "table17"]  # no deceptive difference
    errors = [r for table in error_tables.values() for r in table["rows"]]
    assert (
        sum(r["did_not_follow_instruction"] for r in errors)
        <= results["error_classes"]["format_failure"]
    )
    # Tables 17-18: per operation, Words (the random baseline) then Deceptive Words
    # (swapped); the small grid's deceptive study asks union and intersection only.
    assert [
        (r["operation"], r["deceptive_condition"]) for r in error_tables["table17"]["rows"]
    ] == [
        ("union", "random_baseline"),
        ("union", "swapped"),
        ("intersection", "random_baseline"),
        ("intersection", "swapped"),
    ]
    assert {r["max_value"] for r in error_tables["table15"]["rows"]} == {-1}
    table15 = evaluation.report.split("### Table 15")[1].split("###")[0]
    table17 = evaluation.report.split("### Table 17")[1].split("###")[0]
    assert "| token type | Numbers | Words | Numbers | Words |" in table15
    assert "| Max Value | -1 | -1 | -1 | -1 |" in table15
    assert "| token type | Words | Deceptive Words | Words | Deceptive Words |" in table17
    assert "| set operation | Union | Union | Intersection | Intersection |" in table17
    assert "Max Value" not in table17
    conditions = results["lexbench_error_tables"]["deceptive_by_condition"]["rows"]
    assert {r["deceptive_condition"] for r in conditions} == {
        "not_swapped",
        "swapped",
        "random_baseline",
    }
    examples = results["table19_examples"]
    assert {e["operation"] for e in examples} == {"union", "intersection"}
    assert all(e["condition"] in ("not_swapped", "swapped") for e in examples)
    figures = sorted(p.name for p in (evaluation.folder.path / "figures").glob("*.png"))
    for name in (
        "figure3_by_model",
        "figure4a_operation",
        "figure4b_operand_size",
        "figure5_token_type",
        "figure6a_decile_differences",
        "figure6b_vocabulary_lengths",
        "figure7a_deceptive",
        "figure7b_deceptive_operation",
        "figure9_phrasing",
    ):
        assert f"{name}.png" in figures
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    assert len(samples) == 272 and {
        "id",
        "correct",
        "value",
        "error_class",
        "prompt",
        "output",
        "parsed_answer",
        "precision",
        "recall",
        "jaccard",
    } <= set(samples[0])
    for heading in (
        "Table 3",
        "Table 7",
        "Table 14",
        "Table 15: error analysis of numbers and words, union and intersection",
        "Table 16: error analysis of numbers and words, difference and symmetric difference",
        "Table 17: error analysis of words and deceptive words, union and intersection",
        "lexbench: error analysis of the deceptive study by condition and operation",
        "Table 19",
        "lexbench: intersection with and without the overlap sampler",
    ):
        assert heading in evaluation.report


def test_table_spread_is_the_sd_of_configuration_accuracies(small_items):
    items = [
        i
        for i in limit_per_config(small_items, 2)
        if i.token_type == "numbers" and i.overlap is None and i.operation == "union"
    ]
    bench = SetLexSemBenchmark(dataset=items)
    # Right on prompt 0 of every configuration, right on prompt 1 only for k=0.
    scores = []
    for item in items:
        good = item.prompt_index == 0 or item.k == 0
        text = "<answer>{" + ", ".join(map(str, item.answer if good else item.set_a)) + "}</answer>"
        scores.append(bench.score(item, [Response(request_id=item.id, text=text)]))
    row = bench.summarize(items, scores)["paper_tables"]["table4"]["rows"][0]
    configs = {i.config_id: i.k for i in items}
    accuracies = [1.0 if k == 0 else 0.5 for k in configs.values()]
    mean = sum(accuracies) / len(accuracies)
    sd = (sum((a - mean) ** 2 for a in accuracies) / (len(accuracies) - 1)) ** 0.5
    assert row["operation"] == "union" and row["configurations"] == len(configs)
    assert row["mean"] == pytest.approx(mean) and row["sd"] == pytest.approx(sd)
    assert row["prompts"] == len(items)


def test_cli_generate_and_bad_grid(tmp_path, capsys):
    from lexbench.cli import main

    out = tmp_path / "s.jsonl"
    assert main(["generate", "setlexsem", "--grid", "small", "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 544
    assert json.loads(Path(f"{out}.manifest.json").read_text())["prompts"] == 544
    assert "| deceptive | 6 | 12 | 0 |" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = 1\n")
    assert main(["generate", "setlexsem", "--grid", str(bad), "-o", str(out)]) == 2


def test_run_from_a_generated_items_file(tmp_path):
    write_items(tmp_path / "small.jsonl", "small")
    model = ScriptedModel(lambda request: "<answer>{}</answer>", name="empty-sayer")
    evaluation = run_setlexsem(
        model,
        items=tmp_path / "small.jsonl",
        limit=1,
        out=tmp_path / "runs",
        use_cache=False,
        progress=False,
    )
    results = evaluation.results
    assert results["overall"]["prompts"] == 272
    # Always answering ∅ is right exactly on the prompts whose true answer is empty.
    items = limit_per_config(read_items(tmp_path / "small.jsonl"), 1)
    assert results["overall"]["correct"] == sum(1 for i in items if not i.answer)
    tables = results["paper_error_tables"]
    for row in tables["table15"]["rows"] + tables["table16"]["rows"]:
        assert row["pct_nullset_wrong"] == 0.0 and row["made_up_vals_sum"] == 0
        assert row["accuracy_non_empty"] == 0.0
    with pytest.raises(ValueError, match="decoding overrides apply to a grid"):
        run_setlexsem(
            model,
            items=tmp_path / "small.jsonl",
            decoding={"temperature": 0.5},
            out=tmp_path / "runs",
            use_cache=False,
            progress=False,
        )
    chosen = run_setlexsem(
        model,
        items=tmp_path / "small.jsonl",
        limit=1,
        select=["study=overlap"],
        out=tmp_path / "runs",
        use_cache=False,
        progress=False,
    )
    assert chosen.results["overall"]["prompts"] == 2


def test_figure_labels_wrap_and_figure8_compares_the_two_relationships(tmp_path):
    from lexbench.benchmarks.setlexsem.figures import RELATIONSHIP, _groups, wrap

    assert wrap("Symmetric difference") == "Symmetric\ndifference"
    assert wrap("Deceptive, not swapped") == "Deceptive,\nnot swapped"
    assert wrap("swapped\n(intermingled)") == "swapped\n(intermingled)"  # words never split
    # Figure 8: the authors' "relationship between sets A and B" is their swapped column,
    # so the random baseline (no relationship) is not in it.
    configs = [
        {"k": k, "deceptive_condition": c, "n": 50, "accuracy": 0.5}
        for k in (0, 1)
        for c in ("not_swapped", "swapped", "random_baseline")
    ]
    groups = _groups(
        [c for c in configs if c["deceptive_condition"] in RELATIONSHIP],
        lambda c: (c["k"], c["deceptive_condition"]),
        lambda lv: f"k={lv[0]}\n{RELATIONSHIP[lv[1]]}",
    )
    assert list(groups) == [
        "k=0\nnot swapped\n(disjoint)",
        "k=0\nswapped\n(intermingled)",
        "k=1\nnot swapped\n(disjoint)",
        "k=1\nswapped\n(intermingled)",
    ]
