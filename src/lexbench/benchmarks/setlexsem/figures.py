"""SetLexSem's figures, from results.json, on the same configurations as the tables.

* Figure 3: per-configuration accuracy of the model (Table 3's configurations);
* Figure 4a / 4b: by set operation / operand size; Figure 5: by operation and token type;
  Figure 9: by phrasing (Tables 4, 5, 6, 10: main design plus the random baseline);
* Figure 6a: histograms of length-5 minus length-3 differences, one panel per decile;
* Figure 6b: the token lengths of the vocabulary in each frequency decile;
* Figure 7a / 7b: deceptive conditions, overall and by operation;
* Figure 8: "the relationship between sets A and B" by k: in the authors' analysis that is
  their `swapped` column (renamed "Relationship between sets A and B"; hypothesis
  "Deceptiveness Effect K Shots"): not swapped (semantically disjoint sets) against swapped
  (semantically intermingled), by number of demonstrations.

Every violin is a distribution of per-configuration accuracies (one point per
configuration), as in the paper. Tick labels are wrapped so long names
("Symmetric difference", "Deceptive, not swapped") do not run into each other.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.setlexsem.designs import (
    ALLOW_EMPTY,
    in_deceptive_design,
    in_main_design,
    pooled_main,
)
from lexbench.benchmarks.setlexsem.markdown import level

Config = Mapping[str, Any]
ORDER = {
    "union": 0,
    "intersection": 1,
    "difference": 2,
    "symmetric_difference": 3,
    "not_swapped": 0,
    "swapped": 1,
    "random_baseline": 2,
}
RELATIONSHIP = {
    "not_swapped": "not swapped\n(disjoint)",
    "swapped": "swapped\n(intermingled)",
}
LABEL_WIDTH = 12  # characters per tick-label line: about the width of one violin


def wrap(label: str) -> str:
    """A tick label broken into lines of at most LABEL_WIDTH characters (words kept)."""
    return "\n".join(
        textwrap.fill(line, LABEL_WIDTH, break_long_words=False) for line in label.split("\n")
    )


def _groups(
    configs: Sequence[Config],
    label: Callable[[Config], tuple[Any, ...]],
    names: Callable[[tuple[Any, ...]], str],
) -> dict[str, list[float]]:
    raw: dict[tuple[Any, ...], list[float]] = {}
    for c in configs:
        if c["n"]:
            raw.setdefault(label(c), []).append(c["accuracy"])

    def key(levels: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple((ORDER.get(v, 9), str(v)) if isinstance(v, str) else (0, v) for v in levels)

    return {wrap(names(levels)): raw[levels] for levels in sorted(raw, key=key)}


def _violin(
    folder: Path, name: str, groups: Mapping[str, Sequence[float]], title: str
) -> Path | None:
    from lexbench.report.figures import violin

    if not groups:
        return None
    # The violin figure is about one inch per group plus 1.5 (at least 4): about nine title
    # characters to the inch, so a long title (a model name) goes on a second line.
    width = max(4.0, len(groups) + 1.5)
    title = textwrap.fill(title, int(9 * width))
    return violin(folder / f"{name}.png", groups, title=title, ylabel="accuracy per configuration")


def decile_histograms(path: Path, rows: Sequence[Mapping[str, Any]], title: str) -> Path:
    """Figure 6a: one histogram of the per-pair differences (points) per decile."""
    from lexbench.report.figures import PALETTE, _pyplot, _save

    shown = [r for r in rows if r["differences"]]
    plt = _pyplot()
    columns = min(4, max(1, len(shown)))
    lines = max(1, -(-len(shown) // columns))
    fig, axes = plt.subplots(
        lines, columns, figsize=(2.4 * columns, 2.0 * lines + 0.6), squeeze=False, sharex=True
    )
    for ax in axes.flat:
        ax.set_visible(False)
    for ax, row in zip(axes.flat, shown):
        ax.set_visible(True)
        ax.hist(row["differences"], bins=20, range=(-100, 100), color=PALETTE[0])
        ax.axvline(0, color="black", linewidth=0.6)
        ax.set_title(f"decile {row['decile']} (n={row['pairs']})", fontsize=9)
        ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle(title, fontsize=10)
    fig.supxlabel("accuracy at length 5 minus length 3 (points)", fontsize=9)
    return _save(fig, path)


def vocabulary_lengths(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """Figure 6b: box plots of the token lengths of the vocabulary in each decile."""
    from lexbench.report.figures import PALETTE, _pyplot, _save

    plt = _pyplot()
    data = []
    for row in rows:
        data.append([int(n) for n, count in row["length_counts"].items() for _ in range(count)])
    fig, ax = plt.subplots(figsize=(6.0, 3.2))
    parts = ax.boxplot(data, showfliers=False, patch_artist=True)
    for box in parts["boxes"]:
        box.set_facecolor(PALETTE[5])
    ax.set_xticks(range(1, len(rows) + 1), [str(r["decile"]) for r in rows])
    ax.set_xlabel("frequency decile (1 = rarest; wordfreq, the authors' log bins)")
    ax.set_ylabel("token length")
    ax.set_title("Token length across deciles of the vocabulary")
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)


def paper_figures(results: Mapping[str, Any], folder: Path) -> list[Path]:
    configs = [c for c in results.get("configurations", []) if c["n"]]
    model = results.get("model", "")
    main = [c for c in configs if in_main_design(c)]
    pooled = pooled_main(configs)
    deceptive = [c for c in configs if in_deceptive_design(c)]
    by_model = [
        c for c in main if c["k"] == 0 and c["phrasing"] == "formal" and c["method"] in ALLOW_EMPTY
    ]

    def one(key: str) -> Callable[[Config], tuple[Any, ...]]:
        return lambda c: (c[key],)

    def names(keys: Sequence[str]) -> Callable[[tuple[Any, ...]], str]:
        return lambda levels: "\n".join(level(v, k) for v, k in zip(levels, keys))

    suffix = f" ({model})" if model else ""
    wanted = [
        (
            "figure3_by_model",
            _groups(by_model, lambda c: (model,), lambda lv: str(lv[0])),
            "Figure 3: accuracy" + suffix,
        ),
        (
            "figure4a_operation",
            _groups(pooled, one("operation"), names(["operation"])),
            "Figure 4a: by set operation" + suffix,
        ),
        (
            "figure4b_operand_size",
            _groups(pooled, one("m"), lambda lv: f"size {lv[0]}"),
            "Figure 4b: by operand size" + suffix,
        ),
        (
            "figure5_token_type",
            _groups(
                pooled,
                lambda c: (c["operation"], c["token_type"]),
                names(["operation", "token_type"]),
            ),
            "Figure 5: operation and token type" + suffix,
        ),
        (
            "figure7a_deceptive",
            _groups(deceptive, one("deceptive_condition"), names(["deceptive_condition"])),
            "Figure 7a: deceptive words" + suffix,
        ),
        (
            "figure7b_deceptive_operation",
            _groups(
                deceptive,
                lambda c: (c["operation"], c["deceptive_condition"]),
                names(["operation", "deceptive_condition"]),
            ),
            "Figure 7b: deceptive words by operation" + suffix,
        ),
        (
            "figure8_deceptive_k",
            _groups(
                [c for c in deceptive if c["deceptive_condition"] in RELATIONSHIP],
                lambda c: (c["k"], c["deceptive_condition"]),
                lambda lv: f"k={lv[0]}\n{RELATIONSHIP[lv[1]]}",
            ),
            "Figure 8: sets A and B disjoint or intermingled, by k" + suffix,
        ),
        (
            "figure9_phrasing",
            _groups(pooled, one("phrasing"), names(["phrasing"])),
            "Figure 9: demonstration phrasing" + suffix,
        ),
    ]
    folder = Path(folder)
    written = [p for name, groups, title in wanted if (p := _violin(folder, name, groups, title))]
    table7 = (results.get("paper_tables") or {}).get("table7")
    if table7 and any(r["differences"] for r in table7["rows"]):
        written.append(
            decile_histograms(
                folder / "figure6a_decile_differences.png",
                table7["rows"],
                "Figure 6a: length 5 minus length 3, by decile" + suffix,
            )
        )
    if results.get("vocabulary_deciles"):
        written.append(
            vocabulary_lengths(
                folder / "figure6b_vocabulary_lengths.png", results["vocabulary_deciles"]
            )
        )
    return written
