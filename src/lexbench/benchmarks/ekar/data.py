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
triples (a 3-term tuple has several; a query may carry two codes, e.g. R3.8 and R3.9). The
dataset card shows exactly this nesting; a single flat triple per tuple is accepted too, and
a candidate's list may be empty (the paper annotates 76% of candidates). The Hub's files
are JSON lines; one JSON array is read too.

Labelled and blind files. `train.json`, `validation.json` and v1.1's `test.json` are
labelled: a row whose `answerKey` is missing, null or empty is an error naming the file and
the row. v1.0's test files are label-free and say so in their names: `test_blind.json`
(HARD mode) and `test_easy_blind.json` (EASY mode), which carries the query's explanation
only -- as a one-element list, a string, or five entries whose candidate ones are empty.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LANGUAGES = {"en": "english", "zh": "chinese"}
SPLITS = ("train", "validation", "test")
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
    "R2": (
        "identical_to",
        "is_a",
        "part_of",
        "juxtaposition_to",
        "contradictory_to",
        "contrary_to",
        "intersection_to",
        "utterly_different",
    ),
    "R3": (
        "attribute_of",
        "probabilistic_attribute",
        "has_function",
        "metaphor",
        "takes_place_in",
        "located_in",
        "made_of",
        "tool_of",
        "target_of",
        "corresponds_to",
    ),
    "R4": ("subject-predicate", "verb-object", "head-modifier", "subject-object"),
    "R5": ("result_of", "follow", "sufficient_to", "necessary_to"),
}
RELATION_NAMES: dict[str, str] = {
    f"{meta}.{number}": name
    for meta, names in SUB_RELATIONS.items()
    for number, name in enumerate(names, 1)
}
_CODE = re.compile(r"^(R[1-5])\.(\d+)$")
_TERM_SEPARATOR = re.compile(r"\s*[:：]\s*")
UNKNOWN_RELATION = "unknown"


def relation_name(code: str) -> str:
    """ "R3.7" -> "made_of"; a clear error for codes outside the taxonomy."""
    try:
        return RELATION_NAMES[code]
    except KeyError:
        raise ValueError(
            f"unknown E-KAR relation code {code!r}; codes run R1.1-R1.2, R2.1-R2.8, "
            f"R3.1-R3.10, R4.1-R4.4, R5.1-R5.4"
        ) from None


def meta_relation(code: str) -> str:
    """ "R3.7" -> "R3"."""
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


def limit_stratum(item: EkarItem) -> str:
    """What `--limit N` keeps N of: the query's first meta-relation ("R3"; "unknown" when
    the query carries no annotation)."""
    return item.query_meta_relations[0]


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
    def query_relation_codes(self) -> tuple[str, ...]:
        """Every distinct relation code annotated for the query, in annotation order
        (("R3.8", "R3.9") for a query annotated with both); ("unknown",) when none is.
        The per-relation tables count the item once under each."""
        codes = tuple(dict.fromkeys(r.code for r in self.query_relations))
        return codes or (UNKNOWN_RELATION,)

    @property
    def query_meta_relations(self) -> tuple[str, ...]:
        """The distinct meta-relations of `query_relation_codes` ("R3", ...)."""
        return tuple(
            dict.fromkeys(
                c if c == UNKNOWN_RELATION else meta_relation(c) for c in self.query_relation_codes
            )
        )

    @property
    def relation_code(self) -> str:
        """The query's first annotated relation (a label for one-line displays; the tables
        use every code in `query_relation_codes`)."""
        return self.query_relation_codes[0]

    @property
    def meta_relation(self) -> str:
        """The meta-relation of `relation_code`."""
        return self.query_meta_relations[0]

    @property
    def query_explanation(self) -> str | None:
        return self.explanations[0] if self.explanations and self.explanations[0] else None

    @property
    def answer_index(self) -> int | None:
        return None if self.answer is None else self.labels.index(self.answer)

    def to_row(self) -> dict[str, Any]:
        """The Hub's row layout (what `parse_row` reads)."""
        row: dict[str, Any] = {
            "id": self.id,
            "question": ":".join(self.query),
            "choices": {"label": list(self.labels), "text": [":".join(c) for c in self.choices]},
            "answerKey": self.answer or "",
        }
        if self.explanations:
            row["explanation"] = list(self.explanations)
        if self.relations:
            row["relation"] = [[r.to_list() for r in group] for group in self.relations]
        return row


def split_terms(text: str) -> tuple[str, ...]:
    """ "tea:teapot:teacup" -> ("tea", "teapot", "teacup"); full-width colons too."""
    terms = tuple(t.strip() for t in _TERM_SEPARATOR.split(text.strip()))
    if len(terms) < 2 or any(not t for t in terms):
        raise ValueError(f"expected 2 or more terms separated by ':', got {text!r:.120}")
    return terms


def _parse_relation_group(value: Any, where: str) -> tuple[Relation, ...]:
    """A tuple's relations: [[w1, w2, code], ...] (the Hub), one flat [w1, w2, code], or []."""
    if not isinstance(value, list):
        raise ValueError(f"{where}: a relation must be a list, got {value!r:.80}")
    if len(value) == 3 and all(isinstance(v, str) for v in value):
        value = [value]
    out = []
    for triple in value:
        if not (
            isinstance(triple, list)
            and len(triple) == 3
            and all(isinstance(v, str) for v in triple)
        ):
            raise ValueError(f"{where}: expected [term, term, code] triples, got {triple!r:.80}")
        head, tail, code = triple
        if code not in RELATION_NAMES:
            raise ValueError(
                f"{where}: unknown E-KAR relation code {code!r} in "
                f"{triple!r:.80}; codes run R1.1-R1.2, R2.1-R2.8, R3.1-R3.10, "
                f"R4.1-R4.4, R5.1-R5.4"
            )
        out.append(Relation(head, tail, code))
    return tuple(out)


def _text(value: Any, what: str, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(
            f"{where}: {what} must be a string, got {type(value).__name__} {value!r:.60}"
        )
    return value


def _explanations(value: Any, where: str, blind: bool) -> tuple[str, ...]:
    """() when absent; five strings (query, then A-D); in a blind file also the query's
    explanation alone (a string or a one-element list), kept as a 1-tuple."""
    if value is None or value == [] or value == "":
        return ()
    if blind and isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(e, str) for e in value):
        raise ValueError(f"{where}: 'explanation' must be a list of strings, got {value!r:.80}")
    if blind and len(value) == 1:
        return (value[0],)
    if len(value) != 5:
        allowed = "1 (the query's, in a blind file) or 5" if blind else "5"
        raise ValueError(
            f"{where}: expected {allowed} explanations (query, then A-D), got {len(value)}"
        )
    if blind and not any(value[1:]):
        return (value[0],)
    return tuple(value)


def parse_row(
    row: Mapping[str, Any], language: str, where: str = "row", *, blind: bool = False
) -> EkarItem:
    """An `EkarItem` from one row of the Hub's files, with a clear error naming the problem.

    `blind` rows (v1.0's test_blind.json / test_easy_blind.json) may lack the answer; in
    any other file a missing, null or empty `answerKey` is an error.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose from {', '.join(LANGUAGES)}")
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: expected a JSON object, got {type(row).__name__} {row!r:.60}")
    missing = [key for key in ("id", "question", "choices") if key not in row]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    if not isinstance(row["id"], (str, int)) or isinstance(row["id"], bool):
        raise ValueError(f"{where}: 'id' must be a string, got {row['id']!r:.60}")
    item_id = str(row["id"])
    where = f"{where} (id {item_id})"
    choices = row["choices"]
    if not (
        isinstance(choices, Mapping)
        and isinstance(choices.get("label"), list)
        and isinstance(choices.get("text"), list)
    ):
        raise ValueError(f"{where}: 'choices' must be {{'label': [...], 'text': [...]}}")
    labels = tuple(str(label) for label in choices["label"])
    texts = choices["text"]
    if labels != LABELS or len(texts) != len(LABELS):
        raise ValueError(
            f"{where}: expected labels A-D with four texts, got {list(labels)!r:.60} "
            f"and {len(texts)} texts"
        )
    try:
        query = split_terms(_text(row["question"], "'question'", where))
        candidates = tuple(split_terms(_text(t, "a choice text", where)) for t in texts)
    except ValueError as error:
        raise ValueError(
            f"{where}: {error}" if not str(error).startswith(where) else str(error)
        ) from None
    answer = _answer_key(row, where, blind)
    explanations = _explanations(row.get("explanation"), where, blind)
    relations_raw = row.get("relation") or []
    if not isinstance(relations_raw, list):
        raise ValueError(f"{where}: 'relation' must be a list, got {relations_raw!r:.60}")
    if relations_raw and len(relations_raw) != 5:
        raise ValueError(
            f"{where}: expected 5 relation entries (query, then A-D), got {len(relations_raw)}"
        )
    relations = tuple(
        _parse_relation_group(group, f"{where} relation {i}")
        for i, group in enumerate(relations_raw)
    )
    return EkarItem(
        id=item_id,
        language=language,
        query=query,
        choices=candidates,
        labels=labels,
        answer=answer,
        explanations=explanations,
        relations=relations,
    )


def _answer_key(row: Mapping[str, Any], where: str, blind: bool) -> str | None:
    value = row.get("answerKey")
    if value is None or (isinstance(value, str) and not value.strip()):
        if blind:
            return None
        state = "missing" if "answerKey" not in row else ("null" if value is None else "empty")
        raise ValueError(
            f"{where}: answerKey is {state}, but this is a labelled split (only "
            f"v1.0's test_blind.json / test_easy_blind.json are label-free)"
        )
    if not isinstance(value, str) or value.strip() not in LABELS:
        raise ValueError(f"{where}: answerKey {value!r:.40} is not one of A-D")
    return value.strip()
