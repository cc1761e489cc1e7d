"""Where spreads and probes live: beside the run folders of one benchmark and model,

    runs/<benchmark>/<model>/robustness/sets-<published hash>.json      --sets K
    runs/<benchmark>/<model>/robustness/prompts-<published hash>.json   --prompt-variant all
    runs/<benchmark>/<model>/robustness/contamination-<hash>.json      lexbench contamination
    runs/<benchmark>/<model>/robustness/completion-<name>.json         the completion probe

named after the published run's folder (the default seed, the paper's wording), so the
leaderboard finds a run's spread from the run alone, and a rerun with a larger K replaces
the file it extends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lexbench.run.files import read_json_file, write_json

FOLDER = "robustness"
SPREAD_KINDS = ("sets", "prompts")


def robustness_folder(run_folder: str | Path) -> Path:
    """The robustness folder beside a run folder (in its model's folder)."""
    return Path(run_folder).parent / FOLDER


def spread_path(published_folder: str | Path, kind: str) -> Path:
    if kind not in SPREAD_KINDS:
        raise ValueError(f"unknown spread kind {kind!r}; known: {', '.join(SPREAD_KINDS)}")
    return robustness_folder(published_folder) / f"{kind}-{Path(published_folder).name}.json"


def write_record(path: Path, record: Mapping[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, dict(record))
    return path


def spreads_of(run_folder: str | Path) -> dict[str, dict[str, Any]]:
    """The spreads whose published run is `run_folder`, by kind (none: {})."""
    out = {}
    for kind in SPREAD_KINDS:
        path = spread_path(run_folder, kind)
        if path.is_file():
            out[kind] = read_json_file(path, "a spread file")
    return out


def records_near(run_folders: Iterable[str | Path]) -> list[tuple[Path, dict[str, Any]]]:
    """Every spread and probe file beside the given run folders, once each, sorted."""
    folders = {robustness_folder(p).resolve() for p in run_folders}
    found = sorted(path for folder in folders if folder.is_dir() for path in folder.glob("*.json"))
    return [(path, read_json_file(path, "a robustness file")) for path in found]


def member_folders(run_folders: Iterable[str | Path]) -> set[Path]:
    """The run folders that are non-published members of a spread (a fresh set, another
    wording): the leaderboard folds them into their published run's row. Only spreads whose
    published run is among `run_folders` fold anything (a fresh set or a seed given without
    its published run keeps its own row). A spread's runs all sit in its model's folder, so
    they are found by name there (the record stays true when the runs folder moves)."""
    given = [Path(p) for p in run_folders]
    shown = {p.resolve() for p in given}
    members: set[Path] = set()
    for path, record in records_near(given):
        if record.get("kind") not in SPREAD_KINDS:
            continue
        model_folder = path.parent.parent
        published = [m["folder"] for m in record.get("members", []) if m.get("published")] or [
            record.get("published_folder") or ""
        ]
        if not any((model_folder / Path(f).name).resolve() in shown for f in published if f):
            continue
        members |= {
            (model_folder / Path(m["folder"]).name).resolve()
            for m in record.get("members", [])
            if not m.get("published")
        }
    return members
