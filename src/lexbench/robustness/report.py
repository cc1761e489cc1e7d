"""Markdown for spreads and probes: the `lexbench contamination` printout, and the
"Robustness" section of `lexbench report` (every spread and probe file beside its runs),
the leaderboard's spread columns and `compare`'s spread notes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.parts import fmt, is_number
from lexbench.robustness.completion import reading_completion
from lexbench.robustness.files import records_near, spreads_of
from lexbench.robustness.spread import OVERALL, pct, spread_table

SD_COLUMNS = {"sets": "SD across sets", "prompts": "SD across prompts"}


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def probe_markdown(record: Mapping[str, Any]) -> str:
    """A contamination or completion record as Markdown: the reading, then the numbers."""
    if record["kind"] == "completion":
        lines = [
            f"**Completion probe of {record['file']}** ({record['benchmark']}, {record['model']})",
            "",
            reading_completion(dict(record)),
            "",
        ]
        completed = record.get("completed_rows") or []
        if completed:
            lines += ["| row of the file | model's continuation | match |", "|---|---|---|"]
            lines += [
                f"| `{_cell(r['row'])}` | `{_cell(r['output'])}` | {r['match']} |"
                for r in completed[:50]
            ]
            if len(completed) > 50:
                lines.append(f"\n({len(completed) - 50} more in the record)")
        return "\n".join(lines)
    if record["kind"] == "contamination":
        return "\n".join(
            [
                f"**Published set against {record['sets']} fresh sets** "
                f"({record['benchmark']}, {record['model']})",
                "",
                record["reading"],
                "",
                f"Published run: `{record['published_folder']}`",
            ]
        )
    raise ValueError(f"not a probe record (kind {record.get('kind')!r})")


def robustness_markdown(run_folders: Iterable[str | Path]) -> str:
    """Every spread and probe beside the given runs, as Markdown ("" when none)."""
    parts = []
    for path, record in records_near(run_folders):
        kind = record.get("kind")
        if kind in SD_COLUMNS:
            what = "fresh item sets" if kind == "sets" else "prompt wordings"
            parts += [
                f"### {record.get('benchmark')}, {record.get('model')}: spread across {what}",
                "",
                spread_table(record),
                "",
                f"({record['interval']}; file `{path.name}`)",
                "",
            ]
        elif kind in ("contamination", "completion"):
            parts += [
                f"### {record.get('benchmark')}, {record.get('model')}: contamination probe",
                "",
                probe_markdown(record),
                "",
            ]
    return "\n".join(parts).rstrip()


def spread_columns(run_folder: str | Path) -> dict[str, str]:
    """The leaderboard's extra cells for a published run: the SD across fresh sets and
    across wordings of its headline (accuracy in percentage points; a graded benchmark's
    score, MRR@10, in its own units), with how many runs it is over ({} when none)."""
    out = {}
    for kind, record in spreads_of(run_folder).items():
        summary = record["summary"]
        if "score" in summary:
            sd = summary["score"]["sd"]
            text = fmt(sd)
        else:
            sd = summary[OVERALL]["sd"]
            text = f"{pct(sd)} pp" if is_number(sd) else pct(sd)
        out[SD_COLUMNS[kind]] = f"{text} ({summary[OVERALL]['n']})"
    return out


def spread_notes(pairs: Sequence[Any], runs: Sequence[Any]) -> list[str]:
    """`compare`'s notes: a difference in accuracy smaller than either run's SD across
    sets or wordings is within what redrawing the items or rewording the prompt moves."""
    by_label = {run.label: run for run in runs}
    notes = []
    for pair in pairs:
        if pair.metric != "accuracy" or getattr(pair, "family", "lexbench") != "lexbench":
            continue  # a paper's test on accuracy pairs the same runs again
        difference = abs(pair.mean_a - pair.mean_b)
        for label in (pair.a, pair.b):
            run = by_label.get(label)
            if run is None:
                continue
            for kind, record in spreads_of(run.path).items():
                sd = record["summary"][OVERALL]["sd"]
                if is_number(sd) and difference < sd:
                    what = "fresh item sets" if kind == "sets" else "prompt wordings"
                    notes.append(
                        f"the accuracy difference between {pair.a!r} and {pair.b!r} "
                        f"({100 * difference:.1f} pp) is smaller than {label!r}'s SD across "
                        f"{what} ({100 * sd:.1f} pp): redrawing the items or rewording the "
                        f"prompt moves a score by as much"
                    )
    return notes
