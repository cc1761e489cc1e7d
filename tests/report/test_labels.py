"""Labels people can read (issue 25.4): a run is its model plus the settings that differ
from the benchmark's defaults; no empty sections; titles that wrap and legends beside the
bars; SCAN runs side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_report_runs import make_lambda_run

from lexbench.benchmarks.analogies.report import AnalogyReporter
from lexbench.report.build import build_report
from lexbench.report.figures import legend_beside, wrapped
from lexbench.report.leaderboard import leaderboards, to_markdown
from lexbench.report.runs import LoadedRun, label_runs, load_runs


def _lambda_run(name: str, folder: str, **benchmark: Any) -> LoadedRun:
    config = {
        "model": {"name": name},
        "chat": benchmark.pop("chat", False),
        "benchmark": {
            "prompt_style": "paper",
            "protocol": "paper",
            "dataset": {"limit_per_relation": None, "per_relation": 1000, "seed": 42},
            **benchmark,
        },
    }
    rows = [{"id": f"i{k}", "correct": k % 2 == 0, "value": float(k % 2 == 0)} for k in range(6)]
    return LoadedRun(Path(folder), config, rows, {"benchmark": "lambda"}, "", "")


def test_a_run_is_its_model_plus_what_differs_from_the_defaults() -> None:
    paper = _lambda_run("smollm2-135m", "/r/a")
    completion = _lambda_run(
        "smollm2-135m",
        "/r/b",
        prompt_style="completion",
        dataset={"limit_per_relation": 5, "per_relation": 1000, "seed": 42},
    )
    sampled = _lambda_run("smollm2-135m", "/r/c", sampling={"temperature": 0.2, "samples": 5})
    labels = [run.label for run in label_runs([paper, completion, sampled])]
    assert labels == [
        "smollm2-135m (defaults)",
        "smollm2-135m (prompt=completion, limit=5)",
        "smollm2-135m (temperature=0.2, samples=5)",
    ]
    assert not any("null" in label or "None" in label for label in labels)
    # Alone, a run at the defaults is its model's name; a changed setting is always said.
    assert [r.label for r in label_runs([paper])] == ["smollm2-135m"]
    assert [r.label for r in label_runs([completion])] == [
        "smollm2-135m (prompt=completion, limit=5)"
    ]


def test_the_leaderboard_tells_three_runs_of_one_model_apart(tmp_path: Path) -> None:
    runs = label_runs(
        [
            _lambda_run("smollm2-135m", "/r/a"),
            _lambda_run("smollm2-135m", "/r/b", prompt_style="completion"),
            _lambda_run("smollm2-135m", "/r/c", chat=True),
        ]
    )
    board = to_markdown(leaderboards(runs))
    models = [line.split("|")[1].strip() for line in board.splitlines() if "/r/" in line]
    assert sorted(models) == [
        "smollm2-135m (chat=yes)",
        "smollm2-135m (defaults)",
        "smollm2-135m (prompt=completion)",
    ]


def test_no_heading_over_nothing(tmp_path: Path) -> None:
    folders = [
        make_lambda_run(tmp_path / "runs", name, seed=k, accuracy=0.5)
        for k, name in enumerate(("model-a", "model-b"))
    ]
    files = build_report(folders, tmp_path / "out", resamples=200)
    page = files.html.read_text()
    leaderboard = page.split('id="leaderboard"')[1].split("</section>")[0]
    assert "<h3>Runs</h3>" not in leaderboard and "<h3>Summary</h3>" not in leaderboard
    assert leaderboard.count("Leaderboard") == 1  # the block's title, not repeated
    markdown = files.markdown.read_text()
    for block in markdown.split("\n### ")[1:]:
        heading, _, body = block.partition("\n")
        assert body.strip(), f"empty section {heading!r}"


def test_titles_wrap_and_legends_stand_beside_the_bars() -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    title = "E-KAR: accuracy by meta-relation, smollm2-135m (normalisation=sum, limit=1) and glove"
    lines = wrapped(title, 4.0).splitlines()
    assert len(lines) > 1 and all(len(line) <= 43 for line in lines)  # 4 in at 12 pt
    assert wrapped(title, 4.0).replace("\n", " ") == title
    fig, ax = plt.subplots(figsize=(4, 3))
    for k, name in enumerate(("glove-6b-50d (method=embedding)", "smollm2-135m (limit=1)")):
        ax.bar([k, k + 2], [1.0, 0.9], label=name)  # bars up to the top-left corner
    legend_beside(ax)
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent()
    assert box.x0 >= ax.get_window_extent().x1  # wholly right of the axes: covers no bar
    plt.close(fig)


def _scan_run(label: str, mrr: float) -> LoadedRun:
    block = {"n": 65, "estimate": mrr, "se": 0.01, "low": mrr - 0.02, "high": mrr + 0.02}
    results = {
        "benchmark": "scan",
        "shots": 0,
        "metrics": ["mrr"],
        "overall": {"n": 65, "scored": 65, "mrr": block},
        "by_type": {"metaphor": {"n": 54, "mrr": block}, "science": {"n": 11, "mrr": block}},
    }
    return LoadedRun(Path(f"/r/{label}"), {"model": {"name": label}}, [], results, "", label)


def test_several_scan_runs_are_shown_side_by_side(tmp_path: Path) -> None:
    reporter = AnalogyReporter("scan", "SCAN")
    runs = [_scan_run("smollm2-135m (limit=1)", 0.121), _scan_run("glove-6b-50d", 0.025)]
    summary = reporter.summary_markdown(runs)
    header = next(line for line in summary.splitlines() if line.startswith("| group |"))
    assert header == "| group | smollm2-135m (limit=1) | glove-6b-50d |"
    assert "| overall | 0.121 ± 0.010 | 0.025 ± 0.010 |" in summary
    figures = reporter.figures(runs, tmp_path)
    assert figures[0].path.name == "scan-side-by-side.png" and figures[0].path.stat().st_size
    single = reporter.summary_markdown(runs[:1])
    assert "side by side" not in single
    assert reporter.figures(runs[:1], tmp_path) == []


def test_labels_of_real_run_folders_have_no_nulls(tmp_path: Path) -> None:
    folder = make_lambda_run(tmp_path / "runs", "model-a", seed=1, accuracy=0.5)
    config = json.loads((folder / "config.json").read_text())
    config["benchmark"]["dataset"]["limit_per_relation"] = None
    (folder / "config.json").write_text(json.dumps(config))
    [run] = load_runs([folder])
    assert run.label == "model-a"


def test_only_file_settings_are_shortened_to_their_names() -> None:
    grid = {"source": "paper", "decoding": {"stop": ["</answer>"], "temperature": 0.0}}
    config = {
        "model": {"name": "smollm2-135m"},
        "benchmark": {"dataset": {"grid": grid, "limit_per_config": 5}},
    }
    run = LoadedRun(Path("/r/s"), config, [], {"benchmark": "setlexsem"}, "", "")
    [labelled] = label_runs([run])
    assert labelled.label == "smollm2-135m (limit=5, stop=</answer>)"
    scan = {
        "model": {"name": "glove"},
        "benchmark": {"dataset": {"source": "/data/copies/SCAN_dataset.csv"}},
    }
    [other] = label_runs([LoadedRun(Path("/r/t"), scan, [], {"benchmark": "scan"}, "", "")])
    assert other.label == "glove (data=SCAN_dataset.csv)"


def test_the_wording_graded_credit_and_another_wordnet_name_a_run() -> None:
    """Settings added beyond the paper (a prompt wording, graded credit, a WN-LMF wordnet)
    tell runs apart; the paper's wording is never named."""
    paper = _lambda_run("smollm2-135m", "/r/a")
    worded = _lambda_run("smollm2-135m", "/r/b", prompt_variant="arrow")
    graded = _lambda_run("smollm2-135m", "/r/c", graded={"kind": "glove", "definition": "..."})
    finnish = _lambda_run(
        "smollm2-135m",
        "/r/d",
        dataset={"per_relation": 1000, "seed": 42, "wordnet_lmf": {"lexicon": "mini-fi:1.0"}},
    )
    labels = [run.label for run in label_runs([paper, worded, graded, finnish])]
    assert labels == [
        "smollm2-135m (defaults)",
        "smollm2-135m (wording=arrow)",
        "smollm2-135m (graded=glove)",
        "smollm2-135m (wordnet=mini-fi:1.0)",
    ]


def _ekar_run(folder: str, **benchmark: Any) -> LoadedRun:
    config = {"model": {"name": "smollm2-135m"}, "benchmark": benchmark}
    return LoadedRun(Path(folder), config, [], {"benchmark": "ekar"}, "", "")


def test_a_setting_of_one_task_names_only_that_tasks_runs() -> None:
    """E-KAR's explanation length names an explain run that changed it, never a QA run
    whose fixed answer budget sits under the same key."""
    qa = _ekar_run("/r/a", task="qa", method="generate", decoding={"max_new_tokens": 12})
    explain = _ekar_run("/r/b", task="explain", decoding={"max_new_tokens": 64})
    shorter = _ekar_run("/r/c", task="explain", decoding={"max_new_tokens": 48})
    labels = [run.label for run in label_runs([qa, explain, shorter])]
    assert labels == [
        "smollm2-135m (method=generate)",
        "smollm2-135m (defaults)",
        "smollm2-135m (max-new-tokens=48)",
    ]
