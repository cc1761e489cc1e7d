"""Run folders for the report/compare tests, and tests of how they are read and labelled.

The builders here are imported by the other test_report*/test_compare* modules:
`make_lambda_run` goes through the real pipeline (`benchmarks.base.evaluate` with a
ScriptedModel on hand-made LAMBDA items, no WordNet needed), `write_graded_run` writes a
run folder by hand for a benchmark this package has no reporter for (SCAN-like: graded
`value` = reciprocal rank, a report.md table and a PNG under figures/).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from lexbench.benchmarks.lambda_.benchmark import LambdaBenchmark
from lexbench.benchmarks.lambda_.items import LambdaItem
from lexbench.report.runs import discover, label_runs, load_run, load_runs
from lexbench.run.evaluate import evaluate
from mock_model import ScriptedModel

INJECTION = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'

_WORDS = [
    "happy",
    "large",
    "ancient",
    "swift",
    "bright",
    "gentle",
    "narrow",
    "silent",
    "brave",
    "honest",
    "curious",
    "distant",
    "elegant",
    "fragile",
    "generous",
    "hollow",
    "immense",
    "jovial",
    "keen",
    "lucid",
    "massive",
    "nimble",
    "obscure",
    "placid",
    "quaint",
    "rugged",
    "serene",
    "tranquil",
    "vivid",
    "weary",
]


def lambda_items(per_relation: int = 10) -> list[LambdaItem]:
    """Hand-made items, three relations, query lengths 4 to 8 (no WordNet needed)."""
    items = []
    for r, relation in enumerate(("synonym", "antonym", "derivation")):
        for k in range(per_relation):
            query = _WORDS[(k + 7 * r) % len(_WORDS)]
            items.append(
                LambdaItem(
                    id=f"{relation}-{k:04d}",
                    relation=relation,
                    support=(("alpha", f"beta{k}"), ("gamma", f"delta{k}")),
                    query=query,
                    gold=f"gold{r}{k}",
                    candidates=(f"gold{r}{k}", f"other{r}{k}"),
                    query_pos="adj",
                    query_length=len(query),
                )
            )
    return items


def lambda_answerer(seed: int, accuracy: float) -> Callable[..., str]:
    """Right with probability `accuracy`, else a wrong answer of a rotating error class."""

    def reply(request) -> str:  # type: ignore[no-untyped-def]
        rng = random.Random(f"{seed}:{request.id}")
        relation, number = request.id.rsplit("-", 1)
        r = ("synonym", "antonym", "derivation").index(relation)
        k = int(number)
        if rng.random() < accuracy:
            return f" gold{r}{k}"
        query = next(line[:-4] for line in request.prompt.split("\n") if line.endswith(" : ?"))
        return [f" {query}", " alpha", " zebra", f" {INJECTION}"][rng.randrange(4)]

    return reply


def make_lambda_run(
    root: Path,
    name: str,
    seed: int,
    accuracy: float,
    per_relation: int = 10,
    fail_ids: Sequence[str] = (),
) -> Path:
    """A LAMBDA run folder written by the real `evaluate` (ScriptedModel answers)."""
    model = ScriptedModel(
        lambda_answerer(seed, accuracy), name=name, fail_on=lambda request: request.id in fail_ids
    )
    bench = LambdaBenchmark(
        dataset=lambda_items(per_relation),
        index=None,
        dataset_config={"relations": ["synonym", "antonym", "derivation"]},
    )
    return evaluate(bench, model, out_root=root, cache=None, progress=False).folder.path


def write_graded_run(
    root: Path,
    model: str,
    values: Sequence[float],
    *,
    benchmark: str = "ranked",
    ids: Sequence[str] | None = None,
    figure: bool = True,
    nulls: Sequence[int] = (),
) -> Path:
    """A hand-written run folder for a benchmark without a reporter: `value` is graded
    (a reciprocal rank), `correct` is value == 1; indices in `nulls` are not scorable."""
    folder = root / benchmark / model / "h4nd"
    folder.mkdir(parents=True, exist_ok=True)
    ids = list(ids) if ids is not None else [f"item-{i:03d}" for i in range(len(values))]
    types = ["science", "metaphor"]
    rows = []
    for i, (item_id, value) in enumerate(zip(ids, values)):
        scorable = i not in nulls
        rows.append(
            {
                "id": item_id,
                "correct": (value == 1.0) if scorable else None,
                "value": float(value) if scorable else 0.0,
                "error_class": ("correct" if value == 1.0 else "ranked_lower")
                if scorable
                else "request_failed",
                "type": types[i % 2],
                "prompt": f"source : target :: {item_id} :",
                "output": f"rank {round(1 / value) if value else 'none'}",
            }
        )
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "config.json").write_text(
        json.dumps({"benchmark": {"name": benchmark, "split": "all"}, "model": {"name": model}})
    )
    mrr = sum(r["value"] for r in rows if r["correct"] is not None) / max(1, len(rows))
    (folder / "results.json").write_text(json.dumps({"benchmark": benchmark, "mrr": mrr}))
    (folder / "report.md").write_text(
        f"# {benchmark.upper()} ({model})\n\n## MRR by type\n\n| type | n | MRR |\n|---|---:|---:|\n"
        f"| science | {len(rows) // 2} | {mrr:.3f} |\n| metaphor | {len(rows) - len(rows) // 2} | "
        f"{mrr:.3f} |\n\nA note with `code|bar` and <b>raw html</b>.\n"
    )
    if figure:
        from lexbench.report.figures import bar_with_intervals

        bar_with_intervals(
            folder / "figures" / "mrr_by_type.png",
            ["science", "metaphor"],
            [mrr, mrr],
            [mrr - 0.1, mrr - 0.1],
            [mrr + 0.1, mrr + 0.1],
            title=f"MRR by type ({model})",
            ylabel="MRR",
        )
    return folder


# ------------------------------------------------------------------------------ tests


def test_evaluate_folders_load_and_get_model_labels(tmp_path):
    a = make_lambda_run(tmp_path, "model-a", 1, 0.6)
    b = make_lambda_run(tmp_path, "model-b", 2, 0.3)
    runs = load_runs([a, b])
    assert [r.label for r in runs] == ["model-a", "model-b"]
    assert {r.benchmark for r in runs} == {"lambda"}
    assert len(runs[0].samples) == 30 and runs[0].report_markdown.startswith("# LAMBDA")


def test_a_directory_of_runs_is_searched_in_sorted_order(tmp_path):
    make_lambda_run(tmp_path / "runs", "zeta", 1, 0.5)
    make_lambda_run(tmp_path / "runs", "alpha", 2, 0.5)
    found = discover([tmp_path / "runs"])
    assert [p.parent.name for p in found] == ["alpha", "zeta"]


def test_same_model_runs_are_told_apart_by_the_setting_that_differs(tmp_path):
    first = write_graded_run(tmp_path / "one", "lm", [1.0, 0.5])
    second = write_graded_run(tmp_path / "two", "lm", [1.0, 0.5])
    config = json.loads((second / "config.json").read_text())
    config["benchmark"]["split"] = "metaphor"
    (second / "config.json").write_text(json.dumps(config))
    labels = [r.label for r in label_runs([load_run(first), load_run(second)])]
    assert labels == ["lm (split=all)", "lm (split=metaphor)"]
    # Identical settings: the folder name breaks the tie.
    third = write_graded_run(tmp_path / "three", "lm", [1.0])
    labels = [r.label for r in label_runs([load_run(first), load_run(third)])]
    assert len(set(labels)) == 2 and all(label.startswith("lm") for label in labels)


def test_bad_folders_and_samples_get_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        discover([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="holds none"):
        discover([tmp_path / "empty"])
    folder = write_graded_run(tmp_path, "lm", [1.0, 0.5])
    lines = (folder / "samples.jsonl").read_text().splitlines()
    row = json.loads(lines[1])
    del row["value"]
    (folder / "samples.jsonl").write_text(lines[0] + "\n" + json.dumps(row) + "\n")
    with pytest.raises(ValueError, match="line 2: missing value"):
        load_run(folder)
    (folder / "samples.jsonl").write_text(lines[0] + "\n" + lines[0] + "\n")
    with pytest.raises(ValueError, match="ids repeat"):
        load_run(folder)
    (folder / "samples.jsonl").write_text(
        lines[0].replace('"correct": true', '"correct": "yes"') + "\n"
    )
    with pytest.raises(ValueError, match="'correct' must be"):
        load_run(folder)
    (folder / "samples.jsonl").write_text(lines[0] + "\n")
    (folder / "results.json").write_text("{}")
    with pytest.raises(ValueError, match="no 'benchmark' field"):
        load_run(folder)


def test_labels_are_unique_per_benchmark_not_across_benchmarks(tmp_path):
    lam = make_lambda_run(tmp_path, "lm", 1, 0.5)
    scan = write_graded_run(tmp_path / "s", "lm", [1.0, 0.5])
    assert [r.label for r in load_runs([lam, scan])] == ["lm", "lm"]
