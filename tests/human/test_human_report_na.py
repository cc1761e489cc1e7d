"""A human study's report says `n/a` where a number is undefined (issue 43): a kappa over
one label only (0/0, NaN), an accuracy over nothing scored, no timing; never `nan`."""

from __future__ import annotations

import math

from lexbench.human.results import report_markdown


def test_an_undefined_kappa_and_an_empty_accuracy_say_n_a():
    row = {"answered": 0, "accuracy": math.nan, "correct": 0, "scored": 0, "run": "runs/x"}
    summary = {
        "benchmark": "lambda",
        "items": 2,
        "study": "s",
        "study_id": "abc",
        "annotators": ["ann", "bob"],
        "stages": {
            "answer": {
                "annotators": {"ann": {**row, "median_client_seconds": None}},
                "crowd": {**row, "items": 2},
                "mean_accuracy": math.nan,
                "agreement": {
                    "items": 2,
                    "answers": {"method": "cohen", "kappa": math.nan, "observed": 1.0},
                    "correct": {"method": "cohen", "kappa": None, "observed": math.nan},
                },
            }
        },
    }
    text = report_markdown(summary)
    assert "nan" not in text.lower()
    assert "| ann | 0 | n/a (0/0) | n/a | `runs/x` |" in text
    assert "| crowd (majority) | 2 | n/a (0/0) | n/a | `runs/x` |" in text
    assert "answers n/a (observed 100.0%), right/wrong n/a (observed n/a)" in text
