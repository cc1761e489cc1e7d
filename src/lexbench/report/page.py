"""The self-contained HTML page: inline CSS and JS, figures as data URIs, samples as JSON.

Nothing on the page is fetched: it opens from a file, offline, and can be mailed around.
Every string that reaches the page is escaped for where it goes: `html.escape` for markup
and attributes, and the samples' JSON has `<`, `>`, `&` and the two JavaScript line
separators written as \\u escapes, so no sample text can end the <script> element that
holds it. The sample browser builds its rows with `textContent` only (never innerHTML).
"""

from __future__ import annotations

import base64
import html
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.report.runs import LoadedRun

# Sample fields the browser shows as columns, by the first name a run's samples use.
COLUMN_FIELDS: dict[str, tuple[str, ...]] = {
    "group": ("relation", "type", "meta_relation", "operation", "category", "group", "language"),
    "prompt": ("prompt", "question", "messages", "input"),
    "output": ("output", "response", "completion", "raw_output"),
    # A parsed-answer field wins over `answer`; then `answer` may be the gold (SetLexSem).
    "answer": ("parsed_answer", "prediction", "parsed", "answer"),
    "gold": ("gold", "target", "expected", "reference", "answer"),
}


def data_uri(path: Path) -> str:
    """A PNG file as a data: URI (the report embeds every figure this way)."""
    data = path.read_bytes()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError(f"{path} is not a PNG file")
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def script_json(value: Any) -> str:
    """JSON safe to place inside <script type="application/json">."""
    text = json.dumps(
        value, ensure_ascii=False, sort_keys=True, allow_nan=False, default=_json_default
    )
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _json_default(value: Any) -> Any:
    return str(value)


def _clean(value: Any) -> Any:
    """NaN/inf become null: JSON has no NaN, and JSON.parse would reject it."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def choose_samples(
    samples: Sequence[Mapping[str, Any]], limit: int | None, seed: int = 0
) -> list[Mapping[str, Any]]:
    """All samples, or a seeded random subset of `limit` kept in the run's order."""
    if limit is None or len(samples) <= limit:
        return list(samples)
    rng = random.Random(f"lexbench-report:{seed}")
    keep = set(rng.sample(range(len(samples)), limit))
    return [row for i, row in enumerate(samples) if i in keep]


def column_fields(samples: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Which sample field fills each browser column (a field fills one column at most)."""
    present = {k for row in samples for k in row}
    chosen: dict[str, str] = {}
    for column, names in COLUMN_FIELDS.items():
        chosen[column] = next((n for n in names if n in present and n not in chosen.values()), "")
    return chosen


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


def samples_payload(runs: Sequence[LoadedRun], limit: int | None) -> dict[str, Any]:
    meta: list[dict[str, Any]] = []
    rows: list[list[Any]] = []
    for index, run in enumerate(runs):
        chosen = choose_samples(run.samples, limit)
        meta.append(
            {
                "label": run.label,
                "benchmark": run.benchmark,
                "total": len(run.samples),
                "shown": len(chosen),
                "fields": column_fields(run.samples),
            }
        )
        rows.extend([index, _clean(dict(row))] for row in chosen)
    return {"runs": meta, "samples": rows}


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
    shown = sum(m["shown"] for m in payload["runs"])
    total = sum(m["total"] for m in payload["runs"])
    cap_note = (
        ""
        if shown == total
        else f'<p class="note">Showing {shown} of {total} samples: a seeded random subset '
        f"of at most {sample_limit} per run (all of them are in each run's "
        f"samples.jsonl; raise the cap with --max-samples).</p>"
    )
    return _TEMPLATE.format(
        title=html.escape(title),
        nav=nav,
        version=html.escape(version),
        run_rows=run_rows,
        sections="\n".join(sections),
        cap_note=cap_note,
        css=_CSS,
        js=_JS,
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

_JS = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("lexbench-samples").textContent);
  var runs = data.runs;
  function statusOf(s) { return s.correct === true ? "right" : (s.correct === false ? "wrong" : "unscored"); }
  function strings(value, out) {
    if (value === null || value === undefined) return out;
    if (typeof value === "string") { out.push(value); }
    else if (Array.isArray(value)) { value.forEach(function (v) { strings(v, out); }); }
    else if (typeof value === "object") { Object.keys(value).forEach(function (k) { strings(value[k], out); }); }
    else { out.push(String(value)); }
    return out;
  }
  function show(value) {
    if (value === null || value === undefined) return "";
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  var rows = data.samples.map(function (pair) {
    var run = runs[pair[0]], s = pair[1], f = run.fields;
    var searchable = [s.id].concat(strings(s[f.prompt], []), strings(s[f.output], []),
                                   strings(s[f.answer], []), strings(s[f.gold], []));
    return { run: pair[0], sample: s, status: statusOf(s),
             errorClass: s.error_class === null || s.error_class === undefined ? "" : String(s.error_class),
             text: searchable.join("\n").toLowerCase() };
  });

  var el = function (id) { return document.getElementById(id); };
  var runSelect = el("filter-run"), statusSelect = el("filter-status"), errorSelect = el("filter-error");
  var search = el("filter-search"), sizeSelect = el("page-size"), body = el("sample-rows");
  var count = el("sample-count"), pageInfo = el("page-info"), prev = el("page-prev"), next = el("page-next");
  function option(select, value, text) {
    var o = document.createElement("option"); o.value = value; o.textContent = text; select.appendChild(o);
  }
  runs.forEach(function (r, i) { option(runSelect, String(i), r.label + " (" + r.benchmark + ")"); });
  var classes = Array.from(new Set(rows.map(function (r) { return r.errorClass; }))).filter(Boolean).sort();
  classes.forEach(function (c) { option(errorSelect, c, c); });

  var page = 0, matches = rows;
  function filter() {
    var run = runSelect.value, status = statusSelect.value, error = errorSelect.value;
    var needle = search.value.trim().toLowerCase();
    matches = rows.filter(function (r) {
      return (run === "" || String(r.run) === run) && (status === "" || r.status === status)
        && (error === "" || r.errorClass === error) && (needle === "" || r.text.indexOf(needle) !== -1);
    });
    page = 0;
    render();
  }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; var div = document.createElement("div"); div.textContent = text; td.appendChild(div); }
    else { td.textContent = text; }
    tr.appendChild(td); return td;
  }
  function render() {
    var size = parseInt(sizeSelect.value, 10);
    var pages = Math.max(1, Math.ceil(matches.length / size));
    if (page >= pages) page = pages - 1;
    var shown = matches.slice(page * size, (page + 1) * size);
    var fragment = document.createDocumentFragment();
    shown.forEach(function (r) {
      var s = r.sample, f = runs[r.run].fields, tr = document.createElement("tr");
      tr.className = "sample-row"; tr.setAttribute("data-status", r.status);
      cell(tr, runs[r.run].label);
      cell(tr, show(s.id));
      var st = cell(tr, r.status); st.className = "status status-" + r.status;
      cell(tr, r.errorClass);
      cell(tr, f.group ? show(s[f.group]) : "");
      cell(tr, show(s[f.prompt]), "text");
      cell(tr, show(s[f.output]), "text");
      cell(tr, show(s[f.answer]));
      cell(tr, show(s[f.gold]));
      tr.addEventListener("click", function () {
        var open = tr.nextSibling;
        if (open && open.className === "detail-row") { open.remove(); return; }
        var detail = document.createElement("tr"); detail.className = "detail-row";
        var td = document.createElement("td"); td.colSpan = 9;
        var pre = document.createElement("pre"); pre.textContent = JSON.stringify(s, null, 2);
        td.appendChild(pre); detail.appendChild(td); tr.after(detail);
      });
      fragment.appendChild(tr);
    });
    body.replaceChildren(fragment);
    count.textContent = matches.length + " of " + rows.length + " samples match";
    count.setAttribute("data-count", String(matches.length));
    pageInfo.textContent = "page " + (page + 1) + " of " + pages;
    prev.disabled = page === 0; next.disabled = page >= pages - 1;
  }
  [runSelect, statusSelect, errorSelect].forEach(function (s) { s.addEventListener("change", filter); });
  search.addEventListener("input", filter);
  sizeSelect.addEventListener("change", function () { page = 0; render(); });
  prev.addEventListener("click", function () { if (page > 0) { page -= 1; render(); } });
  next.addEventListener("click", function () { page += 1; render(); });
  filter();
})();
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
<section id="samples">
<h2>Samples</h2>
{cap_note}
<div id="sample-controls">
<label>run <select id="filter-run"><option value="">all runs</option></select></label>
<label>answer <select id="filter-status"><option value="">all</option><option value="right">right</option><option value="wrong">wrong</option><option value="unscored">not scored</option></select></label>
<label>error class <select id="filter-error"><option value="">all</option></select></label>
<label>search <input id="filter-search" type="search" placeholder="prompt, output, answer, id"></label>
<label>per page <select id="page-size"><option>25</option><option selected>50</option><option>100</option><option>250</option></select></label>
<span id="sample-count" class="note"></span>
<span id="pager"><button id="page-prev" type="button">&larr; prev</button><span id="page-info" class="note"></span><button id="page-next" type="button">next &rarr;</button></span>
</div>
<div class="table-wrap"><table id="sample-table">
<colgroup><col style="width:10%"><col style="width:9%"><col style="width:6%"><col style="width:9%"><col style="width:7%"><col style="width:28%"><col style="width:14%"><col style="width:8%"><col style="width:9%"></colgroup>
<thead><tr><th>run</th><th>id</th><th>status</th><th>error class</th><th>group</th><th>prompt</th><th>output</th><th>answer</th><th>gold</th></tr></thead>
<tbody id="sample-rows"></tbody>
</table></div>
<noscript><p>The sample browser needs JavaScript; the samples are in each run's samples.jsonl.</p></noscript>
</section>
</main>
<script type="application/json" id="lexbench-samples">{samples}</script>
<script>{js}</script>
</body>
</html>
"""
