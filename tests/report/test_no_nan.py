"""What a person reads says `n/a`, never `nan` or `inf` (docs/comparing-and-reporting.md;
issue 43).

Every benchmark (and the example plugin, where it is installed) runs on a tiny slice with a
scripted model in three conditions: an ordinary run (about half the items right), a run
with no item right, and a run whose every request failed; LAMBDA as a `--sets 2` spread
with its contamination probe, SCAN as a spread across every wording. Then `report`,
`leaderboard` (Markdown and CSV) and `compare` (every format) read them, and every text
is scanned: what `run` prints (the run's report, the spread table, the probe), each run's
report.md, report.md and report.html of `lexbench report`, the leaderboards, the
comparisons, and every text drawn on a figure (read off each matplotlib figure as it is
saved: titles, axis and tick labels, legends, annotations).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lexbench import api, plugins
from lexbench.cli import main
from lexbench.types import Request
from mock_model import ScriptedModel

FIXTURES = Path(__file__).parents[1] / "fixtures"
#: "nan", "NaN", "inf", "-inf", "Infinity" as a word (not "infinite", not "Nanjing").
NOT_A_NUMBER = re.compile(r"(?<![\w.])-?(nan|inf|infinity)(?!\w)", re.IGNORECASE)

SAT_TEXT = """190 FROM REAL SATs
ostrich bird n:n
lion cat n:n
goose flock n:n
ewe sheep n:n
a

ML:1 from a workbook
king queen n:n
man woman n:n
cat dog n:n
red blue a:a
a

ML:2 from a workbook
hot cold a:a
up down a:a
tall short a:a
dog cat n:n
b
"""


@dataclass(frozen=True)
class Case:
    """A benchmark on a tiny slice: its builder options, the answer key of its items (item
    id -> the right reply, or the right choice's index), and the spread it runs as."""

    name: str
    options: dict[str, Any]
    answer_key: Callable[[Any], dict[str, Any]] | None = None
    spread: str | None = None  # "sets" or "prompts"


def _gold_word(bench: Any) -> dict[str, Any]:
    return {item.id: " " + item.gold for item in bench.items()}


def _setlexsem_key(bench: Any) -> dict[str, Any]:
    return {
        item.id: "<answer>{" + ", ".join(map(str, sorted(item.answer, key=str))) + "}</answer>"
        for item in bench.items()
    }


CASES = [
    Case("lambda", {"limit": 2}, _gold_word, spread="sets"),
    Case("scan", {"limit": 1}, spread="prompts"),
    Case("google", {"limit_per_relation": 1}),
    Case("bats", {"limit_per_relation": 2, "data": str(FIXTURES / "bats_mini")}),
    Case("sat", {}, lambda bench: {item.id: item.answer for item in bench.items()}),
    Case("setlexsem", {"grid": "small", "limit": 1}, _setlexsem_key),
    Case(
        "ekar",
        {"limit": 2, "data": str(FIXTURES / "ekar" / "english")},
        lambda bench: {item.id: item.labels.index(item.answer) for item in bench.items()},
    ),
    Case("hypernyms", {"limit": 6, "count": 6}, _gold_word),  # the example plugin
]
CONDITIONS = ("ordinary", "none-right", "all-failed")


def _right(condition: str, request: Request) -> bool:
    """The ordinary run answers about half the items right, chosen by id."""
    return condition == "ordinary" and hashlib.sha256(request.id.encode()).digest()[0] % 2 == 0


def scripted(condition: str, key: dict[str, Any]) -> ScriptedModel:
    """A model that answers by `key` in `condition` (generate, rank and loglikelihood)."""

    def reply(request: Request) -> str:
        return str(key.get(request.id, " zzzz")) if _right(condition, request) else " zzzz"

    def ranked(request: Request) -> list[tuple[int, str, float]]:
        words = [f" filler{k}" for k in range(10)]
        if _right(condition, request) and request.targets:
            words[0] = " " + request.targets[0]
        return [(100 + k, word, -float(k + 1)) for k, word in enumerate(words)]

    def loglikelihoods(request: Request) -> list[float]:
        gold = int(key.get(request.id, 0))
        chosen = gold if _right(condition, request) else (gold + 1) % len(request.continuations)
        return [-1.0 if k == chosen else -5.0 - k for k in range(len(request.continuations))]

    return ScriptedModel(
        reply,
        name=f"scripted-{condition}",
        ranked=ranked,
        loglikelihoods=loglikelihoods,
        fail_on=(lambda request: True) if condition == "all-failed" else None,
    )


def run_case(case: Case, condition: str, key: dict[str, Any], options: dict[str, Any], out: Path):
    """Run one case in one condition as `lexbench run` would; returns the (published) run
    folder and what `run` prints: the report, and for a spread its table and probe."""
    from lexbench.robustness.completion import failure_note
    from lexbench.robustness.contamination import contamination_from_spread
    from lexbench.robustness.files import robustness_folder, write_record
    from lexbench.robustness.report import probe_markdown
    from lexbench.robustness.runs import run_steps, set_steps, variant_steps
    from lexbench.robustness.spread import spread_table

    model = scripted(condition, key)

    def run_one() -> Any:
        return api.run(case.name, model, out=out, use_cache=False, progress=False, **options)

    if case.spread is None:
        run = run_one()
        return run.folder.path, [run.report]
    spec = plugins.benchmark(case.name)
    steps = set_steps(spec, 2) if case.spread == "sets" else variant_steps(spec, "all")
    evaluations, record, _ = run_steps(spec, case.spread, steps, run_one)
    published = next(e for e, s in zip(evaluations, steps) if s.published).folder.path
    printed = [e.report for e in evaluations] + [spread_table(record)]
    if case.spread == "sets":  # `lexbench contamination`: the probe from the spread
        probe = contamination_from_spread(record)
        failed = sum(e.stats.failed for e in evaluations)
        probe["reading"] += failure_note(failed, sum(e.stats.requests for e in evaluations))
        write_record(robustness_folder(published) / f"contamination-{published.name}.json", probe)
        printed.append(probe_markdown(probe))
    return published, printed


@pytest.fixture
def figure_texts(monkeypatch) -> list[str]:
    """Every text drawn on a matplotlib figure as it is saved (titles, axis and tick
    labels, legends, annotations)."""
    import matplotlib.figure
    from matplotlib.text import Text

    seen: list[str] = []
    original = matplotlib.figure.Figure.savefig

    def savefig(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, *args, **kwargs)  # drawn: the tick labels are set
        seen.extend(t.get_text() for t in self.findobj(Text) if t.get_visible())
        return out

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return seen


def files_read(folder: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".html", ".csv", ".txt", ".tex", ".json"):
            yield str(path), path.read_text(encoding="utf-8")


def not_numbers(texts: list[tuple[str, str]]) -> list[str]:
    out = []
    for where, text in texts:
        for match in NOT_A_NUMBER.finditer(text):
            out.append(f"{where}: ...{text[max(0, match.start() - 60) : match.end() + 20]!r}")
    return out


def test_no_nan_or_inf_in_anything_a_person_reads(tmp_path, capsys, figure_texts):
    plugins.reset()
    registered = {spec.name for spec in plugins.benchmarks()}
    (tmp_path / "sat.txt").write_text(SAT_TEXT)
    texts: list[tuple[str, str]] = []
    folders: dict[str, list[Path]] = {}
    for case in CASES:
        if case.name not in registered:  # the example plugin, not installed here
            continue
        options = {**case.options, **({"data": tmp_path / "sat.txt"} if case.name == "sat" else {})}
        items = plugins.benchmark(case.name).build(scripted("ordinary", {}), **options)
        key = case.answer_key(items) if case.answer_key else {}
        for condition in CONDITIONS:
            folder, printed = run_case(case, condition, key, options, tmp_path / "runs")
            texts += [(f"{case.name}, {condition}: printed by run", text) for text in printed]
            texts.append((str(folder / "report.md"), (folder / "report.md").read_text()))
            folders.setdefault(case.name, []).append(folder)
    capsys.readouterr()

    every = [str(folder) for group in folders.values() for folder in group]
    assert main(["report", *every, "-o", str(tmp_path / "report")]) == 0
    assert main(["leaderboard", *every]) == 0
    assert main(["leaderboard", *every, "--format", "csv", "-o", str(tmp_path / "board.csv")]) == 0
    for ordinary, none_right, failed in folders.values():
        for fmt in ("text", "markdown", "csv", "json", "latex"):
            pair = [str(ordinary), str(none_right), "--paper-resamples", "200"]
            assert main(["compare", *pair, "--format", fmt]) == 0
        assert main(["compare", str(ordinary), str(failed)]) == 2  # refused, in one line
    printed = capsys.readouterr()
    texts += [("stdout", printed.out), ("stderr", printed.err)]
    texts += list(files_read(tmp_path / "report"))
    texts.append(("board.csv", (tmp_path / "board.csv").read_text()))
    texts += [("figure", text) for text in figure_texts]

    found = not_numbers(texts)
    assert not found, "\n".join(found[:40]) + f"\n({len(found)} in all)"
    # What was scanned holds what it should: every benchmark, the empty cells, the figures.
    page = (tmp_path / "report" / "report.md").read_text()
    assert all(f"runs/{name}/" in page for name in folders) and "## Robustness" in page
    assert "| scripted-all-failed (limit=2) | 0 | n/a | n/a |" in printed.out
    assert "n/a (undefined: the same accuracy at all" in page
    assert len(figure_texts) > 100 and any("Spearman" in t for t in figure_texts)


def test_a_comparison_without_numbers_says_n_a_in_every_format(tmp_path):
    """No interval, no p-value (nothing to resample, no pair tested): n/a in text,
    Markdown, LaTeX and CSV, null in JSON (strict JSON, as `jq` reads it)."""
    from lexbench.report import compare_format
    from lexbench.report.compare import Comparison, PairedComparison, Standing
    from lexbench.stats import Interval

    nan, inf = math.nan, math.inf
    empty = Interval(nan, nan, nan, 0, "bootstrap")
    standing = Standing(1, "m", "runs/m", 3, 0, Interval(nan, nan, nan, 0, "wilson"), empty)
    pair = PairedComparison("a", "b", "score", "permutation", 3, 0, nan, nan, empty, nan, inf, nan)
    comparison = Comparison("scan", ("accuracy", "score"), (standing,), (pair,), 10, 0)
    writers = ("to_text", "to_markdown", "to_latex", "comparisons_csv", "leaderboard_csv")
    for writer in writers:
        text = getattr(compare_format, writer)(comparison)
        assert not NOT_A_NUMBER.search(text) and "n/a" in text, (writer, text)
    as_json = compare_format.to_json(comparison)
    assert not NOT_A_NUMBER.search(as_json)
    parsed = json.loads(as_json)
    assert parsed["comparisons"][0]["p_value"] is None
    assert parsed["leaderboard"][0]["accuracy"]["estimate"] is None
    assert str(empty) == "n/a" and str(Interval(0.5, nan, nan, 1, "t")) == "0.500 [n/a]"
