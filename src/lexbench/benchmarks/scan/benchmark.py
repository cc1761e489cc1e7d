"""SCAN: scientific and metaphorical cross-domain analogies (Czinczoll et al. 2022).

Each row of the dataset maps an attribute of a source concept onto one of a target concept
(solar system -> atom: sun -> nucleus). The model sees

    If atom is like solar system, then nucleus is like

and should continue with "sun" (`src_word`, or any of the row's `alternatives`). A masked LM
sees "... then nucleus is like [MASK]."; word vectors answer |b − a| + c (the paper's
baseline) or 3CosAdd and friends. Scoring, tables and comparisons are the shared ranking
machinery in `lexbench.benchmarks.analogies.sets`: reciprocal rank of the first accepted answer
in the top 10, MRR@10, acc@1, recall@5, recall@10, overall/science/metaphor, with standard
errors clustered by concept mapping.

Data: 451 rows in 65 concept mappings (11 science, 54 metaphor), shipped inside lexbench
(`lexbench/data/scan/`, MIT, with its licence), so SCAN runs offline; `--data PATH` reads
another copy or revision. Two rows repeat a (source, target, targ_word) triple: as in the
paper's code, which keys rows by that triple, the later row replaces the earlier one, giving
449 analogies.

    >>> items = load_scan()
    >>> len(items), len({i.mapping for i in items})
    (449, 65)
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.data import Analogy
from lexbench.benchmarks.analogies.rank import RankAnalogyBenchmark, request_kind_for
from lexbench.benchmarks.analogies.tables import (
    mrr_figure,
    report_markdown,
)
from lexbench.contract import first_per_stratum
from lexbench.hashing import sha256_file
from lexbench.models.base import Model

SCAN_URL = "https://raw.githubusercontent.com/taczin/SCAN_analogies/HEAD/data/SCAN_dataset.csv"
SCAN_SHA256 = "64fad80964c3584ad51930c70f031ede97938fa6dd716a42745ea8faa74d3c25"
SCAN_COLUMNS = ("target", "source", "targ_word", "src_word", "alternatives", "analogy_type")
SCAN_TYPES = ("science", "metaphor")
# The paper's GloVe baseline; other vector methods can be asked for with `method`.
SCAN_VECTOR_METHOD = "scan-paper"


def packaged_scan() -> Path:
    """The SCAN CSV shipped inside lexbench."""
    return Path(str(resources.files("lexbench.benchmarks.scan") / "data" / "SCAN_dataset.csv"))


def locate_scan(path: str | Path | None = None, *, download: bool = False) -> Path:
    """The SCAN CSV: the path given, else the copy shipped with lexbench; `download=True`
    fetches the public file instead (once, sha256-checked)."""
    if path is not None:
        located = Path(path).expanduser()
        if not located.is_file():
            raise FileNotFoundError(f"no SCAN dataset at {located}")
        return located
    if not download and packaged_scan().is_file():
        return packaged_scan()
    from lexbench.datasets.fetch import fetch

    return fetch(SCAN_URL, sha256=SCAN_SHA256, name="scan/SCAN_dataset.csv")


def _split_alternatives(text: str) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def parse_scan(text: str, source: str = "SCAN_dataset.csv") -> list[Analogy]:
    """SCAN rows -> analogies; a later row repeating a (source, target, targ_word) triple
    replaces the earlier one (the paper's code keys rows by that triple).

    a = target, b = source, c = targ_word, d = src_word; type = analogy_type; mapping =
    "source -> target". Fields are stripped (the file has a few trailing spaces)."""
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in SCAN_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(
            f"{source}: not the SCAN CSV (missing column(s) {', '.join(missing)}; "
            f"found {reader.fieldnames})"
        )
    merged: dict[tuple[str, str, str], dict[str, Any]] = {}
    for number, row in enumerate(reader, 2):
        fields = {c: (row.get(c) or "").strip() for c in SCAN_COLUMNS}
        for required in ("target", "source", "targ_word", "src_word", "analogy_type"):
            if not fields[required]:
                raise ValueError(f"{source}:{number}: empty {required}")
        if fields["analogy_type"] not in SCAN_TYPES:
            raise ValueError(
                f"{source}:{number}: analogy_type {fields['analogy_type']!r} is not "
                f"one of {', '.join(SCAN_TYPES)}"
            )
        key = (fields["source"], fields["target"], fields["targ_word"])
        if key in merged and merged[key]["type"] != fields["analogy_type"]:
            raise ValueError(f"{source}:{number}: repeats {key} with another analogy_type")
        # Assigning to an existing key keeps its place, so ids stay in file order.
        merged[key] = {
            "a": fields["target"],
            "b": fields["source"],
            "c": fields["targ_word"],
            "d": fields["src_word"],
            "type": fields["analogy_type"],
            "alternatives": _split_alternatives(fields["alternatives"]),
        }
    if not merged:
        raise ValueError(f"{source}: no SCAN rows")
    items = []
    for number, row in enumerate(merged.values()):
        alternatives = tuple(w for w in dict.fromkeys(row["alternatives"]) if w != row["d"])
        items.append(
            Analogy(
                id=f"scan-{number:03d}",
                a=row["a"],
                b=row["b"],
                c=row["c"],
                d=row["d"],
                alternatives=alternatives,
                type=row["type"],
                mapping=f"{row['b']} -> {row['a']}",
            )
        )
    return items


def load_scan(path: str | Path | None = None) -> list[Analogy]:
    """The 449 SCAN analogies from a path, or from the public source (downloaded, checked)."""
    located = locate_scan(path)
    return parse_scan(located.read_text(encoding="utf-8"), str(located))


def dataset_statistics(items: Sequence[Analogy]) -> dict[str, Any]:
    """Analogies and concept mappings per type (the counts the paper reports)."""
    out: dict[str, Any] = {"analogies": len(items), "mappings": len({i.mapping for i in items})}
    for kind in SCAN_TYPES:
        members = [i for i in items if i.type == kind]
        out[kind] = {"analogies": len(members), "mappings": len({i.mapping for i in members})}
    out["with_alternatives"] = sum(1 for i in items if i.alternatives)
    return out


class ScanBenchmark(RankAnalogyBenchmark):
    """SCAN through the shared ranking benchmark, with SCAN's report title and figure."""

    def report(self, results: Mapping[str, Any]) -> str:
        shots = results.get("shots", self.shots)
        how = self.method if self.request_kind == "analogy" else f"{shots}-shot"
        return report_markdown(results, title=f"SCAN ({how})")

    def figures(self, results: Mapping[str, Any], folder: Path) -> list[Path]:
        return [
            mrr_figure(
                folder / "figures" / "mrr_by_type.png",
                {"": results},
                title=f"SCAN MRR@10 by type ({self.shots}-shot)",
            )
        ]


def select(
    items: Sequence[Analogy], *, types: Sequence[str] | None = None, limit: int | None = None
) -> list[Analogy]:
    """Items of the given types; with `limit`, the first N of each concept mapping (file
    order), so a slice covers every mapping and the mapping-clustered errors exist."""
    chosen = list(items)
    if types:
        unknown = [t for t in types if t not in SCAN_TYPES]
        if unknown:
            raise ValueError(f"unknown SCAN type(s) {unknown}; choose from {', '.join(SCAN_TYPES)}")
        chosen = [i for i in chosen if i.type in types]
    return first_per_stratum(chosen, limit, lambda item: item.mapping)


def build_scan(
    model: Model,
    *,
    data: str | Path | None = None,
    shots: int = 0,
    seed: int = 0,
    limit: int | None = None,
    types: Sequence[str] | None = None,
    method: str | None = None,
) -> ScanBenchmark:
    """SCAN in one condition for `model`. Shots are drawn from all 449 analogies (never
    sharing a word with the query), so a `limit`ed run sees the same prompts as the full one
    for its items. Word vectors default to the paper's baseline (`scan-paper`); an item the
    model cannot take counts as a miss, as in the paper."""
    located = locate_scan(data)
    items = parse_scan(located.read_text(encoding="utf-8"), str(located))
    chosen = select(items, types=types, limit=limit)
    if model.supports("analogy") and method is None:
        method = SCAN_VECTOR_METHOD
    kind, method = request_kind_for(model, method)
    config = {
        "source": str(data) if data else "packaged",
        "file_sha256": sha256_file(located),
        "limit": limit,
        **({"limit_per": "mapping"} if limit is not None else {}),
        "types": list(types) if types else list(SCAN_TYPES),
    }
    return ScanBenchmark(
        name="scan",
        dataset=chosen,
        request_kind=kind,
        shots=shots,
        seed=seed,
        method=method,
        oov_policy="wrong",
        dataset_config=config,
        shot_pool=items,
    )


def run_scan(model: Any = "smollm2-135m", **options: Any) -> Any:
    """Evaluate one model on SCAN in one condition (`api.run("scan", ...)`)."""
    from lexbench import api

    return api.run("scan", model, **options)
