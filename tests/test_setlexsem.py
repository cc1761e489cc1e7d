"""SetLexSem: set algebra, samplers, grids, deterministic generation, prompts, analysis, CLI."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lexbench.benchmarks.setlexsem import (
    ItemGenerator,
    SetLexSemBenchmark,
    generate_items,
    limit_per_config,
    read_items,
    run_setlexsem,
    write_items,
)
from lexbench.benchmarks.setlexsem_grid import (
    builtin_grid,
    grid_from_mapping,
    read_grid_file,
    resolve_grid,
)
from lexbench.benchmarks.setlexsem_prompts import demonstration, prompt_text
from lexbench.benchmarks.setlexsem_sets import (
    DECEPTIVE_CONDITIONS,
    MIN_EDIT_DISTANCE,
    OPERATIONS,
    draw_deceptive,
    draw_independent,
    draw_overlapping,
    ground_truth,
    load_hyponym_pools,
    number_pool,
    ordered_answer,
    swap_tails,
)
from lexbench.text import edit_distance
from mock_model import ScriptedModel

ROOT = Path(__file__).resolve().parents[1]


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


PYTHON_OPERATOR = {"union": lambda a, b: a | b, "intersection": lambda a, b: a & b,
                   "difference": lambda a, b: a - b, "symmetric_difference": lambda a, b: a ^ b}


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
            assert ground_truth(operation, a, b) == expected == _definition(operation, set(a), set(b))
            ordered = ordered_answer(operation, a, b)
            assert set(ordered) == expected and len(ordered) == len(expected)
            checked += 1
    assert checked == 12_000
    with pytest.raises(ValueError, match="unknown operation"):
        ground_truth("product", (1,), (2,))


def test_generated_answers_match_set_algebra():
    for item in generate_items("small"):
        expected = PYTHON_OPERATOR[item.operation](set(item.set_a), set(item.set_b))
        assert set(item.answer) == expected and len(item.answer) == len(expected)
        assert len(set(item.set_a)) == item.m == len(set(item.set_b))


# ------------------------------------------------------------------------------ samplers


def test_number_pools_have_exact_digit_counts():
    assert number_pool(3, 1000) == range(100, 1000)
    assert number_pool(1, 1000) == range(1, 10)
    assert number_pool(None, 1000) == range(0, 1000)
    a, b = draw_independent(random.Random(1), number_pool(4, 0), 16)
    assert all(1000 <= x < 10_000 for x in a + b) and len(set(a)) == len(set(b)) == 16


def test_overlap_sampler_shares_exactly_the_fraction():
    rng = random.Random(3)
    for m in (2, 4, 8, 16):
        for fraction in (0.0, 0.25, 0.5, 1.0):
            for _ in range(50):
                a, b = draw_overlapping(rng, range(100, 1000), m, fraction)
                assert len(set(a)) == len(set(b)) == m
                assert len(set(a) & set(b)) == int(m * fraction)


def test_independent_sets_make_about_half_the_small_intersections_empty():
    # The reason for the overlap sampler: with m=4 and 3-letter words, most intersections are empty.
    from lexbench.lexicon.words import words_of_length

    rng = random.Random(0)
    pool = words_of_length(2)
    empty = sum(1 for _ in range(400) if not ground_truth("intersection", *draw_independent(rng, pool, 8)))
    assert 0.2 < empty / 400 < 0.9


@pytest.fixture(scope="module")
def pools():
    return load_hyponym_pools()


def _assert_clean_members(members):
    for i, x in enumerate(members):
        assert x.isalpha() and x == x.lower()
        for y in members[i + 1:]:
            assert x not in y and y not in x
            assert edit_distance(x, y) >= MIN_EDIT_DISTANCE, (x, y)


def test_deceptive_sets_are_clean_hyponyms_of_two_different_hypernyms(pools):
    by_name = {p.hypernym: set(p.words) for p in pools}
    rng = random.Random(11)
    for m in (2, 4, 8, 16):
        for _ in range(5):
            draw = draw_deceptive(rng, pools, m, "not_swapped")
            assert len(draw.a) == len(draw.b) == m
            assert draw.hypernym_a != draw.hypernym_b
            assert set(draw.a) <= by_name[draw.hypernym_a]
            assert set(draw.b) <= by_name[draw.hypernym_b]
            assert not by_name[draw.hypernym_a] & by_name[draw.hypernym_b]
            _assert_clean_members(list(draw.a) + list(draw.b))


def test_swapped_is_not_swapped_with_the_tails_exchanged(pools):
    for m in (2, 4, 8):
        plain = draw_deceptive(random.Random(f"x{m}"), pools, m, "not_swapped")
        swapped = draw_deceptive(random.Random(f"x{m}"), pools, m, "swapped")
        assert (swapped.hypernym_a, swapped.hypernym_b) == (plain.hypernym_a, plain.hypernym_b)
        assert swapped.swapped == m // 2
        assert swapped.a == plain.a[:m - m // 2] + plain.b[m - m // 2:]
        assert swapped.b == plain.b[:m - m // 2] + plain.a[m - m // 2:]
    assert swap_tails(("a", "b"), ("c", "d"), 0) == (("a", "b"), ("c", "d"))


def test_random_baseline_draws_from_the_pooled_vocabulary(pools):
    vocabulary = {w for p in pools for w in p.words}
    draw = draw_deceptive(random.Random(5), pools, 8, "random_baseline")
    assert draw.hypernym_a is None and set(draw.a + draw.b) <= vocabulary
    _assert_clean_members(list(draw.a) + list(draw.b))
    with pytest.raises(ValueError, match="unknown deceptive condition"):
        draw_deceptive(random.Random(5), pools, 8, "shuffled")


# ------------------------------------------------------------------------------ grids


def test_paper_grid_counts():
    grid = builtin_grid("paper")
    generator = ItemGenerator(grid)
    studies = generator.studies_by_config()
    per_study = {s.name: s.configurations() for s in grid.studies}
    assert per_study == {"token_type": 2 * 3 * 4 * 4 * 4 * 4, "overlap": 2 * 4 * 4 * 2,
                         "deciles": 10 * 2 * 4 * 4 * 2, "deceptive": 3 * 4 * 4 * 4 * 2,
                         "phrasing": 2 * 4 * 4 * 4 * 2}
    assert per_study == {"token_type": 1536, "overlap": 64, "deciles": 640, "deceptive": 384,
                         "phrasing": 256}
    # The formal half of the phrasing study is the token_type study at length 3, baseline.
    shared = [c for c, names in studies.items() if len(names) > 1]
    assert len(shared) == 128
    assert len(studies) == 2752 and grid.prompts_per_config == 50  # 137,600 prompts


def _minimal(**study):
    return {"study": [{"name": "s", "token_types": ["numbers"], **study}]}


@pytest.mark.parametrize("data,message", [
    ({}, "no \\[\\[study\\]\\] tables"),
    ({"study": []}, "non-empty list"),
    ({"study": [{"name": "s", "token_types": ["numbers"], "colour": "red"}]}, "unknown key.*'colour'"),
    ({"seed": 1, "studies": []}, "unknown key.*'studies'"),
    (_minimal(operations=[]), "operations is empty"),
    (_minimal(k_shots=[0, 0]), "k_shots repeats 0"),
    (_minimal(methods=["tree_of_thought"]), "unknown value"),
    (_minimal(deciles=[1]), "'deciles' does not apply"),
    (_minimal(deceptive_conditions=["swapped"]), "does not apply"),
    (_minimal(overlaps=[1.5]), "fractions in \\[0, 1\\]"),
    ({"study": [{"name": "s", "token_types": ["words", "deciles"], "deciles": [1]}]}, "a study of its own"),
    ({"study": [{"name": "s", "token_types": ["deceptive"]}]}, "needs 'deceptive_conditions'"),
    ({"study": [{"name": "s", "token_types": ["deceptive"], "deceptive_conditions": ["swapped"],
                 "token_lengths": [3]}]}, "'token_lengths' does not apply"),
    ({"study": [{"name": "s", "token_types": ["deciles"], "deciles": [1]}]}, "explicit token_lengths"),
    ({"study": [{"name": "s", "token_types": ["words"], "number_range": 10}]}, "applies only to numbers"),
    ({"study": [{"token_types": ["words"]}]}, "non-empty string 'name'"),
    ({"study": [{"name": "s", "token_types": ["words"]}, {"name": "s", "token_types": ["numbers"]}]},
     "names repeat"),
    ({**_minimal(), "decoding": {"beam": 4}}, "unknown key.*'beam'"),
    ({**_minimal(), "prompts_per_config": 0}, "between 1 and 100000, got 0"),
])
def test_grid_validation_errors(data, message):
    with pytest.raises(ValueError, match=message):
        grid_from_mapping(data)


def test_infeasible_cell_is_an_error_not_a_skip():
    grid = grid_from_mapping({"prompts_per_config": 1,
                              "study": [{"name": "s", "token_types": ["numbers"],
                                         "token_lengths": [1], "operand_sizes": [16]}]})
    with pytest.raises(ValueError, match="pool has 9 members but sets of 16"):
        generate_items(grid)


def test_toml_and_python_grid_files(tmp_path):
    toml = tmp_path / "grid.toml"
    toml.write_text('seed = 5\nprompts_per_config = 2\n[decoding]\ntemperature = 0.25\ntop_k = 20\n'
                    'top_p = 0.25\n\n[[study]]\nname = "mini"\ntoken_types = ["numbers"]\n'
                    'operations = ["union"]\noperand_sizes = [2]\ntoken_lengths = ["any", 3]\n'
                    'overlaps = ["none", 0.5]\n')
    grid = read_grid_file(toml)
    assert grid.seed == 5 and grid.decoding.temperature == 0.25 and grid.decoding.top_k == 20
    assert grid.studies[0].token_lengths == (None, 3) and grid.studies[0].overlaps == (None, 0.5)
    items = generate_items(grid)
    assert len(items) == 2 * 2 * 2
    assert {i.decoding["temperature"] for i in items} == {0.25}
    assert all(0 <= x < 1000 for i in items if i.token_length is None for x in i.set_a)

    python = tmp_path / "grid.py"
    python.write_text("GRID = {'study': [{'name': 'p', 'token_types': ['words'], "
                      "'operations': ['difference'], 'operand_sizes': [4], 'token_lengths': [5]}]}\n")
    assert resolve_grid(python).studies[0].token_types == ("words",)

    (tmp_path / "bad.toml").write_text("[[study]]\nname = 'x'\ntoken_types = ['numbers']\nk = 1\n")
    with pytest.raises(ValueError, match="bad.toml.*unknown key.*'k'"):
        resolve_grid(tmp_path / "bad.toml")
    (tmp_path / "nogrid.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match="must define a dict named GRID"):
        resolve_grid(tmp_path / "nogrid.py")
    with pytest.raises(FileNotFoundError):
        resolve_grid(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="unknown grid 'huge'"):
        resolve_grid("huge")


# ------------------------------------------------------------------------------ generation


@pytest.fixture(scope="module")
def small_items():
    return generate_items("small")


def test_small_grid_rows_carry_every_hyperparameter(small_items):
    ids = [i.id for i in small_items]
    assert len(ids) == len(set(ids)) == 292
    row = small_items[0].to_dict()
    for key in ("token_type", "operation", "m", "token_length", "number_range", "overlap", "decile",
                "decile_scope", "deceptive_condition", "k", "method", "phrasing", "seed",
                "decoding", "prompt", "set_a", "set_b", "answer", "studies", "prompt_index"):
        assert key in row
    assert row["decoding"]["temperature"] == 0.0  # greedy by default, recorded


def test_sets_stay_the_same_as_k_method_and_phrasing_vary(small_items):
    by_cell: dict = {}
    for item in small_items:
        if item.token_type in ("numbers", "words") and item.overlap is None:
            key = (item.token_type, item.token_length, item.m, item.prompt_index)
            by_cell.setdefault(key, set()).add((item.set_a, item.set_b))
    assert by_cell and all(len(pairs) == 1 for pairs in by_cell.values())
    one = [i for i in small_items if i.config_id.startswith("numbers/L2/m2/union/k1/baseline")][0]
    zero = [i for i in small_items if i.config_id.startswith("numbers/L2/m2/union/k0/baseline")][0]
    assert (one.set_a, one.set_b) == (zero.set_a, zero.set_b)
    assert len(one.demonstrations) == 1 and zero.demonstrations == ()
    assert (one.set_a, one.set_b) not in one.demonstrations


def test_demonstrations_for_small_k_are_a_prefix_of_larger_k():
    grid = grid_from_mapping({"prompts_per_config": 1, "study": [
        {"name": "k", "token_types": ["words"], "token_lengths": [4], "operand_sizes": [4],
         "operations": ["intersection"], "k_shots": [0, 1, 3, 5]}]})
    by_k = {i.k: i for i in generate_items(grid)}
    assert by_k[5].demonstrations[:3] == by_k[3].demonstrations
    assert by_k[3].demonstrations[:1] == by_k[1].demonstrations
    assert by_k[5].prompt.count("\n- If set A is") == 5


def test_generation_is_byte_identical_across_hash_seeds(tmp_path):
    digests = set()
    for seed in ("0", "4242"):
        out = tmp_path / f"items-{seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-m", "lexbench.cli", "generate", "setlexsem", "--grid",
                        "small", "-o", str(out)], check=True, env=env, cwd=ROOT,
                       capture_output=True, text=True)
        digests.add(out.read_bytes())
    assert len(digests) == 1


def test_write_and_read_items_round_trip(tmp_path, small_items):
    meta = write_items(tmp_path / "small.jsonl", "small")
    assert meta["prompts"] == 292 and meta["configurations"] == 146
    assert meta["per_study"]["deceptive"] == {"configurations": 6, "prompts": 12}
    back = read_items(tmp_path / "small.jsonl")
    assert back == small_items
    assert len(limit_per_config(back, 1)) == 146


# ------------------------------------------------------------------------------ prompts


def test_prompt_sections_and_methods():
    a, b = (3, 8), (8, 5)
    demos = [((1, 2), (2, 9)), ((4, 6), (7, 0))]
    text = prompt_text(a, b, "intersection", "chain_of_thought", "plain", demos)
    assert text.startswith("You are given two sets. Set A is {3, 8}. Set B is {8, 5}.")
    assert "<task> Print the set of members belonging to both A and B as a Python set. </task>" in text
    assert text.index("<task>") < text.index("<examples>") < text.index("</examples>") \
        < text.index("Think step by step")
    assert "<thinking></thinking>" in text and "<answer></answer>" in text
    assert "the answer is {2}, because 2 is in both A and B." in text
    assert "the answer is {} (the empty set), because no members are in both A and B." in text
    formal = prompt_text(a, b, "union", "baseline", "formal", [])
    assert "<task> Print the set union of A and B as a Python set. </task>" in formal
    assert "<examples>" not in formal and "Do not explain your reasoning." in formal
    assert "The answer can be an empty set." in prompt_text(a, b, "union", "allow_empty_set", "formal", [])
    assert "<reflection></reflection>" in prompt_text(a, b, "union", "self_reflection", "formal", [])
    assert demonstration("symmetric_difference", (1, 2), (2, 3)) == (
        "If set A is {1, 2} and set B is {2, 3}, the answer is {1, 3}, because 1 is only in A "
        "and 3 is only in B.")


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


def test_evaluate_on_scripted_model_writes_tables_and_violins(tmp_path, small_items):
    items = limit_per_config(small_items, 1)
    model = ScriptedModel(_oracle({i.id: i for i in items}), name="oracle")
    evaluation = run_setlexsem(model, grid="small", limit=1, out=tmp_path / "runs", use_cache=False,
                               progress=False)
    results = evaluation.results
    assert results["overall"]["prompts"] == 146
    assert 0.4 < results["overall"]["accuracy"] < 0.8
    for table in ("by_model", "by_operation", "by_operand_size", "token_type_by_operation",
                  "by_token_length", "method_by_k", "intersection_by_overlap", "by_decile",
                  "deceptive_by_operation"):
        assert results[table], table
        assert all(0.0 <= row["mean"] <= 1.0 and row["sd"] >= 0.0 for row in results[table])
    assert {r["deceptive_condition"] for r in results["deceptive_by_operation"]} == set(DECEPTIVE_CONDITIONS)
    assert results["decile_length_difference"] and results["phrasing"]["plain_minus_formal"]["pairs"] == 2
    analysis = results["error_analysis"]
    assert sum(r["prompts"] for r in analysis) == 146
    assert sum(r["format_failures"] for r in analysis) == results["error_classes"]["format_failure"]
    assert any(r["top_confusions"] for r in analysis)
    figures = sorted(p.name for p in (evaluation.folder.path / "figures").glob("*.png"))
    assert "violin_operation.png" in figures and "violin_deceptive.png" in figures
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    assert len(samples) == 146 and {"id", "correct", "value", "error_class", "prompt", "output",
                                     "parsed_answer", "precision", "recall", "jaccard"} <= set(samples[0])
    assert "## Error analysis" in evaluation.report and "G" in evaluation.report


def test_by_operation_spread_is_the_sd_of_configuration_accuracies(small_items):
    from lexbench.benchmarks.setlexsem_analysis import summarize
    from lexbench.types import Response

    items = [i for i in limit_per_config(small_items, 2) if i.token_type == "numbers"
             and i.overlap is None and i.operation == "union"]
    bench = SetLexSemBenchmark(dataset=items)
    # Right on prompt 0 of every configuration, right on prompt 1 only for k=0.
    scores = []
    for item in items:
        good = item.prompt_index == 0 or item.k == 0
        text = "<answer>{" + ", ".join(map(str, item.answer if good else item.set_a)) + "}</answer>"
        scores.append(bench.score(item, [Response(request_id=item.id, text=text)]))
    row = summarize(items, scores)["by_operation"][0]
    configs = {i.config_id: i.k for i in items}
    accuracies = [1.0 if k == 0 else 0.5 for k in configs.values()]
    mean = sum(accuracies) / len(accuracies)
    sd = (sum((a - mean) ** 2 for a in accuracies) / (len(accuracies) - 1)) ** 0.5
    assert row["mean"] == pytest.approx(mean) and row["sd"] == pytest.approx(sd)


def test_cli_generate_and_bad_grid(tmp_path):
    from lexbench.cli import main

    out = tmp_path / "s.jsonl"
    assert main(["generate", "setlexsem", "--grid", "small", "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 292
    assert json.loads(Path(f"{out}.manifest.json").read_text())["prompts"] == 292
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = 1\n")
    assert main(["generate", "setlexsem", "--grid", str(bad), "-o", str(out)]) == 2


# ------------------------------------------------------------------------------ the real model


@pytest.mark.slow
def test_smollm2_on_a_tiny_grid(tmp_path, smollm2, tmp_cache):
    grid = grid_from_mapping({
        "prompts_per_config": 2, "decoding": {"max_new_tokens": 20, "stop": ["</answer>"]},
        "study": [{"name": "tiny", "token_types": ["numbers", "words"], "token_lengths": [2],
                   "operand_sizes": [2], "operations": ["union", "intersection"],
                   "k_shots": [0, 1], "phrasings": ["formal", "plain"]}]})
    evaluation = run_setlexsem(smollm2, grid=grid, out=tmp_path / "runs", cache=tmp_cache,
                               progress=False)
    results = evaluation.results
    assert results["overall"]["prompts"] == 32 and results["failed_requests"] == 0
    assert results["by_operation"] and results["method_by_k"] and results["phrasing"]
    assert (evaluation.folder.path / "figures" / "violin_operation.png").is_file()
    again = run_setlexsem(smollm2, grid=grid, out=tmp_path / "runs", cache=tmp_cache, progress=False)
    assert again.stats.sent == 0 and again.results["overall"] == results["overall"]


def test_run_from_a_generated_items_file(tmp_path):
    write_items(tmp_path / "small.jsonl", "small")
    model = ScriptedModel(lambda request: "<answer>{}</answer>", name="empty-sayer")
    evaluation = run_setlexsem(model, items=tmp_path / "small.jsonl", limit=1,
                               out=tmp_path / "runs", use_cache=False, progress=False)
    results = evaluation.results
    assert results["overall"]["prompts"] == 146
    # Always answering ∅ is right exactly on the prompts whose true answer is empty.
    items = limit_per_config(read_items(tmp_path / "small.jsonl"), 1)
    assert results["overall"]["correct"] == sum(1 for i in items if not i.answer)
    rows = results["error_analysis"]
    assert all(r["empty_answers"] == r["prompts"] for r in rows)
    assert all(r["hallucinated_pct"] == 0.0 for r in rows)
    with pytest.raises(ValueError, match="decoding overrides apply to a grid"):
        run_setlexsem(model, items=tmp_path / "small.jsonl", decoding={"temperature": 0.5},
                      out=tmp_path / "runs", use_cache=False, progress=False)
