"""The Results page is what its script makes from run folders, and says what they hold.

`measurements/studies/results_page.py` summarises run folders into its record
(`results_summary.py`) and lays the page out from the record alone (`results_render.py`);
tests/docs/test_docs_figures.py checks that docs/results.md is its record rendered. Here the
same script runs on a small fixture of real run folders (tests/fixtures/results_page: LAMBDA
under both prompt styles, the Google analogies with GloVe; no model is loaded), and every
table it makes is checked against the folders' samples, counted here by hand: each cell and
interval, the format failures and the example answer behind each score near 0, the paired
tests, the papers' rows beside (or listed apart); and docs/results.md is laid out as the
script lays out a page now (its headings and table headers), so the page cannot drift from
its script.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest

from lexbench.stats import wilson_interval

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "results_page"
sys.path.insert(0, str(REPO / "measurements" / "studies"))
from results_figure import draw_figure  # noqa: E402
from results_page import MODELS, PAGE, SUITE  # noqa: E402
from results_render import render_page  # noqa: E402
from results_summary import skipped, summarise_runs  # noqa: E402

#: The timing block `results_page.py` writes after running its commands (made up here: the
#: fixture's folders were not made by one run of the script).
RUN = {
    "commands": ["lexbench run all --model smollm2-135m,gemma3-270m,glove --limit 1"],
    "slice": {"suite": 1, "setlexsem": 1, "lambda": 1},
    "started": "2026-11-28 23:20 UTC",
    "cache": "cold (a fresh file)",
    "load_before": 0.2,
    "load_after": 1.5,
    "cpu": "AMD EPYC",
    "cores": 2,
    "commit_run": "0123456789ab",
    "wall_s": 93.0,
    "argv": ["--limit", "1"],
    "steps": [{"command": "lexbench run all --limit 1 --out runs/x", "wall_s": 93.0}],
}
GLOVE_SKIPPED = (
    "skipped lambda (glove): lambda needs a model that answers generate requests; "
    "glove-6b-50d answers analogy"
)


@pytest.fixture(scope="module")
def made() -> tuple[dict[str, Any], str]:
    results = summarise_runs(FIXTURE, models=MODELS, order=("lambda", *SUITE))
    results["skipped"] = skipped([GLOVE_SKIPPED])
    results["run"] = RUN
    record = {
        "command": "python measurements/studies/results_page.py --limit 1",
        "results": results,
    }
    return record, render_page(record)


def folder(benchmark: str, model: str, style: str | None = None) -> Path:
    """The fixture's run folder of `model` (and LAMBDA's prompt style)."""
    for config in sorted((FIXTURE / benchmark).glob("*/*/config.json")):
        made = json.loads(config.read_text(encoding="utf-8"))
        if made["request"]["model"] == model and made["benchmark"].get("prompt_style") == style:
            return config.parent
    raise AssertionError(f"no {benchmark} run of {model} ({style}) in {FIXTURE}")


def samples(path: Path) -> list[dict[str, Any]]:
    lines = (path / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def section(page: str, heading: str) -> str:
    """The page from `heading` to the next heading of its level or above."""
    level = len(heading) - len(heading.lstrip("#"))
    start = page.index(heading + "\n")
    ends = [m.start() for m in re.finditer(rf"(?m)^#{{1,{level}}} ", page) if m.start() > start]
    return page[start : ends[0] if ends else len(page)]


def row(text: str, first: str, table_header: str) -> list[str]:
    """The cells of the row starting with `first` in the table under `table_header`."""
    table = text[text.index(table_header) :].split("\n\n")[0].splitlines()
    rows = [line for line in table if line.startswith(f"| {first} |")]
    assert len(rows) == 1, f"{len(rows)} rows start with {first!r} under {table_header!r}"
    return [cell.strip() for cell in rows[0].strip().strip("|").split("|")]


CELLS = "| model | items |"
PAIRED = "| pair | metric |"
LAMBDA = {"paper": "### With the paper's prompt", "completion": "### With the completion prompt"}


def _lambda_section(page: str, style: str) -> str:
    heading = next(line for line in page.splitlines() if line.startswith(LAMBDA[style]))
    return section(page, heading)


@pytest.mark.parametrize("style", ["paper", "completion"])
@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_a_lambda_cell_is_its_run_counted(made, model: str, style: str) -> None:
    rows = samples(folder("lambda", model, style))
    right = sum(1 for r in rows if r["correct"])
    wilson = wilson_interval(right, len(rows))
    failures = sum(1 for r in rows if r["error_class"] in ("format_failure", "no_answer"))
    classes = Counter(r["error_class"] for r in rows if not r["correct"])
    commonest, count = classes.most_common(1)[0]
    cells = row(_lambda_section(made[1], style), f"`{model}`", CELLS)
    assert cells[1:5] == [
        f"{len(rows)}",
        f"{100 * right / len(rows):.1f}",
        f"[{100 * max(wilson.low, 0):.1f}, {100 * wilson.high:.1f}]",
        f"{failures} ({100 * failures / len(rows):.1f}%)",
    ]
    assert cells[5] == f"{commonest}, {count} ({100 * count / len(rows):.1f}%)"
    assert cells[6] == f"`lambda/{model}/{folder('lambda', model, style).name}`"


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_a_score_near_zero_shows_the_answers_and_one_of_them(made, model: str) -> None:
    """Every LAMBDA answer of the fixture is wrong: the page names the format failures
    and quotes the first answer of the commonest wrong class, verbatim."""
    rows = samples(folder("lambda", model, "paper"))
    commonest = Counter(r["error_class"] for r in rows).most_common(1)[0][0]
    first = next(r for r in rows if r["error_class"] == commonest)
    text = _lambda_section(made[1], "paper")
    said = next(line for line in text.splitlines() if line.startswith(f"* `{model}`:"))
    assert f"item `{first['id']}`" in said
    assert f"it answered `{json.dumps(first['output'], ensure_ascii=False)}`" in said
    assert f"; {first['query']} : ?`" in said
    assert ", ".join(first["candidates"]) in said


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m", "glove"])
def test_a_ranking_cell_is_its_run_counted(made, model: str) -> None:
    rows = samples(folder("google", model))
    results = json.loads((folder("google", model) / "results.json").read_text(encoding="utf-8"))
    mrr = sum(r["value"] for r in rows) / len(rows)
    interval = results["overall"]["mrr"]
    cells = row(section(made[1], "## Google analogies"), f"`{model}`", CELLS)
    assert cells[1:5] == [
        f"{len(rows)}",
        f"{mrr:.3f}",
        f"[{max(interval['low'], 0):.3f}, {interval['high']:.3f}]",
        f"{sum(1 for r in rows if r['correct']) / len(rows):.3f}",
    ]
    glance = row(made[1], "Google analogies", "| benchmark | metric |")
    assert glance[3 + MODELS.index(model)] == f"{mrr:.3f} {cells[3]}"


def test_the_paired_tests_are_the_runs_item_by_item(made) -> None:
    """McNemar on the items where one model is right and the other wrong, counted here."""
    text = section(made[1], "## Google analogies")
    for a, b in [("smollm2-135m", "gemma3-270m"), ("smollm2-135m", "glove")]:
        right_a = {r["id"]: r["correct"] for r in samples(folder("google", a))}
        right_b = {r["id"]: r["correct"] for r in samples(folder("google", b))}
        only_a = sum(1 for i in right_a if right_a[i] and not right_b[i])
        only_b = sum(1 for i in right_a if right_b[i] and not right_a[i])
        p = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
        lines = [line for line in text.splitlines() if line.startswith(f"| {a} − {b} |")]
        mcnemar = next(line for line in lines if "exact McNemar" in line)
        cells = [cell.strip() for cell in mcnemar.strip("|").split("|")]
        assert cells[5] == f"{only_a} / {only_b}"
        assert cells[7] == f"{p:.4f}"
        assert any("paired permutation" in line and "MRR@10" in line for line in lines)


def test_the_papers_rows_stand_beside_only_comparable_runs(made) -> None:
    paper = _lambda_section(made[1], "paper")
    gpt2 = row(paper, "GPT-2 medium", "| model | source | N | Overall |")
    assert gpt2[1:5] == ["*published, not re-run*", "3,000", "0.3", "[0.2, 0.6]"]
    assert "n=3 of 3,000" in paper
    completion = _lambda_section(made[1], "completion")
    assert "| model | source |" not in completion
    assert "* Table 1 (Overall" in completion
    assert "the completion prompt" in completion and "the paper used the two-shot" in completion
    google = section(made[1], "## Google analogies")
    assert "* Table 2 (Google;" in google and "ranks open-vocabulary answers" in google


def _layout(text: str) -> set[str]:
    """Headings and table headers: how a page is laid out, apart from its numbers."""
    return {
        line
        for line in text.splitlines()
        if line.startswith(("#", "| model", "| pair", "| benchmark"))
    }


def test_the_page_is_laid_out_as_its_script_lays_out_a_page(made) -> None:
    """docs/results.md's headings and table headers are the ones the script makes now, for
    every benchmark the fixture holds: a page edited by hand, or a script changed without
    making the page again, fails here."""
    page = PAGE.read_text(encoding="utf-8")
    missing = sorted(_layout(made[1]) - _layout(page))
    assert not missing, "docs/results.md lacks what its script makes:\n" + "\n".join(missing)


def test_the_figure_is_drawn_from_the_record(made, tmp_path: Path) -> None:
    target = tmp_path / "img" / "results.png"
    draw_figure(made[0], target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
