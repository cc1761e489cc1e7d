"""`--grid paper` is the paper's design: counts pinned to the N of its tables, its prompt
templates word for word, its deceptive vocabulary rules, its table definitions."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lexbench.benchmarks.setlexsem.analysis import decile_differences, paper_tables
from lexbench.benchmarks.setlexsem.errors import ErrorCounts, error_row, max_value
from lexbench.benchmarks.setlexsem.generate import ItemGenerator
from lexbench.benchmarks.setlexsem.grid_read import builtin_grid
from lexbench.benchmarks.setlexsem.hyponym_pools import (
    MAX_POOL_WORDS,
    clean_lemma_names,
    load_hyponym_pools,
    pools_from_graph,
)
from lexbench.benchmarks.setlexsem.prompts import demonstration, prompt_text
from lexbench.benchmarks.setlexsem.sets import DeceptivePools, draw_deceptive

PER_CONFIG = 50  # the paper's prompts per configuration: its N are configurations x 50
# Table 7's N (pairs of configurations) per decile 1-9: the paper's, and `--grid paper`'s.
PAPER_TABLE7_N = [0, 96, 128, 128, 128, 128, 128, 128, 96]
LEXBENCH_TABLE7_N = [0, 0, 64, 128, 128, 128, 128, 128, 96]


@pytest.fixture(scope="module")
def paper_plan():
    return ItemGenerator(builtin_grid("paper")).plan()


@pytest.fixture(scope="module")
def paper_configs(paper_plan):
    """Every planned configuration as a results.json record with N = 50 prompts."""
    planned, _ = paper_plan
    rng = random.Random(0)
    records, seen = [], set()
    for cell in planned:
        if cell.config_id in seen:
            continue
        seen.add(cell.config_id)
        correct = rng.randint(0, PER_CONFIG)
        records.append(
            {
                **cell.set_config,
                **cell.prompt_config,
                "config_id": cell.config_id,
                "n": PER_CONFIG,
                "correct": correct,
                "accuracy": correct / PER_CONFIG,
            }
        )
    return records


def test_paper_grid_has_the_papers_configuration_counts(paper_plan):
    planned, skipped = paper_plan
    per_study = Counter(cell.study for cell in planned)
    grid = builtin_grid("paper")
    nominal = {study.name: study.configurations() for study in grid.studies}
    # main: 2 token types x 4 lengths x 4 sizes x 4 operations x 4 k x 4 methods x 2 phrasings,
    # less the 128 cells asking for 16 distinct one-digit numbers (Table 5: 46,400 = 928 x 50).
    assert nominal["main"] == 4096 and per_study["main"] == 3968
    main_skipped = [s.config_id for s in skipped if s.study == "main"]
    assert len(main_skipped) == 128 and all(c.startswith("numbers/L1/m16/") for c in main_skipped)
    # deceptive: 3 conditions x 4 sizes x 4 operations x 4 k x 2 allow-empty methods (Table 8).
    assert nominal["deceptive"] == per_study["deceptive"] == 384
    # deciles: 9 deciles x 2 lengths x 4 sizes x 4 operations x 4 k x 2 methods; the cells
    # the vocabulary cannot fill are left out. With the authors' equal-width log bins over
    # wordfreq on Google Books' scale, no word wordfreq knows is rare enough for deciles 1
    # and 2 (512 cells), decile 3 has 8 three-letter words (no sets of 8 or 16: 64 cells)
    # and decile 9 15 five-letter words (no sets of 16: 32 cells).
    assert nominal["deciles"] == 2304
    decile_skipped = [s.config_id for s in skipped if s.study == "deciles"]
    assert per_study["deciles"] == 1696 and len(decile_skipped) == 608
    by_decile = Counter(c.split("/")[2] for c in decile_skipped)
    assert by_decile == {"d1gb": 256, "d2gb": 256, "d3gb": 64, "d9gb": 32}
    assert {c.split("/")[1] + "/" + c.split("/")[3] for c in decile_skipped if "d3gb" in c} == {
        "L3/m8",
        "L3/m16",
    }
    assert {c.split("/")[1] + "/" + c.split("/")[3] for c in decile_skipped if "d9gb" in c} == {
        "L5/m16"
    }
    assert len(planned) == 3968 + 1696 + 384 == 6048  # x 50 = 302,400 prompts


def _n(table, **where):
    rows = [r for r in table["rows"] if all(r[k] == v for k, v in where.items())]
    assert len(rows) == 1, where
    return rows[0]["prompts"]


def test_each_table_has_the_n_the_paper_reports(paper_configs):
    tables = paper_tables(paper_configs, model="m")
    assert _n(tables["table3"], model="m") == 12_400  # Table 3
    for operation in ("union", "intersection", "difference", "symmetric_difference"):
        assert _n(tables["table4"], operation=operation) == 51_200  # Table 4
        assert _n(tables["table6"], operation=operation, token_type="numbers") == 24_000
        assert _n(tables["table6"], operation=operation, token_type="words") == 27_200
    for size in (2, 4, 8):
        assert _n(tables["table5"], m=size) == 52_800  # Table 5
    assert _n(tables["table5"], m=16) == 46_400
    for condition in ("not_swapped", "swapped", "random_baseline"):
        assert _n(tables["table8"], deceptive_condition=condition) == 6_400  # Table 8
        for operation in ("union", "intersection", "difference", "symmetric_difference"):
            assert _n(tables["table9"], deceptive_condition=condition, operation=operation) == 1_600
    assert _n(tables["table10"], phrasing="formal") == 105_600  # Table 10
    assert _n(tables["table10"], phrasing="plain") == 99_200
    # Table 7: N pairs per decile, pinned beside the paper's (docs: SetLexSem fidelity).
    # Deciles 1 and 4-9 match; 2 and 3 cannot: wordfreq knows no word rarer than about 1e-8
    # of tokens, which on Google Books' scale is already 0.255 of the way up, in decile 3.
    pairs = [r["pairs"] for r in tables["table7"]["rows"]]
    assert [r["decile"] for r in tables["table7"]["rows"]] == list(range(1, 10))
    assert pairs == LEXBENCH_TABLE7_N
    assert [d for d in range(1, 10) if pairs[d - 1] != PAPER_TABLE7_N[d - 1]] == [2, 3]
    # Tables 11-14 show operand sizes 2 and 4 only.
    assert {r["m"] for r in tables["table11"]["rows"]} == {2, 4}
    assert len(tables["table14"]["rows"]) == 2 * 4 * 4


def test_lexbench_grid_keeps_its_extras_out_of_the_paper_tables(paper_configs):
    lexbench = ItemGenerator(builtin_grid("lexbench")).plan()[0]
    studies = {cell.study for cell in lexbench}
    assert {
        "main",
        "deciles",
        "deceptive",
        "unconstrained_length",
        "overlap",
        "deciles_equal_count",
        "deciles_within_length",
        "extra_phrasings",
        "extra_methods",
    } == studies
    records, seen = [], set()
    for cell in lexbench:
        if cell.config_id not in seen:
            seen.add(cell.config_id)
            records.append(
                {
                    **cell.set_config,
                    **cell.prompt_config,
                    "config_id": cell.config_id,
                    "n": PER_CONFIG,
                    "correct": 25,
                    "accuracy": 0.5,
                }
            )
    paper = paper_tables(paper_configs, "m")
    mixed = paper_tables(records, "m")
    for name in paper:

        def sizes(table):
            return [r.get("prompts", r.get("pairs")) for r in table["rows"]]

        assert sizes(mixed[name]) == sizes(paper[name]), name


# ------------------------------------------------------------------------------ prompts

FINAL = (
    "At last, provide only the final answer as a mathematical set, without any code or "
    "additional context. Do not include anything other than your final answer in your "
    "response within <answer></answer> XML tags."
)
THINK = (
    "Explain your step-by-step reasoning process in detail within <thinking></thinking> XML tags."
)


def test_prompts_are_the_papers_templates_word_for_word():
    base = prompt_text((12, 47), (47, 90), "union", "baseline", "formal", [])
    assert base == (
        "You are given two sets. Set A is (12, 47). Set B is (47, 90). You are given the "
        "following task:\n<task> Print the set union of A and B as a Python set. </task>\n"
        "Do not explain your reasoning. Do not write a code or script or use any tools. "
        f"{FINAL} Stop after printing.\n\n"
    )
    shot = prompt_text(
        (12, 47),
        (47, 90),
        "intersection",
        "baseline_allow_empty",
        "plain",
        [((3, 8), (8, 5)), ((1, 2), (4, 6))],
    )
    assert shot == (
        "You are given two sets. Set A is (12, 47). Set B is (47, 90). You are given the "
        "following task:\n<task> Print the set of members belonging to both A and B as a "
        "Python set. </task>\nThese are some examples:\n<examples>\n"
        "- If set A is (3, 8) and set B is (8, 5), print (8), because 8 is in both A and B.\n"
        "- If set A is (1, 2) and set B is (4, 6), print () (the empty set), because no members "
        "are in both A and B.\n</examples>\n\n"
        "Do not explain your reasoning. Do not write a code or script or use any tools. "
        f"{FINAL} The answer can be an empty set. Stop after printing.\n\n"
    )
    cot = prompt_text(
        ("cat",), ("dog",), "symmetric_difference", "cot_self_reflection", "formal", []
    )
    assert cot.endswith(
        "<task> Print the symmetric set difference of A and B. </task>\n"
        "You are an expert in performing set-operation in mathematics. Think step by step. "
        f"{THINK} {FINAL}\n\n<thinking>"
    )
    cot_empty = prompt_text(
        ("cat",), ("dog",), "difference", "cot_self_reflection_allow_empty", "plain", []
    )
    assert cot_empty.endswith(
        "<task> Print the set of members belonging to A and not to B as a Python set. </task>\n"
        f"Think step by step. {THINK} {FINAL} The answer can be an empty set.\n\n<thinking>"
    )
    assert demonstration("symmetric_difference", (1, 2), (2, 3)) == (
        "If set A is (1, 2) and set B is (2, 3), print (1, 3), because (1) is in only A and "
        "(3) is in only B"
    )
    assert demonstration("difference", (1, 2, 3), (2, 9)) == (
        "If set A is (1, 2, 3) and set B is (2, 9), print (1, 3), because only 1 and 3 are in "
        "A and not B."
    )
    assert demonstration("union", (1, 2), (2, 3)) == (
        "If set A is (1, 2) and set B is (2, 3), print (1, 2, 3), because 1, 2, and 3 are in "
        "either A or B."
    )


# ------------------------------------------------------------------------------ deceptive words


def test_lemma_cleaning_follows_the_papers_rules():
    rng = random.Random(1)
    # A name inside a longer one goes; '_' and '-' names go; case and apostrophes stay.
    assert clean_lemma_names(
        ["dog", "hotdog", "hot_cross_bun", "Bahai", "o'clock", "x-ray"], rng
    ) == ["Bahai", "hotdog", "o'clock"]
    # Names closer than 3 edits are thinned until none are.
    kept = clean_lemma_names(["colour", "color", "tint"], random.Random(2))
    assert len(kept) == 2 and "tint" in kept
    # A synset needing more than five removals gives nothing.
    assert clean_lemma_names(["aa", "ab", "ac", "ad", "ae", "af", "ag"], random.Random(3)) == []


def test_pools_from_a_hand_made_graph_include_verbs_and_cap_at_thirty_words():
    children = {
        "walk.v.01": ["stroll.v.01", "march.v.01"],
        "stroll.v.01": [],
        "march.v.01": [],
        "thing.n.01": [f"t{i}.n.01" for i in range(40)],
        "loop.v.01": ["loop.v.02"],
        "loop.v.02": ["loop.v.01"],
    }
    own = {
        "stroll.v.01": ["stroll", "saunter"],
        "march.v.01": ["march"],
        **{f"t{i}.n.01": [f"w{i:02d}"] for i in range(40)},
        "loop.v.01": ["restrain"],
        "loop.v.02": ["inhibit", "curb"],
    }
    pools = {p.hypernym: p.words for p in pools_from_graph(children, own)}
    assert pools["walk.v.01"] == ("march", "saunter", "stroll")
    assert "thing.n.01" not in pools  # 40 hyponym words: too generic
    assert pools["loop.v.01"] == ("curb", "inhibit")  # a cycle ends, it does not recurse


@pytest.fixture(scope="module")
def pools():
    return load_hyponym_pools()


def test_deceptive_vocabulary_has_verbs_capitals_and_apostrophes(pools):
    words = {w for p in pools for w in p.words}
    assert any(".v." in p.hypernym for p in pools)
    assert any(w[:1].isupper() for w in words) and any("'" in w for w in words)
    assert not any("_" in w or "-" in w for w in words)
    assert all(2 <= len(p.words) <= MAX_POOL_WORDS for p in pools)


def test_deceptive_draws(pools):
    by_name = {p.hypernym: set(p.words) for p in pools}
    for m in (2, 4, 8, 16):
        prepared = DeceptivePools.build(pools, m)
        for seed in range(5):
            plain = draw_deceptive(random.Random(seed), prepared, None, "not_swapped")
            assert len(set(plain.a)) == len(set(plain.b)) == m and not set(plain.a) & set(plain.b)
            assert (
                set(plain.a) <= by_name[plain.hypernym_a]
                and set(plain.b) <= by_name[plain.hypernym_b]
            )
            swapped = draw_deceptive(random.Random(seed), prepared, None, "swapped")
            half = m // 2
            assert swapped.swapped == half
            assert swapped.a == plain.a[: m - half] + plain.b[m - half :]
            assert swapped.b == plain.b[: m - half] + plain.a[m - half :]
            baseline = draw_deceptive(random.Random(seed), prepared, None, "random_baseline")
            assert baseline.hypernym_a is None and set(baseline.a + baseline.b) <= set(
                prepared.vocabulary
            )
    with pytest.raises(ValueError, match="unknown deceptive condition"):
        draw_deceptive(random.Random(5), pools, 8, "shuffled")


# ------------------------------------------------------------------------------ definitions


def test_table7_pairs_configurations_equal_in_everything_but_length():
    base = {
        "token_type": "deciles",
        "decile_scope": "global",
        "method": "baseline_allow_empty",
        "phrasing": "formal",
        "n": 50,
    }
    configs = []
    for k, (short, long) in zip((0, 1, 3), [(0.5, 0.9), (0.8, 0.6), (0.2, 0.2)]):
        for length, accuracy in ((3, short), (5, long)):
            configs.append(
                {
                    **base,
                    "decile": 4,
                    "token_length": length,
                    "operation": "union",
                    "m": 2,
                    "k": k,
                    "accuracy": accuracy,
                }
            )
    configs.append(
        {
            **base,
            "decile": 4,
            "token_length": 3,
            "operation": "union",
            "m": 4,
            "k": 0,
            "accuracy": 1.0,
        }
    )  # no length-5 partner: not a pair
    row = next(r for r in decile_differences(configs) if r["decile"] == 4)
    assert row["pairs"] == 3
    assert row["mean"] == pytest.approx((40 - 20 + 0) / 3)
    assert (row["min"], row["max"]) == (pytest.approx(-20), pytest.approx(40))
    assert row["sd"] == pytest.approx(30.5505, abs=1e-3)


def test_error_measures_use_the_authors_denominators():
    # (the true answer, the verdict) of five scored prompts of one main-design group
    pairs = [
        ((1, 2), {"correct": True, "parsed_answer": [1, 2], "answer_size": 2}),
        ((), {"correct": True, "parsed_answer": [], "answer_size": 0}),
        (
            (),
            {
                "correct": False,
                "parsed_answer": [7],
                "answer_size": 1,
                "hallucinated": [7],
                "hallucinated_count": 1,
            },
        ),
        (
            (),
            {
                "correct": False,
                "parsed_answer": None,
                "answer_size": None,
                "error_class": "format_failure",
            },
        ),
        (
            (3,),
            {
                "correct": False,
                "parsed_answer": [3, 8, 9],
                "answer_size": 3,
                "hallucinated": [8, 9],
                "hallucinated_count": 2,
            },
        ),
    ]
    counts = ErrorCounts()
    for truth, verdict in pairs:
        counts.add(len(truth), verdict)
    # The main design fixes the token length: Max Value -1.
    row = error_row(counts, {max_value({"token_length": 3, "number_range": None})})
    assert row["max_value"] == -1
    assert row["n_comparisons"] == 5 and row["n_correct"] == 2 and row["n_wrong"] == 3
    assert row["accuracy"] == pytest.approx(40.0)
    assert row["accuracy_non_empty"] == pytest.approx(20.0)  # of all prompts, not of 2
    assert row["pct_nullset_correct"] == pytest.approx(20.0)
    assert row["pct_nullset_wrong"] == pytest.approx(40.0)  # the unreadable one included
    assert row["accuracy"] == pytest.approx(row["accuracy_non_empty"] + row["pct_nullset_correct"])
    assert row["made_up_vals_sum"] == 3 and row["pct_with_made_up_vals"] == pytest.approx(60.0)
    assert row["did_not_follow_instruction"] == 1
    assert row["top_mistakes"][0][1] == pytest.approx(33.33)
    assert {label for label, _ in row["top_mistakes"]} == {"G0 vs. L1", "G0 vs. L–", "G1 vs. L3"}
    assert row["top_correct"] == [["G0 vs. L0", 50.0], ["G2 vs. L2", 50.0]]
