"""What a person reads says `n/a`, never `nan` or `inf` (docs/comparing-and-reporting.md;
issue 43).

Every benchmark (and the example plugin, where it is installed) runs on a tiny slice, as a
user runs it, on the scripted backend (tests/scripted_backend.py) with three models in one
plan: `scripted:ok` (answers from a hash of the prompt), `scripted:wrong` (no item right)
and `scripted:down` (every request fails; `--allow-failures`). LAMBDA runs as a `--sets 2`
spread and then its contamination probe, SCAN as a spread across every wording. Then
`report`, `leaderboard` (Markdown and CSV) and `compare` (every format) read the runs, and
every text is scanned: what each command printed (stdout and stderr), every Markdown,
HTML, CSV, LaTeX and text file under the runs and the report, every JSON file (strict:
no NaN or Infinity token), and every text drawn on a figure (read off each matplotlib
figure as it is saved: titles, axis and tick labels, legends, annotations).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexbench import plugins
from lexbench.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: "nan", "NaN", "inf", "-inf", "Infinity" as a word (not "infinite", not "Nanjing", not
#: a path's "h-nan" or "/inf/").
NOT_A_NUMBER = re.compile(r"(?<![\w./-])-?(nan|inf|infinity)(?!\w)", re.IGNORECASE)
#: Files a person opens; JSON files are data, read strictly instead.
READ_FILES = (".md", ".html", ".csv", ".txt", ".tex")
MODELS = "scripted:ok,scripted:wrong,scripted:down"

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

#: benchmark -> its options on the command line (a tiny slice; the spread it runs as).
CASES = {
    "lambda": ["--limit", "2", "--sets", "2"],
    "scan": ["--limit", "1", "--prompt-variant", "all"],
    "google": ["--limit", "1"],
    "bats": ["--limit", "2", "--data", str(FIXTURES / "bats_mini")],
    "sat": ["--data", "sat.txt"],
    "setlexsem": ["--grid", "small", "--limit", "1"],
    "ekar": ["--limit", "2", "--data", str(FIXTURES / "ekar" / "english")],
    "hypernyms": ["--limit", "6", "--option", "count=6"],  # the example plugin
}


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
        if path.is_file() and path.suffix in READ_FILES:
            yield str(path), path.read_text(encoding="utf-8")


def strict_json_problems(folder: Path) -> list[str]:
    """JSON files holding a NaN or Infinity token (which strict readers refuse)."""
    problems = []
    for path in sorted(folder.rglob("*.json")):
        try:
            json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse)
        except ValueError as error:
            problems.append(f"{path}: {error}")
    return problems


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def not_numbers(texts: list[tuple[str, str]]) -> list[str]:
    out = []
    for where, text in texts:
        for match in NOT_A_NUMBER.finditer(text):
            out.append(f"{where}: ...{text[max(0, match.start() - 60) : match.end() + 20]!r}")
    return out


def run_folders(root: Path, benchmark: str, model: str) -> list[Path]:
    return sorted(p.parent for p in root.glob(f"runs/{benchmark}/{model}/*/config.json"))


def published(root: Path, benchmark: str, model: str) -> Path:
    """A model's published run of a benchmark: the one its spread record is named after
    (`robustness/sets-<run>.json`), else its one run."""
    folders = run_folders(root, benchmark, model)
    spreads = sorted((root / "runs" / benchmark / model / "robustness").glob("*-*.json"))
    names = {path.stem.split("-", 1)[1] for path in spreads}
    chosen = [folder for folder in folders if folder.name in names] if names else folders
    assert len(chosen) == 1, (benchmark, model, folders, spreads)
    return chosen[0]


def test_no_nan_or_inf_in_anything_a_person_reads(
    tmp_path, monkeypatch, capsys, scripted_backend, figure_texts
):
    monkeypatch.chdir(tmp_path)
    registered = {spec.name for spec in plugins.benchmarks()}
    (tmp_path / "sat.txt").write_text(SAT_TEXT)
    texts: list[tuple[str, str]] = []

    def command(*argv: str, status: int = 0) -> str:
        assert main(list(argv)) == status, argv
        printed = capsys.readouterr()
        texts.extend([(f"{' '.join(argv)}: stdout", printed.out), ("stderr", printed.err)])
        return printed.out

    ran = [name for name in CASES if name in registered]
    for name in ran:
        out = command(
            "run",
            name,
            "--model",
            MODELS,
            *CASES[name],
            "--no-progress",
            "--no-cache",
            "--allow-failures",
        )
        assert out.count("## Leaderboard") == 1  # one leaderboard per plan
        assert "Run down" in out and "left out of the paired comparisons" in out
    command(
        "contamination",
        "lambda",
        "--model",
        "scripted:ok",
        "--limit",
        "2",
        "--sets",
        "2",
        "--no-progress",
        "--no-cache",
    )

    every = [
        str(f)
        for name in ran
        for m in ("ok", "wrong", "down")
        for f in run_folders(tmp_path, name, m)
    ]
    command("report", *every, "-o", "report")
    command("leaderboard", *every)
    command("leaderboard", *every, "--format", "csv", "-o", "board.csv")
    for name in ran:
        ok, wrong, down = (published(tmp_path, name, m) for m in ("ok", "wrong", "down"))
        for fmt in ("text", "markdown", "csv", "json", "latex"):
            command("compare", str(ok), str(wrong), "--format", fmt, "--paper-resamples", "200")
        command("compare", str(ok), str(down), status=2)  # refused, in one line

    texts += list(files_read(tmp_path))
    texts += [("figure", text) for text in figure_texts]
    found = not_numbers(texts) + strict_json_problems(tmp_path)
    assert not found, "\n".join(found[:40]) + f"\n({len(found)} in all)"
    # What was scanned holds what it should: every benchmark, the empty cells, the figures.
    page = (tmp_path / "report" / "report.md").read_text()
    assert all(f"runs/{name}/" in page for name in ran) and "## Robustness" in page
    assert "| down (limit=2) | 0 | n/a | n/a |" in page
    assert "n/a (undefined: the same accuracy at all" in page
    assert len(figure_texts) > 100 and any("Spearman" in t for t in figure_texts)


def test_a_comparison_without_numbers_says_n_a_in_every_format(tmp_path):
    """No interval, no p-value (nothing to resample, no pair tested): n/a in text,
    Markdown, LaTeX and CSV, null in JSON (strict JSON, as `jq` reads it)."""
    from lexbench.report import compare_format
    from lexbench.report.compare import Comparison, PairedComparison
    from lexbench.report.standings import Standing
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
