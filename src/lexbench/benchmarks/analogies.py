"""Completion analogies (a : b :: c : ?) ranked by a model: Google, BATS and word-pair files,
plus the machinery SCAN shares with them (items, prompts, scoring, tables, comparisons).

One item is an `Analogy`: a, b, c, the gold d, further accepted answers, a `type` (the table's
rows: SCAN's science/metaphor, Google's semantic/syntactic, BATS's four folders) and a
`mapping` (the cluster standard errors are computed over: SCAN's concept mapping, Google's
section, BATS's sub-relation).

How a model answers depends on what it is (`regime_of`):

* causal LM: a `rank` request for "If a is like b, then c is like" and the model's top-k next
  tokens; the item is scored on token ids: the first id of " " + answer (the tokenizer's
  leading-space convention), never on decoded string pieces;
* masked LM (it has `mask_placeholder`): "If a is like b, then c is like [MASK]." ranked at
  the mask; the same token-id rule;
* word vectors (they have `analogy()`): a `rank` request carrying an `AnalogyQuery`; answers
  are whole vocabulary words, compared case-insensitively when the model is.

Score per item: the reciprocal rank of the first accepted answer in the top k (0 when absent),
acc@1, and recall@5/@10 as the SCAN paper defines it (the share of the distinct accepted
answers found in the top k). Tables give each metric overall and per type with standard
errors clustered by mapping.

Data: Google's questions-words.txt (gensim ships it; else downloaded from gensim's repository,
checked by sha256), BATS 3.0 (a zip or folder of 40 files in 4 folders, each line
`word1<TAB>word2[/alt...]`; every ordered pair of lines within a file is a question;
downloaded when online and checked against GluonNLP's published SHA-1 of each file), and word-
pair files given by path (the Google format, or BATS-style pair lists).

SAT-style multiple choice (a : b :: which c : d?) is `ChoiceAnalogyBenchmark`: word vectors
rank the choices with a method (pair-difference cosine by default), a causal LM by the
log-likelihood of " c is like d." after "If a is like b, then".
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import random
import re
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.models.mlm import MASK_PLACEHOLDER as MASK
from lexbench.stats import Z95, Interval, clustered_standard_error, paired_permutation_test
from lexbench.types import Request, Response, Score

REGIMES = ("causal", "masked", "vectors")
DEFAULT_TOP_K = 10
METRICS = ("mrr", "acc_at_1", "recall_at_5", "recall_at_10")
METRIC_LABELS = {"mrr": "MRR@10", "acc_at_1": "acc@1", "recall_at_5": "recall@5",
                 "recall_at_10": "recall@10"}
OOV_POLICIES = ("skip", "wrong")
_WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*", re.UNICODE)


# ------------------------------------------------------------------------------ items


@dataclass(frozen=True)
class Analogy:
    """a : b :: c : d, with `alternatives` also accepted in place of d."""

    id: str
    a: str
    b: str
    c: str
    d: str
    alternatives: tuple[str, ...] = ()
    type: str = ""
    mapping: str = ""

    @property
    def accepted(self) -> tuple[str, ...]:
        """The gold answer then the alternatives, without repeats."""
        return tuple(dict.fromkeys((self.d, *self.alternatives)))

    def words(self) -> set[str]:
        """Every lower-cased word of the item (question and accepted answers)."""
        return {w.lower() for term in (self.a, self.b, self.c, *self.accepted)
                for w in _WORD.findall(term)}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "a": self.a, "b": self.b, "c": self.c, "d": self.d,
                "alternatives": list(self.alternatives), "type": self.type,
                "mapping": self.mapping}

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> Analogy:
        try:
            return cls(id=str(row["id"]), a=str(row["a"]), b=str(row["b"]), c=str(row["c"]),
                       d=str(row["d"]), alternatives=tuple(row.get("alternatives") or ()),
                       type=str(row.get("type", "")), mapping=str(row.get("mapping", "")))
        except KeyError as error:
            raise ValueError(f"not an analogy row (missing {error}): {dict(row)!r:.200}") from None


def dataset_sha256(items: Sequence[Analogy]) -> str:
    text = "".join(json.dumps(i.to_dict(), sort_keys=True, ensure_ascii=False) + "\n" for i in items)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_unique_ids(items: Sequence[Analogy], source: str) -> None:
    repeated = [k for k, n in Counter(i.id for i in items).items() if n > 1]
    if repeated:
        raise ValueError(f"{source}: item ids repeat: {repeated[:5]}")


# ------------------------------------------------------------------------------ Google

GOOGLE_URL = ("https://raw.githubusercontent.com/piskvorky/gensim/develop/gensim/test/test_data/"
              "questions-words.txt")
# sha256 of the copy gensim 4.4 ships (the original word2vec file).
GOOGLE_SHA256 = "8c29b3332afc46f3fb8be04cb5297bf96f39aa7131272dff57869b4485b22a36"


def read_question_file(path: str | Path, *, prefix: str = "") -> list[Analogy]:
    """A questions file in the word2vec format: `: section` lines, then `a b c d` lines.

    Type is `syntactic` for sections named gram* (as in the Google set), else `semantic`;
    mapping is the section. Lines without four words are an error naming the line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no analogy questions file at {path}")
    items: list[Analogy] = []
    section = ""
    counts: Counter[str] = Counter()
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith(":"):
                section = text.lstrip(":").strip()
                continue
            parts = text.split()
            if len(parts) != 4:
                raise ValueError(f"{path}:{number}: expected four words 'a b c d', got {text!r}")
            name = section or "questions"
            kind = "syntactic" if name.startswith("gram") else "semantic"
            items.append(Analogy(id=f"{prefix}{name}/{counts[name]:04d}", a=parts[0], b=parts[1],
                                 c=parts[2], d=parts[3], type=kind, mapping=name))
            counts[name] += 1
    if not items:
        raise ValueError(f"{path}: no questions found")
    return items


def locate_google(path: str | Path | None = None) -> Path:
    """The Google analogy file: the path given, gensim's copy, or a checked download."""
    if path is not None:
        located = Path(path).expanduser()
        if not located.is_file():
            raise FileNotFoundError(f"no Google analogy file at {located}")
        return located
    try:
        from gensim.test.utils import datapath

        shipped = Path(datapath("questions-words.txt"))
        if shipped.is_file():
            return shipped
    except ImportError:
        pass
    from lexbench.datasets.fetch import fetch

    return fetch(GOOGLE_URL, sha256=GOOGLE_SHA256, name="google/questions-words.txt")


def load_google(path: str | Path | None = None) -> list[Analogy]:
    """The 19,544 Google analogy questions (14 sections; 5 semantic, 9 syntactic)."""
    return read_question_file(locate_google(path))


# ------------------------------------------------------------------------------ BATS

BATS_URL = "https://vecto-data.s3-us-west-1.amazonaws.com/BATS_3.0.zip"
# GluonNLP's published SHA-1 of each BATS 3.0 file (the only published hashes of the set);
# checked member by member, so a repacked but identical archive still passes.
BATS_SHA1 = {
    "1_Inflectional_morphology/I01 [noun - plural_reg].txt": "cfcba2835edf81abf11b84defd2f4daa3ca0b0bf",
    "1_Inflectional_morphology/I02 [noun - plural_irreg].txt": "44dbc56432b79ff5ce2ef80b6840a8aa916524f9",
    "1_Inflectional_morphology/I03 [adj - comparative].txt": "dc530918e98b467b8102a7dab772a66d3db32a73",
    "1_Inflectional_morphology/I04 [adj - superlative].txt": "6c6fdfb6c733bc9b298d95013765163f42faf6fb",
    "1_Inflectional_morphology/I05 [verb_inf - 3pSg].txt": "39fa47ec7238ddb3f9818bc586f23f55b55418d8",
    "1_Inflectional_morphology/I06 [verb_inf - Ving].txt": "8fabeb9f5af6c3e7154a220b7034bbe5b900c36f",
    "1_Inflectional_morphology/I07 [verb_inf - Ved].txt": "aa04df95aa2edb436cbcc03c7b15bc492ece52d6",
    "1_Inflectional_morphology/I08 [verb_Ving - 3pSg].txt": "5f22d8121a5043ce76d3b6b53a49a7bb3fe33920",
    "1_Inflectional_morphology/I09 [verb_Ving - Ved].txt": "377777c1e793c638e72c010228156d01f916708e",
    "1_Inflectional_morphology/I10 [verb_3pSg - Ved].txt": "051c0c3c633e10900f827991dac14cf76da7f022",
    "2_Derivational_morphology/D01 [noun+less_reg].txt": "5d6839e9d34ee1e9fddb5bbf6516cf6420b85d8d",
    "2_Derivational_morphology/D02 [un+adj_reg].txt": "80b82227a0d5f7377f1e8cebe28c582bfeb1afb5",
    "2_Derivational_morphology/D03 [adj+ly_reg].txt": "223e120bd61b3116298a253f392654c15ad5a39a",
    "2_Derivational_morphology/D04 [over+adj_reg].txt": "a56f8685af489bcd09c36f864eba1657ce0a7c28",
    "2_Derivational_morphology/D05 [adj+ness_reg].txt": "5da99b1f1781ecfb4a1a7448c715abf07451917b",
    "2_Derivational_morphology/D06 [re+verb_reg].txt": "4c5e1796091fade503fbf0bfc2fae2c7f98b5dd2",
    "2_Derivational_morphology/D07 [verb+able_reg].txt": "a6218162bc257d98e875fc667c23edfac59e19fd",
    "2_Derivational_morphology/D08 [verb+er_irreg].txt": "9a4236c3bbc23903e101a42fb5ad6e15e552fadf",
    "2_Derivational_morphology/D09 [verb+tion_irreg].txt": "3ab0153926d5cf890cf08a4077da6d9946133874",
    "2_Derivational_morphology/D10 [verb+ment_irreg].txt": "2a012b87a9a60e128e064c5fe24b60f99e16ddce",
    "3_Encyclopedic_semantics/E01 [country - capital].txt": "9890315d3c4e6a38b8ae5fc441858564be3d3dc4",
    "3_Encyclopedic_semantics/E02 [country - language].txt": "ef08a00e8ff7802811ace8f00fabac41b5d03678",
    "3_Encyclopedic_semantics/E03 [UK_city - county].txt": "754957101c93a25b438785bd4458404cd9010259",
    "3_Encyclopedic_semantics/E04 [name - nationality].txt": "71a6562c34fb6154992a7c3e499375fcc3529c96",
    "3_Encyclopedic_semantics/E05 [name - occupation].txt": "a9a6f9f1af959aef83106f3dbd6bed16dfe9a3ea",
    "3_Encyclopedic_semantics/E06 [animal - young].txt": "12d5b51c7b76b9136eadc719abc8cf4806c67b73",
    "3_Encyclopedic_semantics/E07 [animal - sound].txt": "91991b007a35f45bd42bd7d0d465c6f8311df911",
    "3_Encyclopedic_semantics/E08 [animal - shelter].txt": "e5af11e216db392986ba0cbb597d861066c29adb",
    "3_Encyclopedic_semantics/E09 [things - color].txt": "d30b2eb2fc7a60f19afda7c54582e30f6fe28f51",
    "3_Encyclopedic_semantics/E10 [male - female].txt": "247a588671bc1da8f615e14076bd42573d24b4b3",
    "4_Lexicographic_semantics/L01 [hypernyms - animals].txt": "4b5c4dabe2c9c038fafee85d8d3958f1b1dec987",
    "4_Lexicographic_semantics/L02 [hypernyms - misc].txt": "83d5ecad78d9de28fd70347731c7ee5918ba43c9",
    "4_Lexicographic_semantics/L03 [hyponyms - misc].txt": "a8319856ae2f76b4d4c030ac7e899bb3a06a9a48",
    "4_Lexicographic_semantics/L04 [meronyms - substance].txt": "c081e1104e1b40725063f4b39d13d1ec12496bfd",
    "4_Lexicographic_semantics/L05 [meronyms - member].txt": "bcbf05f3be76cef990a74674a9999a0bb9790a07",
    "4_Lexicographic_semantics/L06 [meronyms - part].txt": "2f9bdcc74b881e1c54b391c9a6e7ea6243b3accc",
    "4_Lexicographic_semantics/L07 [synonyms - intensity].txt": "8fa287860b096bef004fe0f6557e4f686e3da81a",
    "4_Lexicographic_semantics/L08 [synonyms - exact].txt": "a17c591961bddefd97ae5df71f9d1559ce7900f4",
    "4_Lexicographic_semantics/L09 [antonyms - gradable].txt": "117fbb86504c192b33a5469f2f282e741d9c016d",
    "4_Lexicographic_semantics/L10 [antonyms - binary].txt": "3cde2f2c2a0606777b8d7d11d099f316416a7224",
}


def parse_pair_lines(text: str, source: str) -> list[tuple[str, tuple[str, ...]]]:
    """`word1<TAB>word2[/alt...]` lines -> [(word1, (word2, alt, ...))]; blank lines skipped.

    A line without a tab is split on its first run of whitespace (some copies lost the tabs)."""
    pairs: list[tuple[str, tuple[str, ...]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split("\t") if "\t" in stripped else stripped.split(None, 1)
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ValueError(f"{source}:{number}: expected 'word1<TAB>word2[/alt...]', got {stripped!r}")
        targets = tuple(dict.fromkeys(t.strip() for t in parts[1].split("/") if t.strip()))
        if not targets:
            raise ValueError(f"{source}:{number}: no target word in {stripped!r}")
        pairs.append((parts[0].strip(), targets))
    return pairs


def questions_from_pairs(pairs: Sequence[tuple[str, tuple[str, ...]]], *, relation: str,
                         kind: str, prefix: str = "") -> list[Analogy]:
    """Every ordered pair of distinct lines (i, j) of one relation makes a question:
    a = word1_i, b = the first target of i, c = word1_j, d = the first target of j, with j's
    other targets accepted too (the BATS convention)."""
    items = []
    for i, (a, b_targets) in enumerate(pairs):
        for j, (c, d_targets) in enumerate(pairs):
            if i == j:
                continue
            items.append(Analogy(id=f"{prefix}{relation}/{i:03d}-{j:03d}", a=a, b=b_targets[0],
                                 c=c, d=d_targets[0], alternatives=d_targets[1:], type=kind,
                                 mapping=relation))
    return items


def _pair_sources(path: Path) -> list[tuple[str, str, bytes]]:
    """(folder, file name, bytes) of every .txt pair file in a zip or a folder, sorted."""
    found: list[tuple[str, str, bytes]] = []
    if path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                member = Path(info.filename)
                if info.is_dir() or member.suffix != ".txt" or member.name.startswith(("._", ".")):
                    continue
                if "__MACOSX" in member.parts:
                    continue
                folder = member.parent.name
                found.append((folder, member.name, archive.read(info)))
    elif path.is_dir():
        for file in sorted(path.rglob("*.txt")):
            if file.name.startswith("."):
                continue
            found.append((file.parent.name if file.parent != path else "", file.name,
                          file.read_bytes()))
    elif path.is_file():
        found.append(("", path.name, path.read_bytes()))
    else:
        raise FileNotFoundError(f"no pair file, folder or zip at {path}")
    return sorted(found, key=lambda entry: (entry[0], entry[1]))


def read_pair_collection(path: str | Path, *, prefix: str = "") -> list[Analogy]:
    """Pair files (one relation per file) from a zip, a folder or a single file.

    Relation (mapping) = the file name without `.txt`; type = its folder (BATS's four
    category folders), or the relation itself for a single file."""
    path = Path(path).expanduser()
    sources = _pair_sources(path)
    if not sources:
        raise ValueError(f"{path}: no .txt pair files found")
    items: list[Analogy] = []
    for folder, name, data in sources:
        relation = name[:-len(".txt")]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{path}/{folder}/{name}: not UTF-8 text") from None
        pairs = parse_pair_lines(text, f"{path}:{folder}/{name}")
        if len(pairs) < 2:
            raise ValueError(f"{path}:{folder}/{name}: a relation needs at least two pairs, "
                             f"found {len(pairs)}")
        items.extend(questions_from_pairs(pairs, relation=relation, kind=folder or relation,
                                          prefix=prefix))
    check_unique_ids(items, str(path))
    return items


def verify_bats(path: Path) -> None:
    """Check every BATS 3.0 file in a zip against its published SHA-1; raise on mismatch."""
    seen: dict[str, str] = {}
    for folder, name, data in _pair_sources(path):
        seen[f"{folder}/{name}"] = hashlib.sha1(data).hexdigest()  # noqa: S324 - published hash
    missing = sorted(set(BATS_SHA1) - set(seen))
    wrong = sorted(k for k, v in BATS_SHA1.items() if k in seen and seen[k] != v)
    if missing or wrong:
        raise ValueError(f"{path} is not BATS 3.0: {len(missing)} file(s) missing "
                         f"{missing[:2]}, {len(wrong)} with another SHA-1 {wrong[:2]}")


def locate_bats(path: str | Path | None = None) -> Path:
    """The BATS zip or folder: the path given, or the public zip downloaded once and checked."""
    if path is not None:
        located = Path(path).expanduser()
        if not located.exists():
            raise FileNotFoundError(f"no BATS zip or folder at {located}")
        return located
    from lexbench.datasets.fetch import cached_path, fetch

    # No sha256 of the archive is published; each member's SHA-1 is, and is checked below
    # (a failed check removes the cached file, so a bad download is never reused).
    archive = fetch(BATS_URL, sha256=None, name="bats/BATS_3.0.zip")
    try:
        verify_bats(archive)
    except ValueError:
        cached_path("bats/BATS_3.0.zip").unlink(missing_ok=True)
        raise
    return archive


def load_bats(path: str | Path | None = None) -> list[Analogy]:
    """BATS 3.0 questions (about 98,000: 40 relations, every ordered pair of lines)."""
    return read_pair_collection(locate_bats(path))


def load_pair_file(path: str | Path) -> list[Analogy]:
    """Any word-pair analogy file by path: a word2vec-format questions file (`: section`
    headers and `a b c d` lines), or BATS-style pair lists (a .txt file, folder or zip)."""
    path = Path(path).expanduser()
    if path.is_file() and not zipfile.is_zipfile(path):
        head = path.read_text(encoding="utf-8", errors="replace").splitlines()
        first = next((line.strip() for line in head if line.strip()
                      and not line.startswith("#")), "")
        if first.startswith(":") or (len(first.split()) == 4 and "\t" not in first):
            return read_question_file(path)
    return read_pair_collection(path)


def limit_per_mapping(items: Sequence[Analogy], limit: int | None, seed: int = 0) -> list[Analogy]:
    """At most `limit` items of each mapping, drawn with a seeded RNG from the sorted ids
    (the file's first lines would over-represent its first pairs); file order is kept."""
    if limit is None:
        return list(items)
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    by_mapping: dict[str, list[Analogy]] = defaultdict(list)
    for item in items:
        by_mapping[item.mapping].append(item)
    keep: set[str] = set()
    for mapping in sorted(by_mapping):
        members = sorted(by_mapping[mapping], key=lambda i: i.id)
        if len(members) <= limit:
            keep.update(i.id for i in members)
        else:
            rng = random.Random(f"limit:{seed}:{mapping}")
            keep.update(i.id for i in rng.sample(members, limit))
    return [item for item in items if item.id in keep]


# ------------------------------------------------------------------------------ prompts


def sentence(a: str, b: str, c: str, d: str) -> str:
    """The SCAN template, complete: "If a is like b, then c is like d."."""
    return f"If {a} is like {b}, then {c} is like {d}."


def query_prompt(item: Analogy, regime: str, shots: Sequence[Analogy] = ()) -> str:
    """Shots (complete sentences), then the query cut before d (causal) or with d masked."""
    prefix = "".join(sentence(s.a, s.b, s.c, s.d) + " " for s in shots)
    if regime == "causal":
        return f"{prefix}If {item.a} is like {item.b}, then {item.c} is like"
    if regime == "masked":
        return f"{prefix}If {item.a} is like {item.b}, then {item.c} is like {MASK}."
    raise ValueError(f"no text prompt for regime {regime!r}")


def choose_shots(item: Analogy, pool: Sequence[Analogy], k: int, seed: int) -> tuple[Analogy, ...]:
    """`k` complete analogies from `pool` sharing no word with `item` (its question or its
    accepted answers, so a shot can never give the answer away), drawn with a seeded RNG
    per item: the choice for one item never depends on which other items are evaluated."""
    if k == 0:
        return ()
    banned = item.words()
    candidates = sorted((p for p in pool if p.id != item.id), key=lambda p: p.id)
    rng = random.Random(f"shots:{seed}:{item.id}")
    chosen: list[Analogy] = []
    used: set[str] = set()
    # Rejection sampling keeps this cheap on BATS-sized pools; a full scan is the fallback.
    for _ in range(50 * k):
        if len(chosen) == k or not candidates:
            break
        pick = candidates[rng.randrange(len(candidates))]
        if pick.id not in used and not (pick.words() & banned):
            chosen.append(pick)
            used.add(pick.id)
    if len(chosen) < k:
        eligible = [p for p in candidates if p.id not in used and not (p.words() & banned)]
        if len(eligible) < k - len(chosen):
            raise ValueError(f"{item.id}: only {len(eligible) + len(chosen)} analogies share no "
                             f"word with it; {k} shot(s) asked")
        chosen.extend(rng.sample(eligible, k - len(chosen)))
    return tuple(chosen)


# ------------------------------------------------------------------------------ regimes


def regime_of(model: Any) -> str:
    """How a model answers analogies: `vectors` (it has `analogy()`), `masked` (it has a
    `mask_placeholder`), else `causal`."""
    if callable(getattr(model, "analogy", None)):
        return "vectors"
    if getattr(model, "mask_placeholder", None):
        return "masked"
    return "causal"


def first_token_id(tokenizer: Any, word: str) -> int:
    """The first token id of " " + word: how the word starts after a space, which is how it
    follows "is like" in the prompt (and how a WordPiece tokenizer reads it anyway)."""
    ids = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
    if not ids:
        raise ValueError(f"the tokenizer gives no tokens for {word!r}")
    # A SentencePiece tokenizer may spell the space as a lone "▁" token before the word;
    # the word's own first token is the one after it.
    decode = getattr(tokenizer, "decode", None)
    if len(ids) > 1 and decode is not None and not decode([ids[0]]).strip():
        return int(ids[1])
    return int(ids[0])


def answer_key(model: Any, items: Sequence[Analogy], regime: str) -> dict[str, tuple[Any, ...]]:
    """Per item, the distinct keys an answer is matched on: first-token ids (LMs) or the
    in-vocabulary accepted words, folded (vectors; an empty tuple: no answer is reachable)."""
    key: dict[str, tuple[Any, ...]] = {}
    if regime == "vectors":
        for item in items:
            key[item.id] = tuple(dict.fromkeys(model.fold(w) for w in item.accepted
                                               if model.row_of(w) is not None))
        return key
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        raise ValueError(f"model {getattr(model, 'name', model)!r} exposes no tokenizer; ranking "
                         "analogies compares token ids, so it needs a local tokenizer")
    cache: dict[str, int] = {}
    for item in items:
        ids = []
        for word in item.accepted:
            if word not in cache:
                cache[word] = first_token_id(tokenizer, word)
            ids.append(cache[word])
        key[item.id] = tuple(dict.fromkeys(ids))
    return key


# ------------------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class RankOutcome:
    """Where the first accepted answer landed, and the recall the SCAN paper reports."""

    rank: int | None                   # 1-based, None when absent from the top k
    recall_at_5: float
    recall_at_10: float

    @property
    def reciprocal_rank(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0


def rank_outcome(ranked_keys: Sequence[Any], accepted: Sequence[Any]) -> RankOutcome:
    """Score a ranked list of keys (token ids or folded words) against the accepted keys."""
    wanted = set(accepted)
    rank = next((position for position, key in enumerate(ranked_keys[:DEFAULT_TOP_K], 1)
                 if key in wanted), None)

    def recall(k: int) -> float:
        return len(wanted & set(ranked_keys[:k])) / len(wanted) if wanted else 0.0

    return RankOutcome(rank, recall(5), recall(10))


# ------------------------------------------------------------------------------ benchmark


@dataclass
class RankAnalogyBenchmark:
    """Any completion-analogy set as a `Benchmark` (SCAN, Google, BATS, pair files).

    `answers` is `answer_key(model, dataset, regime)`: scoring needs it, and only the model
    knows its tokenizer or vocabulary. `oov_policy`: `skip` leaves an item the model cannot
    take (a question word or every answer out of vocabulary) out of the metrics, as gensim
    does; `wrong` counts it as a miss (reciprocal rank 0), as the SCAN paper does.
    """

    name: str
    dataset: list[Analogy]
    regime: str
    answers: dict[str, tuple[Any, ...]]
    shots: int = 0
    seed: int = 0
    method: str | None = None                 # vectors only
    oov_policy: str = "skip"
    dataset_config: dict[str, Any] = field(default_factory=dict)
    shot_pool: list[Analogy] | None = None    # default: the whole dataset
    cluster_label: str = "mapping"
    case_insensitive: bool = True             # vectors: how answers are compared
    _shots: dict[str, tuple[Analogy, ...]] = field(default_factory=dict, repr=False)
    _dataset_sha256: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.regime not in REGIMES:
            raise ValueError(f"unknown regime {self.regime!r}; choose from {', '.join(REGIMES)}")
        if self.oov_policy not in OOV_POLICIES:
            raise ValueError(f"unknown oov policy {self.oov_policy!r}")
        if self.shots < 0:
            raise ValueError(f"shots must be 0 or more, got {self.shots}")
        if self.regime == "vectors":
            from lexbench.models.embeddings import VECTOR_METHODS

            if self.method not in VECTOR_METHODS:
                raise ValueError(f"a word-vector run needs a method from {', '.join(VECTOR_METHODS)}")
            if self.shots:
                raise ValueError("word vectors take no shots; run them with --shots 0")
        missing = [i.id for i in self.dataset if i.id not in self.answers]
        if missing:
            raise ValueError(f"answer key lacks items {missing[:5]}")
        self._dataset_sha256 = dataset_sha256(self.dataset)
        pool = self.shot_pool if self.shot_pool is not None else self.dataset
        self._shots = {item.id: choose_shots(item, pool, self.shots, self.seed)
                       for item in self.dataset}

    def config(self) -> dict[str, Any]:
        return {
            "name": self.name, "dataset": self.dataset_config, "items": len(self.dataset),
            "dataset_sha256": self._dataset_sha256, "regime": self.regime,
            "shots": self.shots, "seed": self.seed, "method": self.method,
            "top_k": DEFAULT_TOP_K, "oov_policy": self.oov_policy,
            "case_insensitive": self.case_insensitive if self.regime == "vectors" else None,
            "template": sentence("A", "B", "C", "D"),
            "answer_match": ("first token id of ' ' + word" if self.regime != "vectors"
                             else "vocabulary word (folded)"),
        }

    def items(self) -> list[Analogy]:
        return self.dataset

    def requests(self, item: Analogy) -> list[Request]:
        if self.regime == "vectors":
            from lexbench.models.embeddings import AnalogyQuery

            prompt = AnalogyQuery(item.a, item.b, item.c, method=self.method or "3cosadd").to_prompt()
        else:
            prompt = query_prompt(item, self.regime, self._shots[item.id])
        return [Request(id=item.id, kind="rank", prompt=prompt, top_k=DEFAULT_TOP_K)]

    def score(self, item: Analogy, responses: Sequence[Response]) -> Score:
        response = responses[0]
        accepted = self.answers[item.id]
        unscorable_correct = False if self.oov_policy == "wrong" else None
        if response.error is not None:
            from lexbench.models.embeddings import OOV_PREFIX

            oov = response.error.startswith(OOV_PREFIX)
            return Score(item.id, unscorable_correct if oov else None, 0.0, None,
                         "out_of_vocabulary" if oov else "request_failed",
                         {"error": response.error})
        if not accepted:
            return Score(item.id, unscorable_correct, 0.0, None, "answer_out_of_vocabulary", {})
        keys = [t.token_id for t in response.ranked] if self.regime != "vectors" \
            else [self._fold(t.text) for t in response.ranked]
        outcome = rank_outcome(keys, accepted)
        top = response.ranked[0].text if response.ranked else None
        if outcome.rank == 1:
            error_class = "correct"
        elif outcome.rank is not None:
            error_class = "in_top_k"
        elif top is not None and top.strip().lower() in {
                w.lower() for term in (item.a, item.b, item.c) for w in term.split()}:
            # Diagnosis only (scoring never compares strings): the top answer echoes a word
            # of the question, e.g. "nucleus is like nucleus".
            error_class = "question_word"
        else:
            error_class = "not_in_top_k"
        return Score(item.id, outcome.rank == 1, outcome.reciprocal_rank, top, error_class,
                     {"rank": outcome.rank, "recall_at_5": outcome.recall_at_5,
                      "recall_at_10": outcome.recall_at_10})

    def _fold(self, word: str) -> str:
        # Vector answers are whole vocabulary words, folded as `answer_key` folded the key.
        return word.lower() if self.case_insensitive else word

    def sample(self, item: Analogy, requests: Sequence[Request], responses: Sequence[Response],
               score: Score) -> dict[str, Any]:
        response = responses[0]
        return {
            **item.to_dict(),
            "prompt": requests[0].prompt,
            "shots": [s.id for s in self._shots.get(item.id, ())],
            "answer_keys": list(self.answers[item.id]),
            "ranked": [[t.token_id, t.text, round(t.logprob, 6)] for t in response.ranked],
            "answer": score.answer,
            "rank": score.details.get("rank"),
            "recall_at_5": score.details.get("recall_at_5"),
            "recall_at_10": score.details.get("recall_at_10"),
            "correct": score.correct,
            "value": score.value,
            "error_class": score.error_class,
            "error": response.error,
        }

    def summarize(self, items: Sequence[Analogy], scores: Sequence[Score]) -> dict[str, Any]:
        return summarize(self.name, items, scores, cluster_label=self.cluster_label,
                         per_mapping=len({i.mapping for i in items}) <= 100)

    def report(self, results: Mapping[str, Any]) -> str:
        return report_markdown(results)

    def figures(self, results: Mapping[str, Any], folder: Path) -> list[Path]:
        return [mrr_figure(folder / "figures" / "mrr_by_type.png", {"": results},
                           title=f"{self.name}: MRR@10 by type")]


# ------------------------------------------------------------------------------ tables


def item_metrics(score: Score) -> dict[str, float]:
    """The four per-item metrics (0 for an unscorable item counted as wrong)."""
    rank = score.details.get("rank")
    return {"mrr": score.value, "acc_at_1": 1.0 if rank == 1 else 0.0,
            "recall_at_5": float(score.details.get("recall_at_5") or 0.0),
            "recall_at_10": float(score.details.get("recall_at_10") or 0.0)}


def clustered_interval(values: Sequence[float], clusters: Sequence[str], label: str) -> dict[str, Any]:
    """Mean ± 1.96 cluster-robust SE (clipped to [0, 1]), with the SE itself."""
    n = len(values)
    if n == 0:
        return {**Interval(math.nan, math.nan, math.nan, 0, f"clustered by {label}").to_dict(),
                "se": math.nan, "clusters": 0}
    mean = sum(values) / n
    se = clustered_standard_error(values, clusters)
    low = max(0.0, mean - Z95 * se) if not math.isnan(se) else math.nan
    high = min(1.0, mean + Z95 * se) if not math.isnan(se) else math.nan
    return {**Interval(mean, low, high, n, f"clustered by {label}").to_dict(), "se": se,
            "clusters": len(set(clusters))}


def group_table(items: Sequence[Any], scores: Sequence[Score], label: str,
                metrics: Sequence[str] = METRICS) -> dict[str, Any]:
    scored = [(item, score) for item, score in zip(items, scores) if score.correct is not None]
    clusters = [item.mapping for item, _ in scored]
    table: dict[str, Any] = {"n": len(items), "scored": len(scored),
                             "coverage": len(scored) / len(items) if items else math.nan}
    per_item = [item_metrics(score) for _, score in scored]
    for metric in metrics:
        table[metric] = clustered_interval([m[metric] for m in per_item], clusters, label)
    return table


def summarize(name: str, items: Sequence[Any], scores: Sequence[Score], *,
              cluster_label: str = "mapping", per_mapping: bool = True,
              metrics: Sequence[str] = METRICS) -> dict[str, Any]:
    """results.json body: metrics overall and per type (and per mapping), error classes."""
    by_type: dict[str, list[int]] = defaultdict(list)
    by_mapping: dict[str, list[int]] = defaultdict(list)
    for position, item in enumerate(items):
        by_type[item.type].append(position)
        by_mapping[item.mapping].append(position)

    def subset(positions: list[int]) -> dict[str, Any]:
        return group_table([items[p] for p in positions], [scores[p] for p in positions],
                           cluster_label, metrics)

    results: dict[str, Any] = {
        "benchmark": name,
        "metrics": list(metrics),
        "overall": group_table(items, scores, cluster_label, metrics),
        "by_type": {t: subset(p) for t, p in sorted(by_type.items())},
        "error_classes": dict(sorted(Counter(s.error_class for s in scores).items())),
        "cluster": cluster_label,
    }
    if per_mapping:
        results["by_mapping"] = {
            m: {"type": items[p[0]].type, "n": len(p),
                "mrr": sum(item_metrics(scores[i])["mrr"] for i in p
                           if scores[i].correct is not None) / max(1, sum(
                               1 for i in p if scores[i].correct is not None)),
                "scored": sum(1 for i in p if scores[i].correct is not None)}
            for m, p in sorted(by_mapping.items())}
    return results


def _cell(block: Mapping[str, Any]) -> str:
    if block.get("n", 0) == 0 or math.isnan(block["estimate"]):
        return "–"
    return f"{block['estimate']:.3f} ± {block['se']:.3f}"


def metrics_table(results: Mapping[str, Any]) -> str:
    metrics = results.get("metrics", METRICS)
    rows = [("overall", results["overall"])] + list(results["by_type"].items())
    lines = ["| group | n | scored | " + " | ".join(METRIC_LABELS[m] for m in metrics) + " |",
             "|---|---:|---:|" + "---:|" * len(metrics)]
    for label, block in rows:
        lines.append(f"| {label} | {block['n']} | {block['scored']} | "
                     + " | ".join(_cell(block[m]) for m in metrics) + " |")
    return "\n".join(lines)


def report_markdown(results: Mapping[str, Any], title: str | None = None) -> str:
    name = title or str(results.get("benchmark", "analogies")).upper()
    cluster = results.get("cluster", "mapping")
    parts = [f"# {name}", "",
             f"Estimate ± standard error clustered by {cluster} "
             f"({results['overall']['mrr'].get('clusters', 0)} clusters); metrics over scored "
             "items; recall@k is the share of the accepted answers in the top k.", "",
             metrics_table(results), "",
             "Outcome classes: " + ", ".join(f"{k} {v}" for k, v in results["error_classes"].items())]
    mappings = results.get("by_mapping")
    if mappings:
        parts += ["", f"## MRR@10 by {cluster}", "", f"| {cluster} | type | n | MRR@10 |",
                  "|---|---|---:|---:|"]
        for mapping, row in sorted(mappings.items(), key=lambda kv: (-kv[1]["mrr"], kv[0])):
            parts.append(f"| {mapping} | {row['type']} | {row['n']} | {row['mrr']:.3f} |")
    return "\n".join(parts) + "\n"


def mrr_figure(path: Path, results_by_label: Mapping[str, Mapping[str, Any]], *, title: str) -> Path:
    """MRR@10 overall and per type with 95% whiskers, one series per condition."""
    from lexbench.report.figures import bar_with_intervals

    first = next(iter(results_by_label.values()))
    groups = ["overall", *first["by_type"]]

    def block(results: Mapping[str, Any], group: str) -> Mapping[str, Any]:
        return results["overall"]["mrr"] if group == "overall" else results["by_type"][group]["mrr"]

    estimates: dict[str, list[float]] = {}
    lows: list[float] = []
    highs: list[float] = []
    for label, results in results_by_label.items():
        estimates[label] = [block(results, g)["estimate"] for g in groups]
        for g in groups:
            b = block(results, g)
            lows.append(b["low"] if not math.isnan(b["low"]) else b["estimate"])
            highs.append(b["high"] if not math.isnan(b["high"]) else b["estimate"])
    single = list(results_by_label) == [""]
    # MRRs of small models sit near 0: scale the axis to the whiskers, not to 1.
    top = max([h for h in highs if not math.isnan(h)] or [1.0])
    return bar_with_intervals(path, groups, estimates[next(iter(estimates))], lows, highs,
                              title=title, ylabel="MRR@10 (95% CI, clustered)",
                              series=None if single else estimates,
                              ylim=(0.0, min(1.0, max(0.05, 1.25 * top))))


# ------------------------------------------------------------------------------ comparisons


def paired_values(samples_a: Sequence[Mapping[str, Any]], samples_b: Sequence[Mapping[str, Any]]
                  ) -> tuple[list[str], list[float], list[float], list[str], list[str]]:
    """(ids, values a, values b, types, mappings) of items scored in both runs."""
    b_by_id = {row["id"]: row for row in samples_b}
    ids, va, vb, types, mappings = [], [], [], [], []
    for row in samples_a:
        other = b_by_id.get(row["id"])
        if other is None or row.get("correct") is None or other.get("correct") is None:
            continue
        ids.append(row["id"])
        va.append(float(row["value"]))
        vb.append(float(other["value"]))
        types.append(str(row.get("type", "")))
        mappings.append(str(row.get("mapping", "")))
    return ids, va, vb, types, mappings


def paired_mrr_test(samples_a: Sequence[Mapping[str, Any]], samples_b: Sequence[Mapping[str, Any]],
                    *, resamples: int = 100_000, seed: int = 0) -> dict[str, Any]:
    """Two-sided paired permutation tests of the MRR difference, overall and per type.

    `p_items` flips the sign of each item's difference (the paper's unit); `p_mappings`
    flips whole mappings at once (the analogies of one mapping are not independent), via the
    per-mapping sums of differences, whose mean is proportional to the MRR difference."""
    ids, va, vb, types, mappings = paired_values(samples_a, samples_b)
    if not ids:
        raise ValueError("the two runs share no scored items to compare")
    out: dict[str, Any] = {}
    groups = {"overall": list(range(len(ids)))}
    for position, kind in enumerate(types):
        groups.setdefault(kind, []).append(position)
    for group, positions in groups.items():
        a = [va[p] for p in positions]
        b = [vb[p] for p in positions]
        item_test = paired_permutation_test(a, b, resamples=resamples, seed=seed)
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for p in positions:
            sums[mappings[p]][0] += va[p]
            sums[mappings[p]][1] += vb[p]
        keys = sorted(sums)
        cluster_test = (paired_permutation_test([sums[k][0] for k in keys], [sums[k][1] for k in keys],
                                                resamples=resamples, seed=seed)
                        if len(keys) >= 2 else None)
        out[group] = {"n": len(positions), "mrr_a": sum(a) / len(a), "mrr_b": sum(b) / len(b),
                      "difference": item_test.statistic, "p_items": item_test.p_value,
                      "p_mappings": cluster_test.p_value if cluster_test else math.nan,
                      "mappings": len(keys), "resamples": resamples}
    return out


def comparison_markdown(title: str, conditions: Mapping[str, Mapping[str, Any]],
                        tests: Mapping[str, Mapping[str, Any]], folders: Mapping[str, str]) -> str:
    """The combined report: each condition's metrics side by side, then the paired tests."""
    first = next(iter(conditions.values()))
    groups = ["overall", *first["by_type"]]
    lines = [f"# {title}", "",
             "Estimate ± standard error clustered by concept mapping; p-values from two-sided "
             "paired permutation tests on per-item reciprocal ranks.", ""]
    for metric in METRICS:
        lines += [f"## {METRIC_LABELS[metric]}", "",
                  "| condition | " + " | ".join(groups) + " |", "|---|" + "---:|" * len(groups)]
        for label, results in conditions.items():
            cells = [_cell(results["overall"][metric] if g == "overall"
                           else results["by_type"][g][metric]) for g in groups]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Paired permutation tests (MRR@10)", "",
              "| comparison | group | n | MRR a | MRR b | a − b | p (items) | p (mappings) |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, by_group in tests.items():
        for group, t in by_group.items():
            lines.append(f"| {name} | {group} | {t['n']} | {t['mrr_a']:.3f} | {t['mrr_b']:.3f} | "
                         f"{t['difference']:+.3f} | {t['p_items']:.2g} | {t['p_mappings']:.2g} |")
    resamples = next(iter(next(iter(tests.values())).values()))["resamples"] if tests else 0
    lines += ["", f"{resamples:,} resamples per test.", "", "## Run folders", ""]
    lines += [f"- {label}: `{path}`" for label, path in folders.items()]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ SAT-style choices


@dataclass(frozen=True)
class ChoiceAnalogy:
    """a : b :: ? — pick the pair among `choices` that stands in the same relation."""

    id: str
    a: str
    b: str
    choices: tuple[tuple[str, str], ...]
    answer: int
    type: str = "all"
    mapping: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "a": self.a, "b": self.b, "choices": [list(c) for c in self.choices],
                "answer": self.answer, "type": self.type, "mapping": self.mapping}


def _choice_item(number: int, a: str, b: str, choices: Sequence[Sequence[str]], answer: int,
                 kind: str, source: str) -> ChoiceAnalogy:
    pairs = tuple((str(c), str(d)) for c, d in choices)
    if len(pairs) < 2 or not 0 <= answer < len(pairs):
        raise ValueError(f"{source}: question {number} needs two or more choices and an answer "
                         f"index among them (got {len(pairs)} choices, answer {answer})")
    item_id = f"q{number:04d}"
    return ChoiceAnalogy(item_id, a, b, pairs, answer, kind or "all", item_id)


def read_choice_file(path: str | Path) -> list[ChoiceAnalogy]:
    """SAT-style multiple-choice analogies by path, in either of two formats:

    * JSON lines `{"stem": [a, b], "choice": [[c, d], ...], "answer": i}` (0-based; an
      optional "prefix" or "relation" becomes the type) — the format of the public
      analogy-question collections (SAT, U2, U4, ...);
    * Turney's SAT text format: blocks of a source line, the stem "a b pos:pos", the choices
      one per line, then the answer letter, blocks separated by blank lines, `#` comments.

    Each question is its own cluster (these sets carry no relation labels)."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no multiple-choice analogy file at {path}")
    text = path.read_text(encoding="utf-8")
    items: list[ChoiceAnalogy] = []
    if text.lstrip().startswith("{"):
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                a, b = row["stem"]
                kind = str(row.get("relation") or row.get("prefix") or "all")
                items.append(_choice_item(len(items), a, b, row["choice"], int(row["answer"]),
                                          kind, f"{path}:{number}"))
            except (ValueError, KeyError, TypeError) as error:
                if isinstance(error, ValueError) and "question" in str(error):
                    raise
                raise ValueError(f"{path}:{number}: expected a JSON object with stem, choice "
                                 f"and answer ({error})") from None
    else:
        lines = [line.strip() for line in text.splitlines() if not line.startswith("#")]
        blocks: list[list[str]] = [[]]
        for line in lines:
            if line:
                blocks[-1].append(line)
            elif blocks[-1]:
                blocks.append([])
        for block in (b for b in blocks if b):
            if len(block) < 5 or len(block[-1]) != 1 or not block[-1].isalpha():
                raise ValueError(f"{path}: not a SAT block (source, stem, choices, answer "
                                 f"letter): {block[:3]}")
            pairs = [line.split()[:2] for line in block[1:-1]]
            if any(len(pair) != 2 for pair in pairs):
                raise ValueError(f"{path}: a stem or choice line lacks two words in {block[:3]}")
            answer = ord(block[-1].lower()) - ord("a")
            items.append(_choice_item(len(items), pairs[0][0], pairs[0][1], pairs[1:], answer,
                                      "all", str(path)))
    if not items:
        raise ValueError(f"{path}: no questions found")
    return items


@dataclass
class ChoiceAnalogyBenchmark:
    """Multiple-choice analogies: word vectors rank the choices with a method (pairdiff by
    default); a causal LM ranks them by log P(" c is like d." | "If a is like b, then")
    (summed over tokens; the per-token mean is kept in each sample too)."""

    name: str
    dataset: list[ChoiceAnalogy]
    regime: str
    method: str | None = None
    dataset_config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.regime == "masked":
            raise ValueError("multiple-choice analogies need a causal LM or word vectors; a "
                             "masked LM cannot score whole continuations")
        if self.regime == "vectors" and self.method is None:
            self.method = "pairdiff"

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "dataset": self.dataset_config, "items": len(self.dataset),
                "regime": self.regime, "method": self.method,
                "template": "If a is like b, then | c is like d."}

    def items(self) -> list[ChoiceAnalogy]:
        return self.dataset

    def requests(self, item: ChoiceAnalogy) -> list[Request]:
        if self.regime == "vectors":
            from lexbench.models.embeddings import PairChoiceQuery

            query = PairChoiceQuery(item.a, item.b, item.choices, method=self.method or "pairdiff")
            return [Request(id=item.id, kind="rank", prompt=query.to_prompt(),
                            top_k=len(item.choices))]
        return [Request(id=item.id, kind="loglikelihood", prompt=f"If {item.a} is like {item.b}, then",
                        continuations=tuple(f" {c} is like {d}." for c, d in item.choices))]

    def _order(self, response: Response) -> list[int]:
        if self.regime == "vectors":
            return [t.token_id for t in response.ranked if math.isfinite(t.logprob)]
        scores = response.loglikelihoods
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))

    def score(self, item: ChoiceAnalogy, responses: Sequence[Response]) -> Score:
        response = responses[0]
        if response.error is not None:
            from lexbench.models.embeddings import OOV_PREFIX

            oov = response.error.startswith(OOV_PREFIX)
            return Score(item.id, None, 0.0, None,
                         "out_of_vocabulary" if oov else "request_failed", {"error": response.error})
        order = self._order(response)
        rank = order.index(item.answer) + 1 if item.answer in order else None
        chosen = order[0] if order else None
        return Score(item.id, rank == 1, 1.0 / rank if rank else 0.0,
                     ":".join(item.choices[chosen]) if chosen is not None else None,
                     "correct" if rank == 1 else "wrong_choice",
                     {"rank": rank, "recall_at_5": float(rank is not None and rank <= 5),
                      "recall_at_10": float(rank is not None and rank <= 10), "order": order})

    def sample(self, item: ChoiceAnalogy, requests: Sequence[Request],
               responses: Sequence[Response], score: Score) -> dict[str, Any]:
        response = responses[0]
        per_token = [lp / max(1, n) for lp, n in zip(response.loglikelihoods,
                                                     response.continuation_tokens)]
        return {**item.to_dict(), "prompt": requests[0].prompt, "order": score.details.get("order"),
                "scores": [t.logprob for t in response.ranked] or list(response.loglikelihoods),
                "per_token_loglikelihoods": per_token, "answer_given": score.answer,
                "rank": score.details.get("rank"), "correct": score.correct, "value": score.value,
                "error_class": score.error_class, "error": response.error}

    def summarize(self, items: Sequence[ChoiceAnalogy], scores: Sequence[Score]) -> dict[str, Any]:
        return summarize(self.name, items, scores, cluster_label="question", per_mapping=False,
                         metrics=("acc_at_1", "mrr"))

    def report(self, results: Mapping[str, Any]) -> str:
        return report_markdown(results, title=f"{self.name.upper()} (multiple choice)")


def run_choices(model: Any = "glove", *, data: str | Path, method: str | None = None,
                model_options: Mapping[str, Any] | None = None, out: str | Path = "runs",
                cache: Any = None, progress: bool = True) -> Any:
    """Evaluate a model on a SAT-style multiple-choice file; returns the `Evaluation`."""
    from lexbench.benchmarks.base import evaluate
    from lexbench.models.base import Model
    from lexbench.models.registry import load_model

    items = read_choice_file(data)
    backend = model if isinstance(model, Model) else load_model(model, model_options)
    regime = regime_of(backend)
    if regime != "vectors" and method is not None:
        raise ValueError(f"--method applies to word-vector models; {backend.name} is a {regime} LM")
    source = Path(data).expanduser()
    benchmark = ChoiceAnalogyBenchmark(
        name="sat", dataset=items, regime=regime, method=method,
        dataset_config={"source": str(source),
                        "file_sha256": hashlib.sha256(source.read_bytes()).hexdigest()})
    return evaluate(benchmark, backend, out_root=out, cache=cache, progress=progress)


# ------------------------------------------------------------------------------ running


def run_ranking(benchmark_name: str, dataset: Sequence[Analogy], model: Any, *, shots: int = 0,
                seed: int = 0, method: str | None = None, oov_policy: str = "skip",
                dataset_config: Mapping[str, Any] | None = None, out: str | Path = "runs",
                cache: Any = None, progress: bool = True,
                benchmark_factory: Callable[..., RankAnalogyBenchmark] = RankAnalogyBenchmark,
                shot_pool: Sequence[Analogy] | None = None) -> Any:
    """Build the benchmark for this model's regime and run it through `evaluate`."""
    from lexbench.benchmarks.base import evaluate

    regime = regime_of(model)
    if regime == "vectors":
        method = method or "3cosadd"
    elif method is not None:
        raise ValueError(f"--method applies to word-vector models; {model.name} is a {regime} LM")
    benchmark = benchmark_factory(
        name=benchmark_name, dataset=list(dataset), regime=regime,
        answers=answer_key(model, dataset, regime), shots=shots, seed=seed, method=method,
        oov_policy=oov_policy, dataset_config=dict(dataset_config or {}),
        case_insensitive=bool(getattr(model, "case_insensitive", True)),
        shot_pool=list(shot_pool) if shot_pool is not None else None)
    return evaluate(benchmark, model, out_root=out, cache=cache, progress=progress)


def load_dataset(name: str, path: str | Path | None) -> list[Analogy]:
    if name == "google":
        return load_google(path)
    if name == "bats":
        return load_bats(path)
    if name == "pairs":
        if path is None:
            raise ValueError("a pair-file run needs the file's path (--data PATH)")
        return load_pair_file(path)
    raise ValueError(f"unknown analogy set {name!r}; choose google, bats or pairs")


def run_classic(name: str, model: Any = "glove", *, data: str | Path | None = None,
                limit_per_relation: int | None = None, shots: int = 0, seed: int = 0,
                method: str | None = None, model_options: Mapping[str, Any] | None = None,
                out: str | Path = "runs", cache: Any = None, progress: bool = True) -> Any:
    """Evaluate a model (LM or word vectors) on Google, BATS or a pair file; an `Evaluation`.

    >>> run = run_classic("google", "glove", model_options={"restrict": 30000})  # doctest: +SKIP
    """
    from lexbench.models.base import Model
    from lexbench.models.registry import load_model

    items = load_dataset(name, data)
    chosen = limit_per_mapping(items, limit_per_relation, seed)
    backend = model if isinstance(model, Model) else load_model(model, model_options)
    config = {"set": name, "source": str(data) if data else "default",
              "limit_per_relation": limit_per_relation, "source_items": len(items)}
    return run_ranking(name, chosen, backend, shots=shots, seed=seed, method=method,
                       oov_policy="skip", dataset_config=config, out=out, cache=cache,
                       progress=progress, shot_pool=items)


def zip_bytes(entries: Mapping[str, str]) -> bytes:
    """A zip built in memory from {member path: text} (tests and examples build BATS-style
    archives with it)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            archive.writestr(name, entries[name])
    return buffer.getvalue()
