"""The report's sample browser: which samples travel in the page (all, or a seeded random
subset per run), which sample field fills each column, the JSON they travel as, and the
section and script that filter and page them.

The samples' JSON has `<`, `>`, `&` and the two JavaScript line separators written as \\u
escapes, so no sample text can end the <script> element that holds it; NaN and infinity
become null. The script builds its rows with `textContent` only (never innerHTML).
`lexbench.report.page` places the section, the JSON and the script on the page.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
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


def samples_payload(runs: Sequence[LoadedRun], limit: int | None) -> dict[str, Any]:
    """What travels in the page: per run its label, sample counts and column fields, and
    each chosen sample as [run index, sample] (NaN and infinity as null)."""
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


def samples_section(payload: Mapping[str, Any], sample_limit: int | None) -> str:
    """The browser's section of the page: how many samples it holds (when capped), its
    filters and pager, and the empty table the script fills."""
    shown = sum(m["shown"] for m in payload["runs"])
    total = sum(m["total"] for m in payload["runs"])
    cap_note = (
        ""
        if shown == total
        else f'<p class="note">Showing {shown} of {total} samples: a seeded random subset '
        f"of at most {sample_limit} per run (all of them are in each run's "
        f"samples.jsonl; raise the cap with --max-samples).</p>"
    )
    return _SECTION.format(cap_note=cap_note)


_SECTION = """<section id="samples">
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
</section>"""

SCRIPT = r"""
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
