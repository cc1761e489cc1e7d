"""SCAN's BATS split: 70/15/15 by word pair, so no pair is in two splits.

The SCAN paper splits BATS into train, validation and test "ensuring that each word pair
appears in only one of them". Its code (taczin/SCAN_analogies, `create_strict_bats_split`)
does it per relation file: pandas `sample(frac=0.7, random_state=seed)` draws the training
pairs, `sample(frac=0.5, random_state=seed + 1)` draws the validation half of the rest, the
remainder is the test set (seed 101), and every ordered pair of distinct lines *within a
split* makes an analogy (first target of each line; a line's other targets are accepted
answers when it is the question's d). `paper_split` reproduces those draws exactly (numpy's
legacy `RandomState`, which pandas uses, and Python's `round` for the sizes: 50 pairs ->
35 / 8 / 7), so a split from the real BATS 3.0 has the members the paper's had.

    >>> sizes = split_sizes(50)
    >>> sizes
    (35, 8, 7)
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.analogies.sets import (
    Analogy,
    parse_pair_lines,
    questions_from_pairs,
)

PAPER_SPLIT_SEED = 101
TRAIN_FRACTION = 0.7
SPLITS = ("train", "validation", "test")

Pair = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class Relation:
    """One BATS relation file: its category folder, its name and its word pairs."""

    category: str
    name: str
    pairs: tuple[Pair, ...]


@dataclass(frozen=True)
class BatsSplit:
    """Pairs of each relation per split, and the analogies built within each split."""

    seed: int
    pairs: dict[str, dict[str, tuple[Pair, ...]]]  # split -> relation -> pairs
    analogies: dict[str, list[Analogy]]  # split -> analogies

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON of the pairs (what the data hash covers)."""
        return {
            "seed": self.seed,
            "pairs": {
                split: {rel: [[w, list(t)] for w, t in pairs] for rel, pairs in by_relation.items()}
                for split, by_relation in self.pairs.items()
            },
        }

    def counts(self) -> dict[str, dict[str, int]]:
        return {
            split: {
                "pairs": sum(len(p) for p in self.pairs[split].values()),
                "analogies": len(self.analogies[split]),
            }
            for split in SPLITS
        }


def read_relations(path: str | Path) -> list[Relation]:
    """The relation files of a BATS-layout zip or folder (category folders of
    `word1<TAB>word2[/alt...]` .txt files), sorted by category then name."""
    path = Path(path).expanduser()
    sources: list[tuple[str, str, str]] = []
    if path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                member = Path(info.filename)
                if (
                    info.is_dir()
                    or member.suffix != ".txt"
                    or member.name.startswith(".")
                    or "__MACOSX" in member.parts
                ):
                    continue
                sources.append(
                    (member.parent.name, member.name, _utf8(archive.read(info), f"{path}:{member}"))
                )
    elif path.is_dir():
        for file in sorted(path.rglob("*.txt")):
            if file.name.startswith("."):
                continue
            category = file.parent.name if file.parent != path else ""
            sources.append((category, file.name, _utf8(file.read_bytes(), str(file))))
    else:
        raise FileNotFoundError(f"no BATS zip or folder at {path}")
    if not sources:
        raise ValueError(
            f"{path}: no .txt relation files found (expected BATS's layout: "
            "category folders of 'word1<TAB>word2' files)"
        )
    relations = []
    for category, name, text in sorted(sources):
        pairs = tuple(parse_pair_lines(text, f"{path}:{category}/{name}"))
        if len(pairs) < 3:
            raise ValueError(
                f"{path}:{category}/{name}: a relation needs at least 3 pairs to "
                f"split three ways, found {len(pairs)}"
            )
        relations.append(Relation(category=category or name[:-4], name=name[:-4], pairs=pairs))
    names = [r.name for r in relations]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{path}: relation names repeat across folders: {repeated[:3]}")
    return relations


def _utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text") from None


def split_sizes(count: int) -> tuple[int, int, int]:
    """(train, validation, test) sizes as pandas' `sample(frac=...)` computes them."""
    train = round(TRAIN_FRACTION * count)
    validation = round(0.5 * (count - train))
    return train, validation, count - train - validation


def paper_split_positions(count: int, seed: int) -> dict[str, list[int]]:
    """Line positions of each split for a relation of `count` pairs: the paper code's two
    pandas draws (`RandomState(seed).choice`, then `RandomState(seed + 1).choice` over the
    rest in file order), each split then kept in file order."""
    import numpy as np

    train_size, validation_size, _ = split_sizes(count)
    train = np.random.RandomState(seed).choice(count, size=train_size, replace=False).tolist()
    rest = [i for i in range(count) if i not in set(train)]
    picked = np.random.RandomState(seed + 1).choice(len(rest), size=validation_size, replace=False)
    validation = [rest[i] for i in picked.tolist()]
    test = [i for i in rest if i not in set(validation)]
    return {"train": sorted(train), "validation": sorted(validation), "test": sorted(test)}


def paper_split(relations: Sequence[Relation], seed: int = PAPER_SPLIT_SEED) -> BatsSplit:
    """Split every relation's pairs 70/15/15 and build the analogies of each split."""
    pairs: dict[str, dict[str, tuple[Pair, ...]]] = {split: {} for split in SPLITS}
    analogies: dict[str, list[Analogy]] = {split: [] for split in SPLITS}
    for relation in relations:
        positions = paper_split_positions(len(relation.pairs), seed)
        for split in SPLITS:
            chosen = tuple(relation.pairs[i] for i in positions[split])
            pairs[split][relation.name] = chosen
            analogies[split].extend(
                questions_from_pairs(
                    chosen, relation=relation.name, kind=relation.category, prefix=f"{split}:"
                )
            )
    return BatsSplit(seed=seed, pairs=pairs, analogies=analogies)


def locate_bats_data(data: str | Path | None) -> Path:
    """The BATS zip or folder: the path given, or the public BATS 3.0 zip downloaded once
    (and checked file by file) by lexbench's own BATS loader."""
    if data is not None:
        path = Path(data).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"no BATS zip or folder at {path}")
        return path
    from lexbench.benchmarks.analogies.sets import load_bats
    from lexbench.datasets.fetch import cached_path

    load_bats(None)  # downloads and verifies BATS 3.0 into the cache when needed
    return cached_path("bats/BATS_3.0.zip")
