"""SCAN's public file for the completion probe (`lexbench contamination scan`): the CSV's
lines as published (the packaged copy, the public source's bytes, or `data=PATH`). A probe
shows the header, the two rows before one row and that row's `target,source,`; the model
must write `targ_word,src_word,alternatives,analogy_type`, which rows of the same concept
mapping (the control's shuffle group) make hard to guess and easy to recall. All 451 rows
are probed unless `sample=N` (`--option sample=N`) asks for a seeded sample."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexbench.benchmarks.scan.benchmark import locate_scan
from lexbench.robustness.completion import PublicFile


def public_file(options: Mapping[str, Any]) -> PublicFile:
    path = locate_scan(options.get("data"))
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(lines) < 2:
        raise ValueError(f"{path}: no rows after the header to probe")
    return PublicFile(
        name=Path(path).name,
        header=lines[0],
        rows=tuple(lines[1:]),
        prefix_fields=2,
        group_fields=2,
        context_rows=2,
        sample=None if options.get("sample") is None else int(options["sample"]),
    )
