"""The Results page's figure (docs/img/results-leaderboard.png), from the record alone: one
panel per benchmark and condition, each model's headline with its 95% interval (accuracy
in percent, MRR@10 as a fraction), a score near 0 labelled with its format-failure share.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from results_render import CONDITIONS, title


def _label(cell: dict[str, Any]) -> str:
    accuracy = cell["metric"] == "accuracy"
    shown = f"{100 * cell['estimate']:.1f}%" if accuracy else f"{cell['estimate']:.3f}"
    answers = cell["answers"]
    if cell["near_zero"] and answers["format_failures"] and answers["scored"]:
        share = 100 * answers["format_failures"] / answers["scored"]
        shown += f"  ({share:.1f}% format failures)"
    return shown


def draw_figure(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = record["results"]
    models = results["models"]
    colour = {model: f"C{i}" for i, model in enumerate(models)}
    panels = [
        (benchmark, name, condition)
        for benchmark, conditions in results["benchmarks"].items()
        for name, condition in conditions.items()
    ]
    height = 0.9 + sum(0.5 + 0.28 * len(c["cells"]) for _, _, c in panels)
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(7, height),
        squeeze=False,
        gridspec_kw={"height_ratios": [len(c["cells"]) for _, _, c in panels]},
    )
    for axis, (benchmark, name, condition) in zip(axes[:, 0], panels):
        cells = [condition["cells"][m] for m in models if m in condition["cells"]]
        accuracy = cells[0]["metric"] == "accuracy"
        scale = 100 if accuracy else 1
        for y, cell in enumerate(cells):
            if cell["estimate"] is None:
                continue
            estimate = scale * cell["estimate"]
            low = max(estimate - scale * (cell["low"] or 0.0), 0.0)
            high = max(scale * (cell["high"] or cell["estimate"]) - estimate, 0.0)
            axis.errorbar(
                estimate, y, xerr=[[low], [high]], fmt="o", capsize=3, color=colour[cell["model"]]
            )
            axis.annotate(
                _label(cell),
                (estimate + high, y),
                xytext=(5, -3),
                textcoords="offset points",
                fontsize=7,
            )
        axis.set_yticks(range(len(cells)), [cell["model"] for cell in cells])
        axis.set_xlim(-0.02 * scale, 1.02 * scale)
        axis.set_ylim(len(cells) - 0.4, -0.6)  # the first model on top
        condition_name = f", {name} prompt" if name in CONDITIONS else ""
        metric = "accuracy %" if accuracy else cells[0]["metric"]
        axis.set_title(
            f"{title(benchmark)}{condition_name}: {metric}, n={cells[0]['n']:,}",
            fontsize=9,
            loc="left",
        )
        axis.tick_params(labelsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
