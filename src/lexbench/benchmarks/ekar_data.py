"""E-KAR data: the relation taxonomy, the item type, and loading (local folder or the Hub).

The Hub publishes E-KAR as `jiangjiechen/ekar_english` and `jiangjiechen/ekar_chinese`
(AFL-3.0): `train.json`, `validation.json` and `test.json` (v1.1, the `main` branch; the
paper's v1.0 lives on the `v1.0` branch, where the label-free test file is
`test_blind.json`). One row:

    {"id": "982f17-en", "question": "plant:coal",
     "choices": {"label": ["A", "B", "C", "D"],
                 "text": ["white wine:aged vinegar", "starch:corn", "milk:yogurt",
                          "pickled cabbage:cabbage"]},
     "answerKey": "C",
     "explanation": ["<query's>", "<A's>", "<B's>", "<C's>", "<D's>"],
     "relation": [[["plant", "coal", "R3.7"]], [["white wine", "aged vinegar", "R2.4"]],
                  [["corn", "starch", "R3.7"]], [["milk", "yogurt", "R3.7"]],
                  [["cabbage", "pickled cabbage", "R3.7"]]]}

`relation` holds, for the query and then each candidate, a list of [term, term, code]
triples (a 3-term tuple has several). The dataset card shows exactly this nesting; a
single flat triple per tuple is accepted too. A file may be one JSON array or JSON lines:
both are read.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.datasets.fetch import fetch, sha256_of

LANGUAGES = {"en": "english", "zh": "chinese"}
SPLITS = ("train", "validation", "test")
HUB_REPOSITORIES = {"en": "jiangjiechen/ekar_english", "zh": "jiangjiechen/ekar_chinese"}
DEFAULT_ENDPOINT = "https://huggingface.co"
# Dataset versions by name. v1.1 is the `main` branch, v1.0 (the paper's numbers) the `v1.0`
# branch. A branch can move: pass a 40-hex commit id as the revision to pin one exactly;
# every run records the sha256 of the files it read either way.
VERSIONS = {"v1.1": "main", "v1.0": "v1.0"}
LABELS = ("A", "B", "C", "D")

# The E-KAR relation taxonomy: five meta-relations, each an ordered list of sub-relations;
# code "R3.7" is the 7th sub-relation of R3. The order follows the paper's taxonomy; the
# dataset card's example confirms R2.4 = juxtaposition_to ("white wine", "aged vinegar":
# both are brewed) and R3.7 = made_of ("plant", "coal").
META_RELATIONS: dict[str, str] = {
    "R1": "semantic",
    "R2": "extension",
    "R3": "intension",
    "R4": "grammar",
    "R5": "association",
}
SUB_RELATIONS: dict[str, tuple[str, ...]] = {
    "R1": ("synonym_of", "antonym_of"),
    "R2": ("identical_to", "is_a", "part_of", "juxtaposition_to", "contradictory_to",
           "contrary_to", "intersection_to", "utterly_different"),
    "R3": ("attribute_of", "probabilistic_attribute", "has_function", "metaphor",
           "takes_place_in", "located_in", "made_of", "tool_of", "target_of", "corresponds_to"),
    "R4": ("subject-predicate", "verb-object", "head-modifier", "subject-object"),
    "R5": ("result_of", "follow", "sufficient_to", "necessary_to"),
}
RELATION_NAMES: dict[str, str] = {
    f"{meta}.{number}": name
    for meta, names in SUB_RELATIONS.items() for number, name in enumerate(names, 1)
}
_CODE = re.compile(r"^(R[1-5])\.(\d+)$")
_TERM_SEPARATOR = re.compile(r"\s*[:：]\s*")
UNKNOWN_RELATION = "unknown"


def relation_name(code: str) -> str:
    """"R3.7" -> "made_of"; a clear error for codes outside the taxonomy."""
    try:
        return RELATION_NAMES[code]
    except KeyError:
        raise ValueError(f"unknown E-KAR relation code {code!r}; codes run R1.1-R1.2, R2.1-R2.8, "
                         f"R3.1-R3.10, R4.1-R4.4, R5.1-R5.4") from None


def meta_relation(code: str) -> str:
    """"R3.7" -> "R3"."""
    match = _CODE.match(code)
    if match is None or code not in RELATION_NAMES:
        relation_name(code)  # raises with the full message
    return code.split(".")[0]


@dataclass(frozen=True)
class Relation:
    """One annotated relation between two terms of a tuple."""

    head: str
    tail: str
    code: str

    @property
    def name(self) -> str:
        return relation_name(self.code)

    @property
    def meta(self) -> str:
        return meta_relation(self.code)

    def to_list(self) -> list[str]:
        return [self.head, self.tail, self.code]


@dataclass(frozen=True)
class EkarItem:
    """One E-KAR problem. `answer` is None on a label-free (blind) test split;
    `explanations` and `relations` are empty when the file carries none."""

    id: str
    language: str
    query: tuple[str, ...]
    choices: tuple[tuple[str, ...], ...]
    labels: tuple[str, ...]
    answer: str | None
    explanations: tuple[str, ...] = ()
    relations: tuple[tuple[Relation, ...], ...] = ()

    @property
    def terms(self) -> int:
        """2 or 3: the number of terms in the query."""
        return len(self.query)

    @property
    def query_relations(self) -> tuple[Relation, ...]:
        return self.relations[0] if self.relations else ()

    @property
    def relation_code(self) -> str:
        """The query's first annotated relation: the item's relation for the per-relation
        tables (a 3-term query may carry several; all are kept in `relations`)."""
        return self.query_relations[0].code if self.query_relations else UNKNOWN_RELATION

    @property
    def meta_relation(self) -> str:
        code = self.relation_code
        return code if code == UNKNOWN_RELATION else meta_relation(code)

    @property
    def query_explanation(self) -> str | None:
        return self.explanations[0] if self.explanations and self.explanations[0] else None

    @property
    def answer_index(self) -> int | None:
        return None if self.answer is None else self.labels.index(self.answer)

    def to_row(self) -> dict[str, Any]:
        """The Hub's row layout (what `parse_row` reads)."""
        row: dict[str, Any] = {
            "id": self.id, "question": ":".join(self.query),
            "choices": {"label": list(self.labels), "text": [":".join(c) for c in self.choices]},
            "answerKey": self.answer or "",
        }
        if self.explanations:
            row["explanation"] = list(self.explanations)
        if self.relations:
            row["relation"] = [[r.to_list() for r in group] for group in self.relations]
        return row


def split_terms(text: str) -> tuple[str, ...]:
    """"tea:teapot:teacup" -> ("tea", "teapot", "teacup"); full-width colons too."""
    terms = tuple(t.strip() for t in _TERM_SEPARATOR.split(text.strip()))
    if len(terms) < 2 or any(not t for t in terms):
        raise ValueError(f"expected 2 or more terms separated by ':', got {text!r}")
    return terms


def _parse_relation_group(value: Any, where: str) -> tuple[Relation, ...]:
    """A tuple's relations: [[w1, w2, code], ...] (the Hub) or one flat [w1, w2, code]."""
    if not isinstance(value, list):
        raise ValueError(f"{where}: a relation must be a list, got {value!r:.80}")
    if len(value) == 3 and all(isinstance(v, str) for v in value):
        value = [value]
    out = []
    for triple in value:
        if not (isinstance(triple, list) and len(triple) == 3 and all(isinstance(v, str) for v in triple)):
            raise ValueError(f"{where}: expected [term, term, code] triples, got {triple!r:.80}")
        head, tail, code = triple
        relation_name(code)
        out.append(Relation(head, tail, code))
    return tuple(out)


def parse_row(row: Mapping[str, Any], language: str, where: str = "row") -> EkarItem:
    """An `EkarItem` from one row of the Hub's files, with a clear error naming the problem."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose from {', '.join(LANGUAGES)}")
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: expected a JSON object, got {type(row).__name__}")
    missing = [key for key in ("id", "question", "choices") if key not in row]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    item_id = str(row["id"])
    where = f"{where} (id {item_id})"
    choices = row["choices"]
    if not (isinstance(choices, Mapping) and isinstance(choices.get("label"), list)
            and isinstance(choices.get("text"), list)):
        raise ValueError(f"{where}: 'choices' must be {{'label': [...], 'text': [...]}}")
    labels = tuple(str(label) for label in choices["label"])
    texts = choices["text"]
    if labels != LABELS or len(texts) != len(LABELS):
        raise ValueError(f"{where}: expected labels A-D with four texts, got {list(labels)} "
                         f"and {len(texts)} texts")
    query = split_terms(str(row["question"]))
    candidates = tuple(split_terms(str(t)) for t in texts)
    answer_key = str(row.get("answerKey") or "").strip()
    if answer_key and answer_key not in LABELS:
        raise ValueError(f"{where}: answerKey {answer_key!r} is not one of A-D")
    explanations = tuple(str(e) for e in (row.get("explanation") or []))
    if explanations and len(explanations) != 5:
        raise ValueError(f"{where}: expected 5 explanations (query, then A-D), got {len(explanations)}")
    relations_raw = row.get("relation") or []
    if relations_raw and len(relations_raw) != 5:
        raise ValueError(f"{where}: expected 5 relation entries (query, then A-D), got "
                         f"{len(relations_raw)}")
    relations = tuple(_parse_relation_group(group, f"{where} relation {i}")
                      for i, group in enumerate(relations_raw))
    return EkarItem(id=item_id, language=language, query=query, choices=candidates,
                    labels=labels, answer=answer_key or None, explanations=explanations,
                    relations=relations)


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a JSON array file or a JSON-lines file (whichever the file is)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8-sig")
    stripped = text.lstrip()
    if not stripped:
        raise ValueError(f"{path}: the file is empty")
    if stripped.startswith("["):
        try:
            rows = json.loads(stripped)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}: not a valid JSON array ({error.msg}, line {error.lineno})") from None
    else:
        # JSON lines; a single object spread over several lines also parses here.
        try:
            whole = json.loads(stripped)
            rows = [whole]
        except json.JSONDecodeError:
            rows = []
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}:{number}: neither a JSON array file nor valid JSON "
                                     f"lines ({error.msg})") from None
    if isinstance(rows, Mapping) or not isinstance(rows, list):
        raise ValueError(f"{path}: expected a list of rows")
    return rows


def split_file_names(split: str, revision: str = "main") -> tuple[str, ...]:
    """File names that may hold `split`, most likely first (v1.0's test is `test_blind.json`)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    if split != "test":
        return (f"{split}.json",)
    return ("test_blind.json", "test.json") if revision == "v1.0" else ("test.json", "test_blind.json")


def find_split_file(folder: str | Path, split: str) -> Path:
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"E-KAR data folder {folder} does not exist")
    for name in split_file_names(split):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"{folder} has no file for split {split!r} (looked for "
                            f"{', '.join(split_file_names(split))})")


def read_split(path: str | Path, language: str) -> list[EkarItem]:
    rows = read_rows(path)
    if not rows:
        raise ValueError(f"{path}: no items")
    items = [parse_row(row, language, where=f"{path}: row {i + 1}") for i, row in enumerate(rows)]
    counts = Counter(i.id for i in items)
    repeated = sorted(i for i, n in counts.items() if n > 1)
    if repeated:
        raise ValueError(f"{path}: item ids repeat: {repeated[:5]}")
    return items


def hub_url(language: str, file_name: str, revision: str, endpoint: str | None = None) -> str:
    """The Hub's resolve URL for one file; `endpoint` (or $HF_ENDPOINT) replaces the host."""
    base = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")
    return f"{base}/datasets/{HUB_REPOSITORIES[language]}/resolve/{revision}/{file_name}"


def resolve_revision(version_or_revision: str) -> str:
    """"v1.1" -> "main", "v1.0" -> "v1.0"; anything else (a branch, a commit id) as given."""
    return VERSIONS.get(version_or_revision, version_or_revision)


def download_split(language: str, split: str, *, revision: str = "v1.1",
                   endpoint: str | None = None, timeout: float = 60.0) -> Path:
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
    names = split_file_names(split, ref)
    errors = []
    for name in names:
        try:
            return fetch(hub_url(language, name, ref, endpoint), sha256=None,
                         name=f"ekar/{LANGUAGES[language]}/{safe_ref}/{name}", timeout=timeout)
        except RuntimeError as error:
            errors.append(str(error))
    raise RuntimeError(f"could not download E-KAR {language} {split} at revision {ref!r}: "
                       + " | ".join(errors) + " -- or pass a local folder of "
                       "train.json/validation.json/test.json with --data")


@dataclass(frozen=True)
class LoadedSplit:
    items: list[EkarItem]
    path: Path
    sha256: str
    source: str              # "local" or the revision it was downloaded at


def load_split(language: str, split: str, *, data: str | Path | None = None,
               revision: str = "v1.1", endpoint: str | None = None) -> LoadedSplit:
    """Items of one split: from `data` (a folder in the Hub's layout) or downloaded."""
    if data is not None:
        path = find_split_file(data, split)
        source = "local"
    else:
        path = download_split(language, split, revision=revision, endpoint=endpoint)
        source = f"{HUB_REPOSITORIES[language]}@{resolve_revision(revision)}"
    return LoadedSplit(items=read_split(path, language), path=path, sha256=sha256_of(path),
                       source=source)
