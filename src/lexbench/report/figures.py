"""Figures for papers: a few plain matplotlib helpers every benchmark shares.

Each function writes one PNG (and returns its path), uses the headless Agg backend, and
never touches global pyplot state beyond its own figure. Styling is deliberately plain:
readable at column width, colour-blind-safe palette, intervals drawn as whiskers. Titles
wrap to the figure's width and legends sit beside the axes, never over the bars; the saved
image is cropped to what was drawn (`bbox_inches="tight"`), so neither is cut off.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: Past eight series the colours come round again, each time with another fill pattern, so
#: no two series of one figure look alike (up to 8 x 6 = 48; then they do repeat).
HATCHES = ("", "//", "..", "xx", "\\\\", "oo")


def series_style(index: int) -> tuple[str, str]:
    """(colour, hatch) of the `index`-th series of a figure.

    >>> series_style(0), series_style(8)
    (('#0072B2', ''), ('#0072B2', '//'))
    """
    return PALETTE[index % len(PALETTE)], HATCHES[index // len(PALETTE) % len(HATCHES)]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _finite_limits(limits: tuple[float, float] | None) -> tuple[float, float] | None:
    """`limits`, or None (matplotlib's own) when either end is NaN or infinite: limits
    computed from a NaN score must not fail the figure."""
    import math

    if limits is None or not all(math.isfinite(float(v)) for v in limits):
        return None
    return limits


def _save(fig: Any, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=150, bbox_inches="tight")
    _pyplot().close(fig)
    return path


def wrapped(text: str, width_inches: float, font_size: float = 12.0) -> str:
    """`text` broken into lines that fit `width_inches` at `font_size` points (a character
    is about half the font size wide).

    >>> wrapped("SCAN MRR@10 by type: smollm2-135m (shots=1, limit=5) and glove", 3.0)
    'SCAN MRR@10 by type:\\nsmollm2-135m (shots=1, limit=5)\\nand glove'
    """
    columns = max(12, int(width_inches * 72 / (0.55 * font_size)))
    return textwrap.fill(text, columns, break_long_words=False, break_on_hyphens=False)


def set_title(ax: Any, text: str) -> None:
    """A title wrapped to the axes' figure width."""
    ax.set_title(wrapped(text, ax.figure.get_figwidth()))


def legend_beside(ax: Any) -> None:
    """The legend right of the axes, outside them: it never covers a bar or a whisker."""
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def bar_with_intervals(
    path: str | Path,
    labels: Sequence[str],
    estimates: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    *,
    title: str,
    ylabel: str,
    series: Mapping[str, Sequence[float]] | None = None,
    ylim: tuple[float, float] | str | None = "auto",
) -> Path:
    """Bars with interval whiskers, one per label (e.g. accuracy per relation).

    For several models or conditions, pass `series` as {name: estimates} together with
    `lows`/`highs` flattened in the same order (series by series); `estimates` is then ignored.
    `ylim="auto"` starts at 0 and ends at 1 when an interval reaches past 0.6, else just
    above the highest whisker, so a model scoring 4% is not drawn as a flat line.
    """
    if not (len(labels) and len(lows) == len(highs)):
        raise ValueError("bar_with_intervals needs labels and matching lows/highs")
    plt = _pyplot()
    import numpy as np

    groups = dict(series) if series else {"": list(estimates)}
    width = 0.8 / len(groups)
    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(labels) * max(1, len(groups)) ** 0.5), 3.2))
    for g, (name, values) in enumerate(groups.items()):
        if len(values) != len(labels):
            raise ValueError(f"series {name!r} has {len(values)} values for {len(labels)} labels")
        lo = np.asarray(lows[g * len(labels) : (g + 1) * len(labels)], dtype=float)
        hi = np.asarray(highs[g * len(labels) : (g + 1) * len(labels)], dtype=float)
        est = np.asarray(values, dtype=float)
        yerr = np.vstack([np.clip(est - lo, 0, None), np.clip(hi - est, 0, None)])
        ax.bar(
            x + (g - (len(groups) - 1) / 2) * width,
            est,
            width,
            yerr=yerr,
            capsize=3,
            color=series_style(g)[0],
            hatch=series_style(g)[1] or None,
            label=name or None,
            edgecolor="black",
            linewidth=0.4,
        )
    ax.set_xticks(
        x,
        labels,
        rotation=30 if max(len(s) for s in labels) > 8 else 0,
        ha="right" if max(len(s) for s in labels) > 8 else "center",
    )
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    fixed = None if isinstance(ylim, str) else ylim
    limits = _auto_ylim(highs) if ylim == "auto" else _finite_limits(fixed)
    if limits is not None:
        ax.set_ylim(*limits)
    if series:
        legend_beside(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)


def _auto_ylim(highs: Sequence[float]) -> tuple[float, float]:
    import math

    finite = [h for h in highs if h == h and math.isfinite(h)]
    top = max(finite, default=1.0)
    if top > 0.6:
        return (0.0, 1.0)
    return (0.0, min(1.0, max(0.05, math.ceil(top * 1.2 * 20) / 20)))


def scatter_with_trend(
    path: str | Path,
    x: Sequence[float],
    y: Sequence[float],
    *,
    sizes: Sequence[float] | None = None,
    title: str,
    xlabel: str,
    ylabel: str,
    annotation: str = "",
    ylim: tuple[float, float] | None = None,
) -> Path:
    """Points (sized by `sizes`, e.g. items per bin) with a least-squares trend line.

    `ylim` fixes the y axis (e.g. headroom above the points for a multi-line annotation).
    A point with a NaN or infinite coordinate (a bin with no scored item) is not drawn.
    """
    if len(x) != len(y):
        raise ValueError(f"scatter_with_trend: {len(x)} x values but {len(y)} y values")
    plt = _pyplot()
    import numpy as np

    fig, ax = plt.subplots(figsize=(4.8, 3.2))
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    drawn = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[drawn], ys[drawn]
    scaled = None
    if sizes is not None:
        s = np.asarray(sizes, dtype=float)[drawn]
        scaled = 15 + 120 * s / max(1.0, float(s.max(initial=0.0)))
    ax.scatter(xs, ys, s=scaled, color=PALETTE[0], alpha=0.8, edgecolor="black", linewidth=0.4)
    if xs.size >= 2 and np.ptp(xs) > 0:
        slope, intercept = np.polyfit(xs, ys, 1)
        grid = np.linspace(xs.min(), xs.max(), 50)
        ax.plot(grid, slope * grid + intercept, color=PALETTE[3], linewidth=1.2)
    if annotation:
        ax.text(0.02, 0.96, annotation, transform=ax.transAxes, va="top", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    limits = _finite_limits(ylim)
    if limits is not None:
        ax.set_ylim(*limits)
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)


def violin(
    path: str | Path,
    groups: Mapping[str, Sequence[float]],
    *,
    title: str,
    ylabel: str,
    ylim: tuple[float, float] | None = (0.0, 1.0),
) -> Path:
    """One violin per group (e.g. per-configuration accuracies by operation), with points;
    NaN and infinite values are not drawn."""
    import math

    finite = {k: [x for x in v if math.isfinite(x)] for k, v in groups.items()}
    named = {k: v for k, v in finite.items() if len(v)}
    if not named:
        raise ValueError("violin needs at least one non-empty group")
    plt = _pyplot()
    import numpy as np

    fig, ax = plt.subplots(figsize=(max(4.0, 1.0 * len(named) + 1.5), 3.2))
    positions = np.arange(1, len(named) + 1)
    # A violin needs spread; a single value (or identical values) is drawn as points only.
    spread = [p for p, v in zip(positions, named.values()) if len(set(v)) > 1]
    if spread:
        parts = ax.violinplot(
            [named[k] for p, k in zip(positions, named) if p in spread],
            positions=spread,
            showmeans=True,
            showextrema=True,
        )
        for body in parts["bodies"]:
            body.set_facecolor(PALETTE[0])
            body.set_alpha(0.35)
    rng = np.random.default_rng(0)  # jitter only; fixed so the picture is reproducible
    for p, values in zip(positions, named.values()):
        ax.scatter(
            p + rng.uniform(-0.08, 0.08, len(values)),
            values,
            s=10,
            color=PALETTE[1],
            edgecolor="black",
            linewidth=0.3,
            zorder=3,
        )
    # Many single-line labels are slanted to fit; labels the caller wrapped stay upright.
    slant = len(named) > 4 and not any("\n" in k for k in named)
    ax.set_xticks(
        positions, list(named), rotation=30 if slant else 0, ha="right" if slant else "center"
    )
    ax.set_ylabel(ylabel)
    set_title(ax, title)
    limits = _finite_limits(ylim)
    if limits is not None:
        ax.set_ylim(*limits)
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)
