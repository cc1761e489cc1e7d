"""SCAN: scientific and metaphorical cross-domain analogies (Czinczoll et al. 2022).

Each row of the dataset maps an attribute of a source concept onto one of a target concept
(solar system -> atom: sun -> nucleus). The model sees

    If atom is like solar system, then nucleus is like

and should continue with "sun" (`src_word`, or any of the row's `alternatives`). A masked LM
sees "... then nucleus is like [MASK]."; word vectors answer |b − a| + c (the paper's
baseline) or 3CosAdd and friends. Scoring, tables and comparisons are the shared ranking
machinery in `lexbench.benchmarks.analogies`: reciprocal rank of the first accepted answer
in the top 10, MRR@10, acc@1, recall@5, recall@10, overall/science/metaphor, with standard
errors clustered by concept mapping.

Data: 451 rows in 65 concept mappings (11 science, 54 metaphor). Rows that repeat a
(source, target, targ_word) triple are one analogy with several accepted answers, as in the
paper's code (the later row's src_word joins the first row's alternatives): 449 analogies.

    >>> items = load_scan("../shared/data/scan/SCAN_dataset.csv")       # doctest: +SKIP
    >>> len(items), len({i.mapping for i in items})                    # doctest: +SKIP
    (449, 65)
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies import (
    Analogy,
    RankAnalogyBenchmark,
    comparison_markdown,
    mrr_figure,
    paired_mrr_test,
    regime_of,
    report_markdown,
    run_ranking,
)

SCAN_URL = "https://raw.githubusercontent.com/taczin/SCAN_analogies/HEAD/data/SCAN_dataset.csv"
SCAN_SHA256 = "64fad80964c3584ad51930c70f031ede97938fa6dd716a42745ea8faa74d3c25"
SCAN_COLUMNS = ("target", "source", "targ_word", "src_word", "alternatives", "analogy_type")
SCAN_TYPES = ("science", "metaphor")
# The paper's GloVe baseline; other vector methods can be asked for with `method`.
SCAN_VECTOR_METHOD = "scan-paper"


def locate_scan(path: str | Path | None = None) -> Path:
    """The SCAN CSV: the path given, else the public file downloaded once (sha256-checked)."""
    if path is not None:
        located = Path(path).expanduser()
        if not located.is_file():
            raise FileNotFoundError(f"no SCAN dataset at {located}")
        return located
    from lexbench.datasets.fetch import fetch

    return fetch(SCAN_URL, sha256=SCAN_SHA256, name="scan/SCAN_dataset.csv")


def _split_alternatives(text: str) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def parse_scan(text: str, source: str = "SCAN_dataset.csv") -> list[Analogy]:
    """SCAN rows -> analogies (merging repeated (source, target, targ_word) triples).

    a = target, b = source, c = targ_word, d = src_word; type = analogy_type; mapping =
    "source -> target". Fields are stripped (the file has a few trailing spaces)."""
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in SCAN_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{source}: not the SCAN CSV (missing column(s) {', '.join(missing)}; "
                         f"found {reader.fieldnames})")
    merged: dict[tuple[str, str, str], dict[str, Any]] = {}
    for number, row in enumerate(reader, 2):
        fields = {c: (row.get(c) or "").strip() for c in SCAN_COLUMNS}
        for required in ("target", "source", "targ_word", "src_word", "analogy_type"):
            if not fields[required]:
                raise ValueError(f"{source}:{number}: empty {required}")
        if fields["analogy_type"] not in SCAN_TYPES:
            raise ValueError(f"{source}:{number}: analogy_type {fields['analogy_type']!r} is not "
                             f"one of {', '.join(SCAN_TYPES)}")
        key = (fields["source"], fields["target"], fields["targ_word"])
        if key in merged:
            first = merged[key]
            if first["type"] != fields["analogy_type"]:
                raise ValueError(f"{source}:{number}: repeats {key} with another analogy_type")
            first["alternatives"] += [fields["src_word"], *_split_alternatives(fields["alternatives"])]
            continue
        merged[key] = {"a": fields["target"], "b": fields["source"], "c": fields["targ_word"],
                       "d": fields["src_word"], "type": fields["analogy_type"],
                       "alternatives": _split_alternatives(fields["alternatives"])}
    if not merged:
        raise ValueError(f"{source}: no SCAN rows")
    items = []
    for number, row in enumerate(merged.values()):
        alternatives = tuple(w for w in dict.fromkeys(row["alternatives"]) if w != row["d"])
        items.append(Analogy(id=f"scan-{number:03d}", a=row["a"], b=row["b"], c=row["c"],
                             d=row["d"], alternatives=alternatives, type=row["type"],
                             mapping=f"{row['b']} -> {row['a']}"))
    return items


def load_scan(path: str | Path | None = None) -> list[Analogy]:
    """The 449 SCAN analogies from a path, or from the public source (downloaded, checked)."""
    located = locate_scan(path)
    return parse_scan(located.read_text(encoding="utf-8"), str(located))


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
        return report_markdown(results, title=f"SCAN ({self.regime}, {shots}-shot)")

    def summarize(self, items: Sequence[Analogy], scores: Sequence[Any]) -> dict[str, Any]:
        results = super().summarize(items, scores)
        results["shots"] = self.shots
        results["regime"] = self.regime
        results["method"] = self.method
        return results

    def figures(self, results: Mapping[str, Any], folder: Path) -> list[Path]:
        return [mrr_figure(folder / "figures" / "mrr_by_type.png", {"": results},
                           title=f"SCAN MRR@10 by type ({self.shots}-shot)")]


def select(items: Sequence[Analogy], *, types: Sequence[str] | None = None,
           limit: int | None = None) -> list[Analogy]:
    """Items of the given types; with `limit`, the first N (file order)."""
    chosen = list(items)
    if types:
        unknown = [t for t in types if t not in SCAN_TYPES]
        if unknown:
            raise ValueError(f"unknown SCAN type(s) {unknown}; choose from {', '.join(SCAN_TYPES)}")
        chosen = [i for i in chosen if i.type in types]
    if limit is not None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        chosen = chosen[:limit]
    return chosen


def run_scan(model: Any = "smollm2-135m", *, data: str | Path | None = None, shots: int = 0,
             seed: int = 0, limit: int | None = None, types: Sequence[str] | None = None,
             method: str | None = None, model_options: Mapping[str, Any] | None = None,
             out: str | Path = "runs", cache: Any = None, progress: bool = True) -> Any:
    """Evaluate one model on SCAN in one condition; returns the `Evaluation`.

    Shots are drawn from all 449 analogies (never sharing a word with the query), so a
    `limit`ed run sees the same prompts as the full one for its items."""
    from lexbench.models.base import Model
    from lexbench.models.registry import load_model

    located = locate_scan(data)
    items = parse_scan(located.read_text(encoding="utf-8"), str(located))
    chosen = select(items, types=types, limit=limit)
    backend = model if isinstance(model, Model) else load_model(model, model_options)
    config = {"source": str(located), "file_sha256": file_sha256(located), "limit": limit,
              "types": list(types) if types else list(SCAN_TYPES)}
    if regime_of(backend) == "vectors":
        method = method or SCAN_VECTOR_METHOD
    return run_ranking("scan", chosen, backend, shots=shots, seed=seed, method=method,
                       oov_policy="wrong", dataset_config=config, out=out, cache=cache,
                       progress=progress, benchmark_factory=ScanBenchmark, shot_pool=items)


def condition_label(model_name: str, shots: int, regime: str, method: str | None) -> str:
    if regime == "vectors":
        return f"{model_name} ({method})"
    return f"{model_name} {shots}-shot"


def compare_scan(model: Any = "smollm2-135m", *, shots: Sequence[int] = (0, 1),
                 baseline: Any = None, baseline_method: str | None = None,
                 data: str | Path | None = None, seed: int = 0, limit: int | None = None,
                 types: Sequence[str] | None = None, model_options: Mapping[str, Any] | None = None,
                 baseline_options: Mapping[str, Any] | None = None, resamples: int = 100_000,
                 out: str | Path = "runs", cache: Any = None, progress: bool = True) -> dict[str, Any]:
    """Run the model in each shot condition (and the baseline), then write one combined
    report with paired permutation tests between every pair of conditions.

    Each condition keeps its own ordinary run folder (so `lexbench compare` works on any two);
    the combined report goes to runs/scan-comparison/<model>/<hash>/ (report.md,
    results.json, config.json, figures/mrr_by_type.png). Returns {"folder", "report",
    "results"}."""
    from lexbench.models.base import Model
    from lexbench.models.registry import load_model
    from lexbench.run.store import read_run, run_folder, write_json

    if not shots:
        raise ValueError("compare_scan needs at least one shot condition")
    if len(set(shots)) != len(shots):
        raise ValueError(f"shot conditions repeat: {list(shots)}")
    backend = model if isinstance(model, Model) else load_model(model, model_options)
    runs: dict[str, Any] = {}
    for k in shots:
        evaluation = run_scan(backend, data=data, shots=k, seed=seed, limit=limit, types=types,
                              out=out, cache=cache, progress=progress)
        runs[condition_label(backend.name, k, regime_of(backend), None)] = evaluation
    if baseline is not None:
        base = baseline if isinstance(baseline, Model) else load_model(baseline, baseline_options)
        evaluation = run_scan(base, data=data, shots=0, seed=seed, limit=limit, types=types,
                              method=baseline_method, out=out, cache=cache, progress=progress)
        label = condition_label(base.name, 0, regime_of(base), evaluation.results.get("method"))
        if label in runs:
            raise ValueError(f"the baseline {label!r} is one of the model's own conditions")
        runs[label] = evaluation
    samples = {label: read_run(e.folder.path)[1] for label, e in runs.items()}
    labels = list(runs)
    tests: dict[str, Any] = {}
    for i, first in enumerate(labels):
        for second in labels[i + 1:]:
            tests[f"{first} vs {second}"] = paired_mrr_test(samples[first], samples[second],
                                                            resamples=resamples, seed=seed)
    conditions = {label: e.results for label, e in runs.items()}
    folders = {label: str(e.folder.path) for label, e in runs.items()}
    config = {"benchmark": "scan-comparison", "conditions": folders, "resamples": resamples,
              "seed": seed, "shots": list(shots), "limit": limit,
              "types": list(types) if types else list(SCAN_TYPES),
              "configs": {label: json.loads(Path(e.folder.config_path).read_text())
                          for label, e in runs.items()}}
    target = run_folder(out, "scan-comparison", backend.name,
                        {"runs": folders, "resamples": resamples, "seed": seed})
    results = {"benchmark": "scan-comparison", "conditions": conditions, "tests": tests,
               "folders": folders}
    report = comparison_markdown(f"SCAN: {', '.join(labels)}", conditions, tests, folders)
    write_json(target.config_path, config)
    write_json(target.results_path, results)
    target.report_path.write_text(report, encoding="utf-8")
    mrr_figure(target.path / "figures" / "mrr_by_type.png", conditions,
               title="SCAN MRR@10 by type")
    return {"folder": target.path, "report": report, "results": results}
