"""The Google analogy file for the completion probe (`lexbench contamination google`): its
lines as published (gensim's copy, the public source's bytes, or `data=PATH`). A probe
shows the two lines before a question and its first two words ("Athens Greece "); the model
must write the other two ("Baghdad Iraq"). The control shuffles questions within their
section, so which question comes next is one the file never had. The file holds 19,544
questions: `sample` (default 500) are probed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.google import locate_google
from lexbench.robustness.completion import PublicFile

DEFAULT_SAMPLE = 500


def google_file(options: Mapping[str, Any]) -> PublicFile:
    path = locate_google(options.get("data"))
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    sections, section = [], ""
    for line in lines:  # a heading is a group of its own: it keeps its place
        heading = line.startswith(":")
        section = line if heading else section
        sections.append(f"{line} (heading)" if heading else section)
    if not any(not line.startswith(":") for line in lines):
        raise ValueError(f"{path}: no questions to probe")
    return PublicFile(
        name=Path(path).name,
        header="",
        rows=tuple(lines),
        prefix_fields=2,
        context_rows=2,
        delimiter=" ",
        groups=tuple(sections),
        sample=int(options.get("sample", DEFAULT_SAMPLE)),
    )
