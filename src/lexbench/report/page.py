"""The self-contained HTML page: inline CSS and JS, figures as data URIs, and the sample
browser of `lexbench.report.sample_browser` with its samples as JSON.

Nothing on the page is fetched: it opens from a file, offline, and can be mailed around.
Every string that reaches the page is escaped for where it goes: `html.escape` for markup
and attributes here, and the samples' JSON as the sample browser writes it (no sample text
can end the <script> element that holds it).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lexbench.report.runs import LoadedRun
from lexbench.report.sample_browser import SCRIPT, samples_payload, samples_section, script_json


def data_uri(path: Path) -> str:
    """A PNG file as a data: URI (the report embeds every figure this way)."""
    data = path.read_bytes()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError(f"{path} is not a PNG file")
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class FigureBlock:
    title: str
    path: Path
    caption: str = ""


@dataclass(frozen=True)
class BenchmarkBlock:
    """One benchmark's part of the page (its HTML fragments already rendered)."""

    anchor: str
    title: str
    summary_html: str
    comparison_html: str
    figures: list[FigureBlock]
    runs: list[tuple[str, str]]  # (run label, details HTML)
    notes: list[str] = field(default_factory=list)
    published_html: str = ""  # the papers' rows beside these runs (report.published_format)


def _figure_html(figure: FigureBlock, number: int) -> str:
    caption = html.escape(figure.caption)
    return (
        f'<figure class="figure" id="figure-{number}">'
        f'<img class="report-figure" src="{data_uri(figure.path)}" '
        f'alt="{html.escape(figure.title, quote=True)}">'
        f"<figcaption><strong>{html.escape(figure.title)}</strong>"
        f"{'. ' + caption if caption else ''}</figcaption></figure>"
    )


def render_page(
    title: str,
    blocks: Sequence[BenchmarkBlock],
    runs: Sequence[LoadedRun],
    sample_limit: int | None,
    version: str,
) -> str:
    """The whole page as one string."""
    payload = samples_payload(runs, sample_limit)
    nav = (
        "".join(
            f'<a href="#{html.escape(b.anchor, quote=True)}">{html.escape(b.title)}</a>'
            for b in blocks
        )
        + '<a href="#samples">Samples</a>'
    )
    run_rows = "".join(
        f"<tr><td>{html.escape(r.label)}</td><td>{html.escape(r.benchmark)}</td>"
        f"<td>{len(r.samples)}</td><td><code>{html.escape(str(r.path))}</code></td></tr>"
        for r in runs
    )
    sections = []
    numbers = iter(range(1, 1 + sum(len(b.figures) for b in blocks)))
    for block in blocks:
        parts = [
            f'<section id="{html.escape(block.anchor, quote=True)}" class="benchmark">',
            f"<h2>{html.escape(block.title)}</h2>",
        ]
        # No heading over nothing: a block without runs (the leaderboard) is its table alone.
        if block.summary_html.strip():
            parts += ["<h3>Summary</h3>"] if block.runs else []
            parts += [f'<div class="table-wrap">{block.summary_html}</div>']
        parts += [f'<p class="note">{html.escape(n)}</p>' for n in block.notes]
        if block.comparison_html:
            parts += [f'<div class="comparison">{block.comparison_html}</div>']
        if block.published_html:
            parts += [f'<div class="published table-wrap">{block.published_html}</div>']
        if block.figures:
            parts += ['<h3>Figures</h3><div class="figures">']
            parts += [_figure_html(f, next(numbers)) for f in block.figures]
            parts += ["</div>"]
        parts += ["<h3>Runs</h3>"] if block.runs else []  # the leaderboard, robustness: none
        # A lone run's tables are the benchmark's main tables: show them; several: folded.
        opened = " open" if len(block.runs) == 1 else ""
        for label, details in block.runs:
            parts += [
                f'<details class="run"{opened}><summary>{html.escape(label)}</summary>'
                f'<div class="table-wrap">{details}</div></details>'
            ]
        parts += ["</section>"]
        sections.append("\n".join(parts))
    return _TEMPLATE.format(
        title=html.escape(title),
        nav=nav,
        version=html.escape(version),
        run_rows=run_rows,
        sections="\n".join(sections),
        samples_section=samples_section(payload, sample_limit),
        css=_CSS,
        js=SCRIPT,
        samples=script_json(payload),
    )


_CSS = """
:root { --fg:#1d1d1f; --muted:#5f6368; --line:#d9d9de; --bg:#fff; --alt:#f6f7f9;
        --right:#007a4d; --wrong:#b3261e; --none:#6b6b6b; --accent:#0072B2; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0; }
header { padding: 18px 28px 10px; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 22px; }
nav { display: flex; gap: 16px; flex-wrap: wrap; margin-top: 6px; }
nav a { color: var(--accent); text-decoration: none; font-weight: 600; }
main { padding: 8px 28px 40px; max-width: 1500px; }
h2 { margin-top: 28px; border-bottom: 2px solid var(--fg); padding-bottom: 4px; }
h3 { margin: 22px 0 8px; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13.5px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; vertical-align: top; }
thead th { border-bottom: 2px solid var(--fg); text-align: left; background: var(--alt); }
tbody tr:nth-child(even) { background: #fafafb; }
.table-wrap { overflow-x: auto; }
.note { color: var(--muted); font-size: 13px; }
code { font: 12.5px/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.figures { display: flex; flex-wrap: wrap; gap: 18px; }
figure.figure { margin: 0; max-width: 640px; border: 1px solid var(--line); padding: 8px;
                background: #fff; }
figure.figure img { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 12.5px; color: var(--muted); margin-top: 4px; }
details.run { margin: 6px 0; border: 1px solid var(--line); border-radius: 4px; padding: 4px 10px; }
details.run > summary { cursor: pointer; font-weight: 600; }
#sample-controls { display: flex; gap: 10px; flex-wrap: wrap; align-items: center;
                   margin: 8px 0; position: sticky; top: 0; background: var(--bg); padding: 6px 0;
                   z-index: 2; }
#sample-controls label { font-size: 13px; color: var(--muted); }
#sample-controls select, #sample-controls input { font: inherit; padding: 3px 6px; }
#filter-search { min-width: 260px; }
#sample-table { width: 100%; table-layout: fixed; }
#sample-table td { overflow-wrap: anywhere; }
#sample-table td.text { white-space: pre-wrap; font: 12.5px/1.35 ui-monospace, Menlo, Consolas, monospace; }
#sample-table td.text div { max-height: 7.5em; overflow: auto; }
tr.sample-row { cursor: pointer; }
tr.sample-row:hover { background: #eef4fb; }
tr.detail-row pre { white-space: pre-wrap; margin: 0; font-size: 12px; max-height: 420px; overflow: auto; }
.status { font-weight: 700; font-size: 12px; text-transform: uppercase; }
.status-right { color: var(--right); } .status-wrong { color: var(--wrong); }
.status-unscored { color: var(--none); }
#pager { display: flex; gap: 8px; align-items: center; }
#pager button { font: inherit; padding: 2px 10px; }
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lexbench {version}">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
<h1>{title}</h1>
<nav>{nav}</nav>
</header>
<main>
<h2>Runs</h2>
<div class="table-wrap"><table id="run-table">
<thead><tr><th>run</th><th>benchmark</th><th>samples</th><th>folder</th></tr></thead>
<tbody>{run_rows}</tbody>
</table></div>
{sections}
{samples_section}
</main>
<script type="application/json" id="lexbench-samples">{samples}</script>
<script>{js}</script>
</body>
</html>
"""
