"""measurements/ is laid out by what it holds, and its README says so, script by script.

Scripts sit in `performance/` (time, memory, CPU, throughput, cost) or `studies/` (whether
results agree or are right); the shared pieces (recording.py, measure_all.py, figures.toml,
records/) stay at the top. A record is named by its script's name alone
(`records/<name>.json`), so no name is used in both folders, and `recording.script_path`
finds a script from its name. measurements/README.md lists every script in its folder's
table, with a command that runs it, and marks exactly the scripts measure_all.py re-runs.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MEASUREMENTS = REPO / "measurements"
sys.path.insert(0, str(MEASUREMENTS))
from measure_all import MEASUREMENTS as RE_MEASURED  # noqa: E402
from recording import FOLDERS, RECORDS, Recorder, script_path  # noqa: E402

#: What stays at the top of measurements/, shared by both folders.
SHARED = {"recording.py", "measure_all.py", "figures.toml", "README.md", "records"}


def scripts(folder: str) -> set[str]:
    return {path.stem for path in (MEASUREMENTS / folder).glob("*.py")}


def readme_section(folder: str) -> str:
    """The text of the README's `## <folder>/` section."""
    text = (MEASUREMENTS / "README.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)
    found = [section for section in sections if section.startswith(f"{folder}/\n")]
    assert len(found) == 1, f"measurements/README.md: {len(found)} sections '## {folder}/'"
    return found[0]


def table_rows(section: str) -> dict[str, list[str]]:
    """The section's table, keyed by its first cell's script name."""
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `(\w+)\.py` \|", line)
        if match:
            rows[match.group(1)] = [cell.strip() for cell in line.strip("|").split(" | ")]
    return rows


def test_the_top_holds_only_the_shared_pieces_and_the_folders() -> None:
    here = {path.name for path in MEASUREMENTS.iterdir() if path.name != "__pycache__"}
    assert here == SHARED | set(FOLDERS), (
        f"measurements/ holds {sorted(here - SHARED - set(FOLDERS))}: a script goes under "
        f"{' or '.join(FOLDERS)}"
    )
    for folder in FOLDERS:
        assert scripts(folder), f"measurements/{folder}/ holds no script"


def test_no_script_name_is_in_both_folders() -> None:
    performance, studies = (scripts(folder) for folder in FOLDERS)
    assert not performance & studies, f"in both folders: {sorted(performance & studies)}"


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_script_is_found_by_its_name(folder: str) -> None:
    for name in sorted(scripts(folder)):
        assert script_path(name) == MEASUREMENTS / folder / f"{name}.py"


def test_an_unknown_script_name_is_refused_in_one_line() -> None:
    with pytest.raises(FileNotFoundError) as refused:
        script_path("no_such_measurement")
    message = str(refused.value)
    assert "\n" not in message
    assert "no_such_measurement.py" in message
    assert "measurements/performance/" in message and "measurements/studies/" in message


def test_a_record_names_its_script_in_its_folder(tmp_path: Path) -> None:
    """Recorder writes the script's path with its folder; the record keeps the bare name."""
    recorder = Recorder("quick_checks", caches="warm", argv=["--only", "scan"])
    written = recorder.write({"scan": {"wall_s": 1.0}}, path=tmp_path / "quick_checks.json")
    made = json.loads(written.read_text(encoding="utf-8"))
    assert made["script"] == "measurements/performance/quick_checks.py"
    assert made["command"] == "python measurements/performance/quick_checks.py --only scan"
    assert RECORDS == MEASUREMENTS / "records"


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_readme_lists_every_script_of_a_folder(folder: str) -> None:
    rows = table_rows(readme_section(folder))
    assert set(rows) == scripts(folder), (
        f"measurements/README.md's {folder}/ table: missing "
        f"{sorted(scripts(folder) - set(rows))}, not in the folder {sorted(set(rows) - scripts(folder))}"
    )
    for name, cells in rows.items():
        assert len(cells) == 3, f"README, {name}: {len(cells)} cells (script, what, command)"
        command = cells[2]
        runs_it = f"measurements/{folder}/{name}.py" in command
        runs_through = re.fullmatch(r"through `(\w+)\.py[^`]*`", command)
        assert runs_it or (runs_through and runs_through.group(1) in rows), (
            f"README, {name}: its command {command!r} does not run it"
        )


def test_the_readme_marks_the_scripts_measure_all_re_runs() -> None:
    marked = {
        name
        for folder in FOLDERS
        for name, cells in table_rows(readme_section(folder)).items()
        if cells[1].startswith("*record*")
    }
    assert marked == {measurement.name for measurement in RE_MEASURED}
