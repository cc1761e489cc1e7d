"""Take generated benchmarks into other tools.

* `write_hf_dataset`: Hugging Face `datasets` layout: one parquet file per split under
  `data/`, and a dataset card (`README.md`) whose YAML header declares the files and whose
  body carries the generation manifest (seed, profile, WordNet version, content hash).
  `datasets.load_dataset("parquet", data_files=...)` or `load_dataset(DIR)` reads it.
* `write_parquet`: rows as one parquet file.

Each benchmark's own exports build on these (`lexbench.benchmarks.lambda_.export`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def write_parquet(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not rows:
        raise ValueError(f"no rows to write to {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([dict(r) for r in rows])
    pq.write_table(table, path)


def _card(
    name: str, splits: Mapping[str, int], manifest: Mapping[str, Any], description: str
) -> str:
    yaml_files = "\n".join(
        f"      - split: {split}\n        path: data/{split}.parquet" for split in splits
    )
    rows = "\n".join(f"| {split} | {count} |" for split, count in splits.items())
    return (
        f"---\nconfigs:\n  - config_name: default\n    data_files:\n{yaml_files}\n"
        f"pretty_name: {name}\nlicense: other\n---\n\n# {name}\n\n{description}\n\n"
        f"| split | rows |\n|---|---:|\n{rows}\n\n## Generation manifest\n\n"
        f"```json\n{json.dumps(manifest, indent=2, sort_keys=True)}\n```\n"
    )


def write_hf_dataset(
    out_dir: str | Path,
    splits: Mapping[str, Sequence[Mapping[str, Any]]],
    manifest: Mapping[str, Any],
    *,
    name: str,
    description: str,
) -> Path:
    """Write `splits` ({split: rows}) as parquet plus a dataset card; returns the folder."""
    out = Path(out_dir)
    if not splits:
        raise ValueError("write_hf_dataset needs at least one split")
    for split, rows in splits.items():
        write_parquet(rows, out / "data" / f"{split}.parquet")
    (out / "README.md").write_text(
        _card(name, {s: len(r) for s, r in splits.items()}, manifest, description), encoding="utf-8"
    )
    (out / "lexbench-manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    )
    return out
