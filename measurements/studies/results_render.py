"""The Results page (docs/results.md) from its record alone (measurements/records/results_page.json).

Pure layout: no lexbench import, no run folder read, so `render_page(record)` is the page
the record says, byte for byte (tests/docs/test_docs_figures.py checks docs/results.md
against it) and the same on every machine. Numbers as every lexbench report writes them:
accuracy in percent with one decimal, MRR@10 as a fraction with three, "n/a" for none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

TITLES = {
    "lambda": "LAMBDA",
    "scan": "SCAN",
    "google": "Google analogies",
    "bats": "BATS",
    "setlexsem": "SetLexSem",
    "ekar": "E-KAR",
    "hypernyms": "Hypernyms",
}
#: What each benchmark asks, in a sentence (docs/benchmarks/*.md say more).
ABOUT = {
    "lambda": "Two-shot lexical analogies from WordNet (synonym, antonym, derivation): "
    "`A : B`, `C : D`, `E : ?`; right when the first word of the answer is an accepted "
    "answer. The paper's prompt ends in an answer-only instruction and allows 2 new "
    "tokens; the completion prompt puts the instruction first and ends at `E :`. A small "
    "model that opens its reply with prose (`The word ...`) spends both tokens before it "
    "names a word: a format failure, which is why its paper-prompt score can be 0.0 while "
    "the completion prompt, which leaves the model nothing to do but continue the line, "
    "gets words (the tables below say which).",
    "scan": "Scientific and creative analogies in the template 'If A is like B, then C is "
    "like D'; the score is the reciprocal rank of the answer's first token among the 10 "
    "top-ranked tokens (MRR@10), zero-shot.",
    "google": "The Google analogy set in SCAN's template and scoring (MRR@10); "
    "`lexbench run google` ranks open-vocabulary answers.",
    "setlexsem": "Set operations on words and numbers, asked with the paper's prompt and "
    "read by the authors' parser; this slice: the main study, no demonstrations, formal "
    "phrasing, operand size 2, the method that allows an empty set, answers stopped at "
    "`</answer>` within 64 new tokens (`run all --limit`'s quick budget).",
    "hypernyms": "The example plugin's benchmark (examples/lexbench-hypernyms): two-shot "
    "hypernym analogies from WordNet ('growth is a kind of evolution').",
}
CONDITIONS = {
    "paper": "the paper's prompt (`--prompt-style paper`)",
    "completion": "the completion prompt (`--prompt-style completion`, as `make demo` runs it)",
}
MODELS = {
    "smollm2-135m": "SmolLM2-135M-Instruct (Q4_1, the packaged default)",
    "gemma3-270m": "Gemma 3 270M base (Q4_K_M, no chat template)",
    "glove": "GloVe 6B 50d word vectors (answers analogy queries, generates no text)",
}
#: The error classes the benchmarks' taxonomies name, in words (docs/benchmarks/*.md).
CLASSES = {
    "format_failure": "prose, scaffolding or tags instead of an answer of the expected form",
    "no_answer": "no word at all",
    "identity_echo": "the query repeated",
    "surface_misfire": "a form change of the query (cat → cats)",
    "semantic_drift": "a word related in meaning, but not accepted",
    "support_copy": "a word of the support pairs",
    "other": "any other word",
    "in_top_k": "the answer ranked 2nd to 10th",
    "question_word": "a word of the question ranked first, the answer not in the top 10",
    "not_in_top_k": "the answer not in the top 10",
    "answer_out_of_vocabulary": "the answer not in the model's vocabulary",
    "hallucinated": "a member in neither set",
    "missing_members": "some members missing",
    "extra_members": "members added",
    "wrong_members": "another set",
    "empty_but_nonempty": "the empty set where the answer is not empty",
    "nonempty_but_empty": "members where the answer is the empty set",
    "wrong": "another word",
    "echo": "the query repeated",
}
#: SetLexSem's parser's reasons (the authors' `parse_lm_response`).
REASONS = {
    "paper_no_answer": "no `<answer>` tag",
    "paper_multiple_answers": "more than one `<answer>` tag",
    "paper_mixed_types": "numbers and words mixed",
}
NONE = "—"


def _number(value: float | None, metric: str) -> str:
    """An accuracy in percent (one decimal), anything else as a fraction (three)."""
    if value is None:
        return "n/a"
    return f"{100 * value:.1f}" if metric == "accuracy" else f"{value:.3f}"


def _interval(low: float | None, high: float | None, metric: str) -> str:
    if low is None or high is None:
        return NONE
    return f"[{_number(max(low, 0.0), metric)}, {_number(high, metric)}]"


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def _share(count: int, total: int) -> str:
    return f"{count:,} ({100 * count / total:.1f}%)" if total else "n/a"


def _duration(seconds: float) -> str:
    """As the docs write a duration: "1 min 34 s", "28 s" (the figures test's)."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def code(text: str) -> str:
    """`text` as inline code, fenced by more backticks than it holds."""
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def quoted(text: str) -> str:
    """A model's output as a JSON string in code: newlines and quotes show."""
    return code(json.dumps(text, ensure_ascii=False))


def table(
    header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int]
) -> list[str]:
    """A Markdown table; the columns numbered in `numeric` (from 0) are right-aligned."""
    out = ["| " + " | ".join(header) + " |"]
    out.append("|" + "|".join("---:" if i in numeric else "---" for i in range(len(header))) + "|")
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return out


def title(benchmark: str) -> str:
    return TITLES.get(benchmark, benchmark)


def metric_name(metric: str) -> str:
    return "accuracy %" if metric == "accuracy" else metric


# ------------------------------------------------------------------------------ the page


def render_page(record: dict[str, Any]) -> str:
    """docs/results.md, from the record."""
    from results_render_published import published_lines

    results = record["results"]
    lines = _head(record) + _glance(results)
    for benchmark, conditions in results["benchmarks"].items():
        lines += [f"## {title(benchmark)}", ""]
        lines += [ABOUT[benchmark], ""] if benchmark in ABOUT else []
        for name, condition in conditions.items():
            if name in CONDITIONS:
                lines += [f"### With {CONDITIONS[name]}", ""]
            cells = [condition["cells"][m] for m in results["models"] if m in condition["cells"]]
            lines += _cells(cells) + _answers(cells) + _paired(condition["comparisons"], cells)
            lines += published_lines(condition.get("published") or {}, cells)
    lines += _not_run(results)
    return "\n".join(lines).rstrip() + "\n"


def _head(record: dict[str, Any]) -> list[str]:
    results = record["results"]
    run = results["run"]
    took = "; ".join(
        f"{_duration(step['wall_s'])} for `{_short(step['command'])}`" for step in run["steps"]
    )
    models = "; ".join(f"`{m}`, {MODELS.get(m, m)}" for m in results["models"])
    return [
        "# Results",
        "",
        "The two packaged language models and GloVe on every benchmark with data on this "
        "machine, each under its paper's protocol: every cell with its 95% interval, the "
        "paired tests between the models, what the models answered where they score near "
        "0, and the papers' published rows beside them where the protocol matches.",
        "",
        "## How this page was made",
        "",
        f"* **The script**: `{record['command']}` ran the commands below through lexbench's "
        "planner, wrote every number on this page to its record "
        "`measurements/records/results_page.json`, and this page and its figure from the "
        "record (`--page-only` writes them again from the record alone).",
        f"* **The slice**: {_slice(run['slice'])}.",
        f"* **When and where**: {run['started']}, on {run['cpu']}, {run['cores']} cores "
        f"shared with other work (load average {run['load_before']} before, "
        f"{run['load_after']} after); the response cache was {run['cache']}; lexbench at commit "
        f"{run['commit_run']}.",
        f"* **How long**: {_duration(run['wall_s'])} of wall time in all: {took}.",
        f"* **The models**: {models}.",
        "",
        "```bash",
        *(step["command"] for step in run["steps"]),
        "```",
        "",
    ]


def _slice(size: dict[str, int]) -> str:
    """The slice in words: the first N items of each stratum, per benchmark."""
    lam = size["lambda"]
    lambda_ = (
        f"LAMBDA's first {lam} items of each relation ({3 * lam:,} in all, `--limit {lam}`)"
        if lam
        else "LAMBDA whole (3,000 items, 1,000 per relation)"
    )
    return (
        f"{lambda_}, under both prompt styles; the first {size['suite']} items of each "
        "stratum of SCAN (its concept mappings), Google (its relations) and the example "
        f"plugin (`--limit {size['suite']}`); SetLexSem's first {size['setlexsem']} prompts "
        f"of each of its configurations (`--limit {size['setlexsem']}`)"
    )


def _short(command: str) -> str:
    """A command without the options every command shares (where the answers go)."""
    return command.split(" --out ")[0]


def _glance(results: dict[str, Any]) -> list[str]:
    models = results["models"]
    rows = []
    for benchmark, conditions in results["benchmarks"].items():
        for name, condition in conditions.items():
            cells = condition["cells"]
            first = next(iter(cells.values()))
            label = title(benchmark) + (f", {name} prompt" if name in CONDITIONS else "")
            sizes = sorted({c["n"] for c in cells.values()})
            row = [label, metric_name(first["metric"]), "–".join(f"{n:,}" for n in sizes)]
            for model in models:
                c = cells.get(model)
                shown = _number(c["estimate"], c["metric"]) if c else NONE
                row.append(f"{shown} {_interval(c['low'], c['high'], c['metric'])}" if c else NONE)
            rows.append(row)
    return [
        "## At a glance",
        "",
        "Each benchmark's headline with its 95% interval (accuracy in percent, Wilson "
        "interval; MRR@10 as a fraction, interval clustered by concept mapping); a dash "
        "where the model cannot answer the benchmark. The sections below give the paired "
        "tests, what the models answered behind each score near 0, and the papers' rows.",
        "",
        *table(["benchmark", "metric", "items", *(f"`{m}`" for m in models)], rows, range(2, 9)),
        "",
        "![Each benchmark's headline per model, with its 95% interval]"
        "(img/results-leaderboard.png)",
        "",
    ]


def _cells(cells: Sequence[dict[str, Any]]) -> list[str]:
    """The benchmark's table: each model's headline, interval, and its wrong answers."""
    metric = cells[0]["metric"]
    ranking = any(c["ranking"] for c in cells)
    header = ["model", "items", metric_name(metric), "95% interval"]
    header += ["acc@1" if ranking else "format failures", "commonest wrong answer", "run folder"]
    rows = []
    for c in cells:
        a = c["answers"]
        commonest = next(iter(a["classes"].items()), None)
        row = [f"`{c['model']}`", f"{c['n']:,}", _number(c["estimate"], metric)]
        row.append(_interval(c["low"], c["high"], metric))
        row.append(
            _number(c["acc_at_1"], "MRR") if ranking else _share(a["format_failures"], a["scored"])
        )
        row.append(f"{commonest[0]}, {_share(commonest[1], a['scored'])}" if commonest else NONE)
        row.append(f"`{c['run']}`")
        rows.append(row)
    lines = [*table(header, rows, (1, 2, 3, 4)), ""]
    seen = dict.fromkeys(k for c in cells for k in c["answers"]["classes"])
    if seen:
        named = "; ".join(f"{k}: {CLASSES.get(k, k)}" for k in seen)
        lines += [f"The benchmark's classes of wrong answers here: {named}.", ""]
    if any(c["failed_requests"] for c in cells):
        failed = ", ".join(f"`{c['model']}` {c['failed_requests']:,}" for c in cells)
        lines += [f"**Failed requests** (not scored): {failed}.", ""]
    return lines


def _answers(cells: Sequence[dict[str, Any]]) -> list[str]:
    """For each score near 0: what the model answered instead, with one real example."""
    near = [c for c in cells if c["near_zero"] and c["answers"]["example"]]
    if not near:
        return []
    lines = ["**What the models answered where they score near 0** (below 5%, or 0.05):", ""]
    for c in near:
        a = c["answers"]
        ex = a["example"]
        commonest = f"{ex['class']}, {_share(a['classes'][ex['class']], a['scored'])}"
        if c["ranking"]:
            what = f"a ranking has no format to fail; its commonest wrong answer: {commonest}"
            said = f"its top-ranked tokens were {code(ex['answered'])}"
        else:
            what = f"format failures: {_share(a['format_failures'], a['scored'])}"
            reasons = [f"{REASONS.get(k, k)}: {v:,}" for k, v in a["format_reasons"].items()]
            what += f" ({', '.join(reasons)})" if reasons else ""
            what += f"; commonest wrong answer: {commonest}"
            said = f"it answered {quoted(ex['answered'])}"
        lines.append(
            f"* `{c['model']}`: {what}. For example (item `{ex['id']}`), asked "
            f"{code(ex['asked'])}, {said}; accepted: {code(ex['expected'])}."
        )
    return [*lines, ""]


def _points(value: float | None, metric: str, sign: str = "") -> str:
    """A difference: of accuracies in percentage points (one decimal), else three decimals."""
    if value is None:
        return NONE
    return f"{100 * value:{sign}.1f}" if metric == "accuracy" else f"{value:{sign}.3f}"


def _paired(comparisons: Sequence[dict[str, Any]], cells: Sequence[dict[str, Any]]) -> list[str]:
    if not comparisons:
        return []
    headline = cells[0]["metric"]
    rows = []
    for p in comparisons:
        metric = "accuracy" if p["metric"] == "accuracy" else headline
        interval = (
            NONE
            if p["low"] is None or p["high"] is None
            else f"[{_points(p['low'], metric)}, {_points(p['high'], metric)}]"
        )
        only = f"{p['only_a']} / {p['only_b']}" if p["only_a"] is not None else NONE
        rows.append(
            [
                f"{p['a']} − {p['b']}",
                metric,
                f"{p['items']:,}",
                _points(p["difference"], metric, "+"),
                interval,
                only,
                p["test"],
                _p(p["p"]),
                _p(p["p_holm"]),
            ]
        )
    header = ["pair", "metric", "items", "A − B", "95% CI (paired bootstrap)"]
    header += ["only A / only B right", "test", "p", "p (Holm)"]
    return [
        "**Paired tests** between the models, on the items both answered (accuracy "
        "differences in percentage points; Holm's adjustment per metric and test family; "
        "for SCAN and Google, the SCAN paper's own unpaired permutation test beside "
        "lexbench's paired ones):",
        "",
        *table(header, rows, (2, 3, 4, 5, 7, 8)),
        "",
    ]


def _not_run(results: dict[str, Any]) -> list[str]:
    lines = ["## Not run here", ""]
    for entry in results.get("skipped", []):
        models = ", ".join(f"`{m}`" for m in entry["models"])
        reason = entry["reason"]
        if entry["benchmark"] == "ekar":
            reason += (
                "; tests/fixtures/ekar/english holds three test problems for the tests, not "
                "the 262 of E-KAR's English test split, so E-KAR is left out rather than "
                "shown on them"
            )
        lines.append(f"* {title(entry['benchmark'])} ({models}): {reason}.")
    return [*lines, ""] if len(lines) > 2 else []
