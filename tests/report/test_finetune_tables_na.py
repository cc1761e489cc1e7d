"""The fine-tune tables say `n/a` where a number is undefined (issue 43): SCAN Table 4 with
a p-value that could not be computed (one item, no mapping to flip) and a column over no
item, E-KAR's Acc(Δ) and explanation table over an empty split, E-KAR Table 2's fine-tuned
row with a meta-relation absent from the split. Never `nan`, `None` or a crash."""

from __future__ import annotations

import math
import re

from lexbench.benchmarks.ekar import finetune_accdelta, finetune_qa_table
from lexbench.benchmarks.scan import finetune_table

NOT_A_NUMBER = re.compile(r"(?i:(?<![\w./-])-?(nan|inf|infinity)(?!\w))|\bNone\b")
nan = math.nan


def test_scan_table_4_without_a_test_says_n_a():
    tests = {
        "SCAN": {
            "n": 1,
            "before": 0.5,
            "after": 1.0,
            "difference": 0.5,
            "p_unpaired": nan,
            "p_items": nan,
            "p_mappings": None,
            "resamples": 100,
            "unpaired_resamples": 100,
        },
        "BATS": {
            "n": 0,
            "before": nan,
            "after": nan,
            "difference": nan,
            "p_unpaired": None,
            "p_items": None,
            "p_mappings": None,
            "resamples": 100,
            "unpaired_resamples": 100,
        },
    }
    text = finetune_table.table_markdown(tests, "base", "tuned", None)
    assert not NOT_A_NUMBER.search(text), text
    assert "| tuned | 1.000 | n/a |" in text
    assert "| BATS | 0 | n/a | n/a | n/a | n/a | n/a | n/a |" in text


def test_ekar_accdelta_over_an_empty_split_says_n_a():
    empty = {"estimate": nan, "low": nan, "high": nan, "n": 0}
    accuracy = {
        "none": {"accuracy": 0.5, "n": 2},
        "generated": {"accuracy": None, "n": 0},
        "gold": {"accuracy": None, "n": 0},
    }
    text = finetune_accdelta.table_markdown(
        {"generated": {"rouge2_f1": empty}}, accuracy, title="t"
    )
    assert not NOT_A_NUMBER.search(text), text
    assert "| generated | rouge2_f1 | n/a | 0 |" in text
    assert "| none | 50.0 | n/a | 2 |" in text


def test_ekar_table_2_row_without_items_says_n_a():
    table = finetune_qa_table.accuracy_by_meta_relation([], [])
    text = finetune_qa_table.table_markdown("E-KAR", table)
    assert not NOT_A_NUMBER.search(text) and "–" not in text, text
    assert "| overall | 0 | n/a |" in text
