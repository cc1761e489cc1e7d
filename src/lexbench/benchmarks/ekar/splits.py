"""Where E-KAR's split files come from: a local folder (its file names per version, split and
mode) or the Hugging Face Hub (downloaded once, checked, cached), and the loaded split with
the sha256 of the file it read.

The Hub publishes E-KAR as `jiangjiechen/ekar_english` and `jiangjiechen/ekar_chinese`
(AFL-3.0): `train.json`, `validation.json` and `test.json` (v1.1, the `main` branch; the
paper's v1.0 lives on the `v1.0` branch, where the label-free test file is
`test_blind.json`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.benchmarks.ekar.data import LANGUAGES, SPLITS, EkarItem
from lexbench.benchmarks.ekar.files import is_blind_file, read_split
from lexbench.datasets.fetch import DownloadError, fetch, sha256_of

HUB_REPOSITORIES = {"en": "jiangjiechen/ekar_english", "zh": "jiangjiechen/ekar_chinese"}


DEFAULT_ENDPOINT = "https://huggingface.co"


# Dataset versions by name. v1.1 is the `main` branch, v1.0 (the paper's numbers) the `v1.0`
# branch. A branch can move: pass a 40-hex commit id as the revision to pin one exactly;
# every run records the sha256 of the files it read either way.
VERSIONS = {"v1.1": "main", "v1.0": "v1.0"}


def split_file_names(split: str, revision: str = "main", mode: str = "hard") -> tuple[str, ...]:
    """File names that may hold `split`, the one to use first.

    v1.1 (main) has a labelled `test.json`. v1.0 has `test_blind.json` and, for EASY mode,
    `test_easy_blind.json` (the same items plus each query's explanation); EASY mode never
    picks `test_blind.json`, which has no explanation to give.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    if mode not in ("hard", "easy"):
        raise ValueError(f"unknown mode {mode!r}; choose from hard, easy")
    if split != "test":
        return (f"{split}.json",)
    if mode == "easy":
        return (
            ("test_easy_blind.json", "test.json")
            if revision == "v1.0"
            else ("test.json", "test_easy_blind.json")
        )
    return (
        ("test_blind.json", "test_easy_blind.json", "test.json")
        if revision == "v1.0"
        else ("test.json", "test_blind.json", "test_easy_blind.json")
    )


def find_split_file(folder: str | Path, split: str, mode: str = "hard") -> Path:
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(
            f"E-KAR --data {folder}: is a file, where a folder is expected (one holding "
            "train.json, validation.json and test.json in the Hub's layout)"
        )
    if not folder.is_dir():
        raise FileNotFoundError(f"E-KAR data folder {folder} does not exist")
    names = split_file_names(split, mode=mode)
    for name in names:
        if (folder / name).is_file():
            return folder / name
    hint = (
        " (test_blind.json has no query explanations: EASY mode needs test.json or "
        "v1.0's test_easy_blind.json)"
        if mode == "easy" and (folder / "test_blind.json").is_file()
        else ""
    )
    raise FileNotFoundError(
        f"{folder} has no file for split {split!r} in {mode.upper()} mode "
        f"(looked for {', '.join(names)}){hint}"
    )


def hub_url(language: str, file_name: str, revision: str, endpoint: str | None = None) -> str:
    """The Hub's resolve URL for one file; `endpoint` (or $HF_ENDPOINT) replaces the host."""
    base = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")
    return f"{base}/datasets/{HUB_REPOSITORIES[language]}/resolve/{revision}/{file_name}"


def resolve_revision(version_or_revision: str) -> str:
    """ "v1.1" -> "main", "v1.0" -> "v1.0"; anything else (a branch, a commit id) as given."""
    return VERSIONS.get(version_or_revision, version_or_revision)


def download_split(
    language: str,
    split: str,
    *,
    revision: str = "v1.1",
    endpoint: str | None = None,
    timeout: float = 60.0,
    mode: str = "hard",
) -> Path:
    """The cached copy of one split's file from the Hub, downloading it once.

    No sha256 is known in advance for these files (they are not mirrored anywhere we could
    hash them from), so `fetch` runs unchecked; the file's sha256 is recorded in every run's
    config instead. A revision that is a branch is cached under its name: pass a commit id
    to pin the content exactly.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose from {', '.join(LANGUAGES)}")
    ref = resolve_revision(revision)
    safe_ref = re.sub(r"[^A-Za-z0-9._-]+", "-", ref)
    names = split_file_names(split, ref, mode)
    errors = []
    for name in names:
        try:
            return fetch(
                hub_url(language, name, ref, endpoint),
                sha256=None,
                name=f"ekar/{LANGUAGES[language]}/{safe_ref}/{name}",
                timeout=timeout,
            )
        except RuntimeError as error:
            errors.append(str(error))
    raise DownloadError(
        f"could not download E-KAR {language} {split} at revision {ref!r}: "
        + " | ".join(errors)
        + " -- or pass a local folder of "
        "train.json/validation.json/test.json with --data"
    )


@dataclass(frozen=True)
class LoadedSplit:
    items: list[EkarItem]
    path: Path
    sha256: str
    source: str  # "local" or the revision it was downloaded at

    @property
    def blind(self) -> bool:
        return is_blind_file(self.path)


def load_split(
    language: str,
    split: str,
    *,
    data: str | Path | None = None,
    revision: str = "v1.1",
    endpoint: str | None = None,
    mode: str = "hard",
) -> LoadedSplit:
    """Items of one split: from `data` (a folder in the Hub's layout) or downloaded. `mode`
    picks v1.0's test file (EASY mode reads test_easy_blind.json)."""
    if data is not None:
        path = find_split_file(data, split, mode)
        source = "local"
    else:
        path = download_split(language, split, revision=revision, endpoint=endpoint, mode=mode)
        source = f"{HUB_REPOSITORIES[language]}@{resolve_revision(revision)}"
    return LoadedSplit(
        items=read_split(path, language), path=path, sha256=sha256_of(path), source=source
    )


def training_data(
    data: str | Path | None,
    language: str,
    revision: str,
    unit: str,
    **splits: tuple[str, LoadedSplit, int],
) -> dict[str, Any]:
    """What a fine-tune's lineage records of the E-KAR data it read: the local folder (with
    the sha256 of its files) or the Hub revision, and per role (`train=`, `validation=`:
    (split name, the loaded split, count)) the split, its file's sha256 and how many
    `unit`s ("items", "examples") it gave."""
    from lexbench.finetune.lineage import path_sha256

    first = next(iter(splits.values()))[1]
    return {
        "source": str(data) if data else first.source,
        "language": language,
        "sha256": path_sha256(data) if data else None,
        **{
            role: {"split": name, "file_sha256": loaded.sha256, unit: count}
            for role, (name, loaded, count) in splits.items()
        },
        "revision": None if data else revision,
    }
