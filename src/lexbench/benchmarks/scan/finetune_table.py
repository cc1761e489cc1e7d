"""SCAN Table 4: MRR@10 on the BATS test split and on SCAN, before and after fine-tuning,
with the paper's significance test (two-sided, unpaired permutation, 10^6 resamples).

Both models answer the same lexbench `rank` requests ("If a is like b, then c is like", the
answer slot, "."; targets = the accepted answers), through any backend (`hf:`, `mlm:`, an
OpenAI-compatible server). Per item: the reciprocal rank of the first accepted answer in
the top 10 (0 beyond), SCAN's definition. Tests: the paper's unpaired permutation test of
the two models' reciprocal ranks (bold in the table), and, as lexbench adds, paired sign
flips of per-item differences and of whole mappings (BATS relation, SCAN concept mapping),
since items of one mapping are not independent.
The table goes to runs/finetune-scan-bats/<model>/<hash>/ with the lineage of the
fine-tuned model in config.json and report.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.sets import Analogy
from lexbench.benchmarks.scan.bats_split import locate_bats_data, paper_split, read_relations
from lexbench.benchmarks.scan.benchmark import load_scan
from lexbench.benchmarks.scan.finetune import TOP_K, template_parts
from lexbench.finetune.lineage import lineage_markdown, read_lineage
from lexbench.parts import fmt, p_text, shown
from lexbench.stats import paired_permutation_test, permutation_test
from lexbench.types import Request

COLUMNS = ("BATS test", "SCAN", "science", "metaphor")


def rank_requests(items: Sequence[Analogy]) -> list[Request]:
    out = []
    for item in items:
        prompt, suffix = template_parts(item.a, item.b, item.c)
        out.append(
            Request(
                id=item.id,
                kind="rank",
                prompt=prompt,
                answer_suffix=suffix,
                targets=item.accepted,
                top_k=TOP_K,
            )
        )
    return out


def reciprocal_ranks(
    model: Any,
    items: Sequence[Analogy],
    *,
    chunk: int = 256,
    progress: bool = True,
    label: str = "",
) -> list[float]:
    """Per item: 1 / rank of its first accepted answer among the model's top 10, else 0."""
    requests = rank_requests(items)
    out: list[float] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(requests), desc=label or model.name, dynamic_ncols=True)
    for start in range(0, len(requests), chunk):
        responses = model.rank(requests[start : start + chunk])
        for request, response in zip(requests[start : start + chunk], responses):
            if response.error is not None:
                raise RuntimeError(f"{model.name}: request {request.id} failed: {response.error}")
            if len(response.target_ranks) != len(request.targets):
                raise RuntimeError(
                    f"{model.name} returned no target ranks for {request.id}; "
                    "it cannot run this table"
                )
            ranks = [r for r in response.target_ranks if r is not None and r <= TOP_K]
            out.append(1.0 / min(ranks) if ranks else 0.0)
        if bar is not None:
            bar.update(len(responses))
    if bar is not None:
        bar.close()
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def paired_tests(
    before: Sequence[float],
    after: Sequence[float],
    items: Sequence[Analogy],
    *,
    resamples: int,
    seed: int,
    unpaired_resamples: int = 1_000_000,
) -> dict[str, Any]:
    """after − before: the paper's unpaired test, and lexbench's paired item-level and
    mapping-level ones."""
    unpaired = permutation_test(after, before, resamples=unpaired_resamples, seed=seed)
    item_test = paired_permutation_test(after, before, resamples=resamples, seed=seed)
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for item, b, a in zip(items, before, after):
        sums[item.mapping][0] += a
        sums[item.mapping][1] += b
    keys = sorted(sums)
    mapping_test = (
        paired_permutation_test(
            [sums[k][0] for k in keys], [sums[k][1] for k in keys], resamples=resamples, seed=seed
        )
        if len(keys) > 1
        else None
    )
    return {
        "n": len(items),
        "before": _mean(before),
        "after": _mean(after),
        "difference": item_test.statistic,
        "p_unpaired": unpaired.p_value,
        "unpaired_resamples": unpaired_resamples,
        "p_items": item_test.p_value,
        "mappings": len(keys),
        "p_mappings": mapping_test.p_value if mapping_test else None,
        "resamples": resamples,
    }


def group_columns(bats: Sequence[Analogy], scan: Sequence[Analogy]) -> dict[str, list[int]]:
    """Column -> positions in the combined list (BATS test items first, then SCAN)."""
    offset = len(bats)
    columns = {"BATS test": list(range(offset)), "SCAN": [offset + i for i in range(len(scan))]}
    for kind in ("science", "metaphor"):
        columns[kind] = [offset + i for i, item in enumerate(scan) if item.type == kind]
    return {name: positions for name, positions in columns.items() if positions}


def table_markdown(
    tests: Mapping[str, Mapping[str, Any]],
    before_name: str,
    after_name: str,
    lineage: Mapping[str, Any] | None,
) -> str:
    columns = list(tests)
    lines = [
        "# SCAN Table 4: MRR@10 before and after fine-tuning on BATS",
        "",
        "| model | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for label, key in ((before_name, "before"), (after_name, "after")):
        cells = []
        for column in columns:
            value = tests[column][key]
            p_unpaired = tests[column]["p_unpaired"]
            bold = key == "after" and p_unpaired is not None and p_unpaired < 0.05
            cells.append(f"**{fmt(value)}**" if bold else fmt(value))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        (
            "Bold: significant against the model before fine-tuning (the paper's "
            "two-sided unpaired permutation test, scipy's two-sided p, p < 0.05)."
        ),
        "",
        "| column | n | before | after | after − before | p (paper, unpaired) | "
        "p (paired items) | p (paired mappings) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for column, t in tests.items():
        lines.append(  # "n/a" where a test could not run (no mapping to flip, one item)
            f"| {column} | {t['n']} | {fmt(t['before'])} | {fmt(t['after'])} | "
            f"{shown(t['difference'], '+.3f')} | {p_text(t['p_unpaired'], '.2g')} | "
            f"{p_text(t['p_items'], '.2g')} | {p_text(t['p_mappings'], '.2g')} |"
        )
    first = next(iter(tests.values()))
    resamples = first["resamples"]
    lines += [
        "",
        (
            f"{first['unpaired_resamples']:,} resamples per unpaired test, {resamples:,} "
            f"per paired test; p (paired mappings) flips whole BATS relations "
            "or SCAN concept mappings at once."
        ),
        "",
    ]
    if lineage:
        lines.append(lineage_markdown(lineage))
    return "\n".join(lines) + "\n"


def scan_bats_table(
    tuned: str | Path,
    *,
    base: str | None = None,
    bats: str | Path | None = None,
    scan: str | Path | None = None,
    scan_limit: int | None = None,
    bats_limit: int | None = None,
    resamples: int = 100_000,
    seed: int = 0,
    unpaired_resamples: int = 1_000_000,
    out: str | Path = "runs",
    progress: bool = True,
) -> dict[str, Any]:
    """Evaluate the base model (from the lineage unless `base` is given) and the fine-tuned
    folder on the BATS test split (rebuilt from the lineage's data and split seed) and on
    SCAN; write and return {"folder", "report", "results"}."""
    from lexbench.benchmarks.scan.finetune import limit_items
    from lexbench.models.registry import load_model
    from lexbench.run.staging import write_run
    from lexbench.run.store import run_folder

    tuned = Path(tuned)
    lineage = read_lineage(tuned)
    if lineage is None or lineage.get("experiment") != "scan-bats":
        raise ValueError(
            f"{tuned} is not a scan-bats fine-tune (no lexbench-lineage.json "
            "with experiment scan-bats)"
        )
    base_spec = base or lineage["base_model"]["spec"]
    source = locate_bats_data(bats if bats is not None else lineage["data"]["source"])
    split = paper_split(read_relations(source), int(lineage["split_seed"]))
    bats_items = limit_items(split.analogies["test"], bats_limit, seed)
    scan_items = load_scan(scan)[:scan_limit] if scan_limit else load_scan(scan)
    items = bats_items + scan_items
    kind = lineage.get("model_kind", "hf")
    scores: dict[str, list[float]] = {}
    described: dict[str, Any] = {}
    for key, spec in (("before", base_spec), ("after", f"{kind}:{tuned}")):
        model = load_model(spec)
        try:
            described[key] = model.describe()
            scores[key] = reciprocal_ranks(
                model, items, progress=progress, label=f"{key}: {model.name}"
            )
        finally:
            model.close()
    tests = {
        column: paired_tests(
            [scores["before"][p] for p in positions],
            [scores["after"][p] for p in positions],
            [items[p] for p in positions],
            resamples=resamples,
            seed=seed,
            unpaired_resamples=unpaired_resamples,
        )
        for column, positions in group_columns(bats_items, scan_items).items()
    }
    config = {
        "benchmark": "finetune-scan-bats",
        "tuned": str(tuned.resolve()),
        "base": base_spec,
        "bats": str(source),
        "scan": str(scan) if scan else "download",
        "bats_items": len(bats_items),
        "scan_items": len(scan_items),
        "bats_limit": bats_limit,
        "scan_limit": scan_limit,
        "resamples": resamples,
        "unpaired_resamples": unpaired_resamples,
        "seed": seed,
        "models": described,
    }
    results = {"benchmark": "finetune-scan-bats", "tests": tests}
    samples = [
        {
            "id": item.id,
            "set": "bats-test" if i < len(bats_items) else "scan",
            "type": item.type,
            "mapping": item.mapping,
            "a": item.a,
            "b": item.b,
            "c": item.c,
            "accepted": list(item.accepted),
            "rr_before": scores["before"][i],
            "rr_after": scores["after"][i],
        }
        for i, item in enumerate(items)
    ]
    report = table_markdown(tests, f"{base_spec} (before)", f"{tuned.name} (after)", lineage)
    folder = run_folder(
        out,
        "finetune-scan-bats",
        tuned.name,
        {k: v for k, v in config.items() if k != "models"}
        | {"lineage_created": lineage.get("created")},
    )
    write_run(folder, config, samples, results, report)
    return {"folder": folder.path, "report": report, "results": results}
