"""The end of a plan, as a command shows it: each published run's report and folder, each
spread, then (when the plan ran several models) one leaderboard over every run and the
paired comparisons between the models, written to
`<out>/<benchmark>/compare/<A>--<B>[-<step>].md` and `.json`; and how the command exits
when requests failed (3 when some did, 4 when all did; docs/guarantees.md).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.plan import Outcome
from lexbench.terminal import strip_url_credentials, terminal_text

# Exit statuses of a run that finished but is incomplete (docs/guarantees.md).
EXIT_SOME_FAILED = 3
EXIT_ALL_FAILED = 4


class IncompleteRun(Exception):
    """A run that finished and wrote its folder, but some requests failed: `main` prints
    the message (one line) and exits with `exit_code`."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


def rerun_command(argv: Sequence[str]) -> str:
    """The command line to run again, with URL credentials removed."""
    return shlex.join(["lexbench", *(strip_url_credentials(a) for a in argv)])


def _failure_reasons(evaluation: Any) -> str:
    """The commonest reason among the failed samples, read back from the run folder."""
    from lexbench.run.files import read_jsonl

    try:
        rows = read_jsonl(evaluation.folder.samples_path)
    except (OSError, ValueError):
        return ""
    reasons = Counter(str(r.get("error")) for r in rows if isinstance(r, dict) and r.get("error"))
    if not reasons:
        return ""
    reason, count = reasons.most_common(1)[0]
    reason = reason if len(reason) <= 160 else reason[:157] + "..."
    return f"; commonest reason ({count}x): {reason}"


def check_failures(args: argparse.Namespace, evaluations: Iterable[Any]) -> None:
    """Raise IncompleteRun for the first run in which requests failed, unless
    --allow-failures (every run folder is written before this is asked)."""
    if getattr(args, "allow_failures", False):
        return
    for evaluation in evaluations:
        stats = evaluation.stats
        if not stats.failed:
            continue
        argv = getattr(args, "argv", None)
        if argv is None:
            argv = sys.argv[1:]
        every = stats.failed >= stats.requests
        what = (
            f"all {stats.requests} requests failed"
            if every
            else f"{stats.failed} of {stats.requests} requests failed"
        )
        message = (
            f"{what}{_failure_reasons(evaluation)}. The run folder records them; answers "
            f"received are cached, so running the same command again sends only the failed "
            f"requests: {rerun_command(argv)}  (--allow-failures exits 0)"
        )
        raise IncompleteRun(message, EXIT_ALL_FAILED if every else EXIT_SOME_FAILED)


def show_runs(outcome: Outcome) -> None:
    """Each published run's report and folder (under its model's name when the plan ran
    several), and the spread across its sets or wordings."""
    from lexbench.robustness.spread import spread_table

    several = len(outcome.plan.models) > 1
    for done in outcome.published():
        if several:
            print(f"\n## {terminal_text(done.cell.model)}\n")
        print(terminal_text(done.evaluation.report))
        figures = sorted((done.evaluation.folder.path / "figures").glob("*.png"))
        if figures:
            print(f"figures: {terminal_text(', '.join(str(f) for f in figures))}")
        print(f"run folder: {terminal_text(str(done.evaluation.folder.path))}")
        for spread in outcome.spreads:
            if (spread.condition, spread.model) != (done.cell.condition, done.cell.model):
                continue
            what = "fresh item sets" if outcome.plan.spread == "sets" else "prompt wordings"
            print(f"\nSpread across {what} ({spread.benchmark}, accuracy):\n")
            print(terminal_text(spread_table(spread.record)))
            print(f"spread: {terminal_text(str(spread.path))}")
    for note in outcome.plan.notes:
        print(f"note: {terminal_text(note)}")


def show_across_models(outcome: Outcome, out: Path, *, leaderboard: bool = True) -> None:
    """One leaderboard over every run of the plan (unless the command printed its own),
    then the paired comparisons between its models (nothing when it ran one model; `run
    all`, which compares every benchmark, names the files only). A run left out of them
    (every request failed, or it shares no scored item) is named with the reason, as
    `lexbench report` names it; the others are still compared."""
    if len(outcome.plan.models) < 2 or not outcome.ran:
        return
    if leaderboard:
        folders = [done.evaluation.folder.path for done in outcome.ran]
        print("\n" + terminal_text(_one_level_down(leaderboard_text(folders))))
    written, notes = compare_models(comparison_groups(outcome), out)
    for note in notes:
        print(f"note: {terminal_text(note)}")
    for path, text in written:
        if leaderboard:
            print(terminal_text(text))
        print(f"comparison: {terminal_text(str(path))}")


def _one_level_down(markdown: str) -> str:
    """The leaderboard under the runs' reports: its title ("# Leaderboard") and each
    benchmark's heading one level down, so it reads as one section, said once."""
    return "\n".join("#" + line if line.startswith("#") else line for line in markdown.split("\n"))


def _comparison_text(result: Any) -> str:
    """A comparison as the plan prints it: its tests only (the plan's one leaderboard is
    printed above them); the file keeps the comparison's own runs table."""
    from lexbench.report import compare_format

    return compare_format.to_markdown(result, leaderboard=False)


def comparison_groups(outcome: Outcome) -> dict[tuple[str, str], list[tuple[str, Path]]]:
    """(benchmark, step label) -> (model, run folder) of each model's run of that step, in
    plan order: the runs a paired comparison sets side by side."""
    groups: dict[tuple[str, str], list[tuple[str, Path]]] = {}
    for done in outcome.ran:
        benchmark = str(done.evaluation.results.get("benchmark", done.cell.request.benchmark))
        key = (benchmark, done.cell.step)
        groups.setdefault(key, []).append((done.cell.model, done.evaluation.folder.path))
    return groups


def leaderboard_text(folders: Sequence[Path]) -> str:
    """One leaderboard (a table per benchmark) over the run folders."""
    from lexbench.report.leaderboard import leaderboards, to_markdown
    from lexbench.report.runs import load_runs

    return to_markdown(leaderboards(load_runs(folders)))


def compare_models(
    groups: Mapping[tuple[str, str], Sequence[tuple[str, Path]]], out: Path
) -> tuple[list[tuple[Path, str]], list[str]]:
    """Paired comparisons between the models' runs of each group ((benchmark, step label)
    -> (model, run folder) in model order), among the runs that share scored items
    (`report.groups.sharing_groups`, as `lexbench report` compares them); a group with
    fewer than two such runs has nothing to compare. Returns (Markdown file, its text)
    per comparison written, and a note for each run left out, with the reason."""
    from lexbench.report import compare, compare_format
    from lexbench.report.groups import sharing_groups
    from lexbench.report.runs import load_runs
    from lexbench.run.store import slug

    written: list[tuple[Path, str]] = []
    notes: list[str] = []
    for (benchmark, label), members in groups.items():
        if len(members) < 2:
            continue
        runs = load_runs([folder for _, folder in members])
        model_of = {folder.resolve(): model for model, folder in members}
        grouping = sharing_groups(runs)
        where = "" if label == "paper" else f" ({label})"
        notes += [f"{benchmark}{where}: {left.sentence()}" for left in grouping.left_out]
        for group in grouping.groups:
            result = compare.compare_runs(group)  # with the tests the benchmark's paper used
            name = "--".join(slug(model_of[run.path.resolve()]) for run in group)
            suffix = "" if label == "paper" else f"-{slug(label)}"
            path = out / slug(benchmark) / "compare" / f"{name}{suffix}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(compare_format.to_markdown(result), encoding="utf-8")
            path.with_suffix(".json").write_text(compare_format.to_json(result), encoding="utf-8")
            written.append((path, _comparison_text(result)))
    return written, notes
