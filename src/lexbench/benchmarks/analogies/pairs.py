"""Word-pair analogy lists: BATS 3.0 and any pair file given by path.

A pair list holds lines `word1<TAB>word2[/alt...]`, one relation per file; every ordered
pair of lines within a file is a question. BATS 3.0 is a zip or folder of 40 such files in
4 folders, downloaded when online and checked against GluonNLP's published SHA-1 of each
file. A pair file given by path may also be a word2vec-format questions file (`google`).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from lexbench.benchmarks.analogies.data import Analogy, check_unique_ids
from lexbench.benchmarks.analogies.google import read_question_file

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
            raise ValueError(
                f"{source}:{number}: expected 'word1<TAB>word2[/alt...]', got {stripped!r}"
            )
        targets = tuple(dict.fromkeys(t.strip() for t in parts[1].split("/") if t.strip()))
        if not targets:
            raise ValueError(f"{source}:{number}: no target word in {stripped!r}")
        pairs.append((parts[0].strip(), targets))
    return pairs


def questions_from_pairs(
    pairs: Sequence[tuple[str, tuple[str, ...]]], *, relation: str, kind: str, prefix: str = ""
) -> list[Analogy]:
    """Every ordered pair of distinct lines (i, j) of one relation makes a question:
    a = word1_i, b = the first target of i, c = word1_j, d = the first target of j, with j's
    other targets accepted too (the BATS convention)."""
    items = []
    for i, (a, b_targets) in enumerate(pairs):
        for j, (c, d_targets) in enumerate(pairs):
            if i == j:
                continue
            items.append(
                Analogy(
                    id=f"{prefix}{relation}/{i:03d}-{j:03d}",
                    a=a,
                    b=b_targets[0],
                    c=c,
                    d=d_targets[0],
                    alternatives=d_targets[1:],
                    type=kind,
                    mapping=relation,
                )
            )
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
            found.append(
                (file.parent.name if file.parent != path else "", file.name, file.read_bytes())
            )
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
        relation = name[: -len(".txt")]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{path}/{folder}/{name}: not UTF-8 text") from None
        pairs = parse_pair_lines(text, f"{path}:{folder}/{name}")
        if len(pairs) < 2:
            raise ValueError(
                f"{path}:{folder}/{name}: a relation needs at least two pairs, found {len(pairs)}"
            )
        items.extend(
            questions_from_pairs(pairs, relation=relation, kind=folder or relation, prefix=prefix)
        )
    check_unique_ids(items, str(path))
    return items


def verify_bats(path: Path) -> None:
    """Check every BATS 3.0 file in a zip against its published SHA-1; raise on mismatch."""
    seen: dict[str, str] = {}
    for folder, name, data in _pair_sources(path):
        seen[f"{folder}/{name}"] = hashlib.sha1(data).hexdigest()
    missing = sorted(set(BATS_SHA1) - set(seen))
    wrong = sorted(k for k, v in BATS_SHA1.items() if k in seen and seen[k] != v)
    if missing or wrong:
        raise ValueError(
            f"{path} is not BATS 3.0: {len(missing)} file(s) missing "
            f"{missing[:2]}, {len(wrong)} with another SHA-1 {wrong[:2]}"
        )


def locate_bats(path: str | Path | None = None) -> Path:
    """The BATS zip or folder: the path given, or the public zip downloaded once and checked."""
    if path is not None:
        located = Path(path).expanduser()
        if not located.exists():
            raise FileNotFoundError(f"no BATS zip or folder at {located}")
        return located
    from lexbench.datasets.fetch import DownloadError, cached_path, fetch

    by_hand = (
        f" -- or download BATS_3.0.zip from {BATS_URL} elsewhere and pass the zip or "
        "its unpacked folder with --data PATH"
    )
    # No sha256 of the archive is published; each member's SHA-1 is, and is checked below
    # (a failed check removes the cached file, so a bad download is never reused).
    try:
        archive = fetch(BATS_URL, sha256=None, name="bats/BATS_3.0.zip")
    except DownloadError as error:
        raise DownloadError(f"could not download BATS: {error}{by_hand}") from None
    try:
        verify_bats(archive)
    except ValueError as error:
        cached_path("bats/BATS_3.0.zip").unlink(missing_ok=True)
        raise ValueError(f"{error}{by_hand}") from None
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
        first = next(
            (line.strip() for line in head if line.strip() and not line.startswith("#")), ""
        )
        if first.startswith(":") or (len(first.split()) == 4 and "\t" not in first):
            return read_question_file(path)
    return read_pair_collection(path)


def zip_bytes(entries: Mapping[str, str]) -> bytes:
    """A zip built in memory from {member path: text} (tests and examples build BATS-style
    archives with it)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            archive.writestr(name, entries[name])
    return buffer.getvalue()
