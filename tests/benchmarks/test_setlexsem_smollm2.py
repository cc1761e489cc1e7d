"""End to end on the packaged SmolLM2-135M: a slice of `--grid paper`, one prompt per
configuration, through generation, the model, scoring, the paper's tables and figures, and a
rerun served entirely from the cache."""

from __future__ import annotations

import pytest

from lexbench.benchmarks.setlexsem.benchmark import run_setlexsem

# One prompt in each study: union, size 2, k = 0, formal, the base prompt allowing the empty
# set; main at token lengths 2 and 3, decile 5 at lengths 3 and 5, every deceptive condition.
SLICE = [
    "operation=union",
    "m=2",
    "k=0",
    "phrasing=formal",
    "method=baseline_allow_empty",
    "token_length=2,3,5,any",
    "decile=5,any",
]
DECODING = {"max_new_tokens": 16, "stop": ["</answer>"]}


@pytest.mark.slow
def test_paper_grid_slice_end_to_end(tmp_path, smollm2, tmp_cache):
    evaluation = run_setlexsem(
        smollm2,
        grid="paper",
        limit=1,
        select=SLICE,
        decoding=DECODING,
        out=tmp_path / "runs",
        cache=tmp_cache,
        progress=False,
    )
    results = evaluation.results
    configs = results["configurations"]
    assert results["failed_requests"] == 0 and results["overall"]["prompts"] == 9
    assert (
        sorted(c["token_type"] for c in configs)
        == ["deceptive"] * 3 + ["deciles"] * 2 + ["numbers"] * 2 + ["words"] * 2
    )
    assert all(c["n"] == 1 for c in configs)
    paper = results["paper_tables"]
    assert paper["table3"]["rows"][0]["prompts"] == 4  # main, k = 0, formal, allow-empty
    assert paper["table4"]["rows"][0]["prompts"] == 5  # plus the random baseline
    assert [r["pairs"] for r in paper["table7"]["rows"] if r["decile"] == 5] == [1]
    assert {r["deceptive_condition"] for r in paper["table8"]["rows"]} == {
        "not_swapped",
        "swapped",
        "random_baseline",
    }
    assert "Table 3: accuracy by model" in evaluation.report
    assert (evaluation.folder.path / "figures" / "figure3_by_model.png").is_file()
    config = evaluation.folder.config_path.read_text()
    assert '"source": "paper"' in config and '"limit_per_config": 1' in config
    again = run_setlexsem(
        smollm2,
        grid="paper",
        limit=1,
        select=SLICE,
        decoding=DECODING,
        out=tmp_path / "runs",
        cache=tmp_cache,
        progress=False,
    )
    assert again.stats.sent == 0 and again.results["overall"] == results["overall"]
