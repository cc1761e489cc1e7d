"""Reading a WN-LMF file safely: every way a file can be bad ends in one `LmfFileError` line
naming the file and the problem, and nothing is left behind.

* the header check of goodmami's `wn` (`wn.lmf.is_lmf`: the XML declaration and one of the
  WN-LMF DOCTYPE lines, nothing else) runs before any parsing, so a file that declares
  entities of its own (external entities, "billion laughs") is refused unread, and said to
  declare entities (`declared_entities` looks first);
* a `.gz` file is unpacked into lexbench's cache only while it is read, at most
  `MAX_UNPACKED_BYTES` (a bomb is stopped and its part removed at once), and removed after;
* a reference to an entity WN-LMF does not declare (`&eacute;`: the parser would silently drop
  it, leaving an empty or cut lemma) is refused, with the count;
* a required attribute missing (`wn`'s own checks are `assert`s), a file with no lexicon or
  an empty one: refused;
* relations pointing to nothing and repeated ids: dropped (the first of a repeated id kept)
  and counted in `LmfProblems`, which the caller reports as one warning;
* a lemma LAMBDA's prompts cannot carry (`unfit_for_prompts`: a `|`, as the Romanian
  wordnet's `|se| grăbi`, or a line break) is left out with its senses and the links to
  them, counted in the same warning with an example: the rest of the file is read.
"""

from __future__ import annotations

import gzip
import os
import re
import traceback
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LMF_INSTALL_HINT = (
    "reading WN-LMF files needs the `wn` package: pip install 'lexbench[multilingual]' "
    "(or pip install wn)"
)
# The largest unpacked `.gz` wordnet read (the Open English Wordnet 2024 is about 110 MB):
# a larger one is refused while unpacking, before it fills the disk.
MAX_UNPACKED_BYTES = 1 << 30
# An entity reference other than XML's five and character references: WN-LMF's DTD declares
# none, and a parser that does not read the DTD drops it without a word.
_UNDECLARED_ENTITY = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)[^;\s<&]*;")
# The start of a file read to find a DOCTYPE's entity declarations (before the root element).
_PROLOG_BYTES = 1 << 20
# What a lemma may not hold: `|` joins names in the cached relation index
# (`lexicon.wordnet.index.NAME_SEPARATOR`, a name holding one cannot be stored), and a line break
# would split a LAMBDA prompt's `A : B` lines (`lambda_.prompts.prompt_text`): every
# character `str.splitlines` breaks at.
_UNFIT = re.compile("[|\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def unfit_for_prompts(lemma: str) -> bool:
    """Whether a lemma holds a character LAMBDA's prompts cannot carry (see `_UNFIT`).

    >>> unfit_for_prompts("|se| grăbi"), unfit_for_prompts("grăbi")
    (True, False)
    """
    return _UNFIT.search(lemma) is not None


class LmfFileError(ValueError):
    """A WN-LMF file lexbench cannot read; the message names the file and the problem."""


@dataclass(frozen=True)
class LmfProblems:
    """What was dropped from a lexicon while reading it (reported as one warning)."""

    dangling_relations: int = 0
    repeated_ids: int = 0
    unfit_lemmas: int = 0  # lemmas LAMBDA's prompts cannot carry (`unfit_for_prompts`)
    unfit_example: str = ""

    def warning(self, where: str) -> str | None:
        parts = []
        if self.unfit_lemmas:
            parts.append(
                f"{self.unfit_lemmas:,} lemma(s) hold a character LAMBDA's prompts cannot "
                f"carry ('|' or a line break; e.g. {self.unfit_example!r})"
            )
        if self.dangling_relations:
            parts.append(f"{self.dangling_relations:,} relations point to no sense or synset")
        if self.repeated_ids:
            parts.append(f"{self.repeated_ids:,} ids repeat (the first of each kept)")
        if not parts:
            return None
        return f"lexbench: warning: {where}: {'; '.join(parts)}; left out"


def unpacked(source: Path, folder: Path, cap: int | None = None) -> Path:
    """The content of the gzipped `source` in a new file under `folder` (the caller removes
    it); at most `cap` bytes (default `MAX_UNPACKED_BYTES`), else refused and removed."""
    most = MAX_UNPACKED_BYTES if cap is None else cap
    target = folder / f".{source.name}.{os.getpid()}.unpacked.xml"
    written = 0
    try:
        with gzip.open(source, "rb") as packed, open(target, "wb") as out:
            while block := packed.read(1 << 20):
                written += len(block)
                if written > most:
                    raise LmfFileError(
                        f"{source}: unpacks to more than {most:,} bytes, lexbench's cap for a "
                        f"wordnet; refused"
                    )
                out.write(block)
    except LmfFileError:
        target.unlink(missing_ok=True)
        raise
    except (OSError, EOFError, zlib.error) as error:
        target.unlink(missing_ok=True)
        what = "it ends early" if isinstance(error, EOFError) else error
        raise LmfFileError(f"{source}: cannot unpack the gzipped file ({what})") from None
    return target


def check_entities(data: bytes, where: str) -> None:
    found = _UNDECLARED_ENTITY.findall(data)
    if found:
        named = ", ".join(sorted({e.decode("utf-8", "replace") for e in found})[:3])
        raise LmfFileError(
            f"{where}: {len(found):,} references to entities WN-LMF does not declare ({named}); "
            f"write the characters themselves"
        )


def declared_entities(source: Path) -> bool:
    """Whether the file's DOCTYPE declares entities (`<!ENTITY` before the root element)."""
    with open(source, "rb") as handle:
        prolog = handle.read(_PROLOG_BYTES)
    root = prolog.find(b"<LexicalResource")
    return b"<!ENTITY" in (prolog if root < 0 else prolog[:root])


def load_resource(source: Path, where: str) -> dict[str, Any]:
    """`wn.lmf.load` of a plain XML file, its failures as `LmfFileError`s."""
    try:
        import wn.lmf
    except ImportError:
        raise ImportError(LMF_INSTALL_HINT) from None
    if declared_entities(source):
        raise LmfFileError(
            f"{where}: its DOCTYPE declares entities (<!ENTITY ...>), which WN-LMF does not "
            "use and lexbench does not expand (an entity can read another file or grow "
            "without bound); refused unread. Write the characters themselves"
        )
    if not wn.lmf.is_lmf(source):
        raise LmfFileError(f"{where} is not a WN-LMF file (no LexicalResource header)")
    check_entities(source.read_bytes(), where)
    try:
        return dict(wn.lmf.load(source, progress_handler=None))
    except wn.lmf.LMFError as error:
        cause = error.__cause__
        detail = f"{error}: {cause}" if cause else str(error)
        raise LmfFileError(f"{where}: not a valid WN-LMF file ({detail})") from None
    except AssertionError as error:
        raise LmfFileError(f"{where}: not a valid WN-LMF file ({_missing(error)})") from None


def _missing(error: AssertionError) -> str:
    """What `wn`'s failed `assert` checked, in words ("a relation lacks relType")."""
    if str(error):
        return str(error)
    frames = traceback.extract_tb(error.__traceback__)
    line = frames[-1].line or "" if frames else ""
    found = re.search(r'"(\w+)" in (\w+)', line)
    if found:
        attribute, holder = found.groups()
        element = {"rel": "a relation", "elem": "an element", "lemma": "a <Lemma>"}
        return f"{element.get(holder, holder)} lacks the required attribute {attribute}"
    return f"a required part is missing ({line.strip() or 'wn check failed'})"


def pick_lexicon(resource: Mapping[str, Any], language: str | None, where: str) -> dict[str, Any]:
    """The lexicon for `language` (its language code or its id); the only one when None."""
    lexicons = [lex for lex in resource["lexicons"] if "extends" not in lex]
    if not lexicons:
        raise LmfFileError(f"{where} holds no lexicon")
    held = ", ".join(f"{lex['id']} ({lex['language']})" for lex in lexicons)
    if language is None:
        if len(lexicons) != 1:
            raise LmfFileError(f"{where} holds several lexicons ({held}); pick one with --language")
        return dict(lexicons[0])
    found = [lex for lex in lexicons if language in (lex["language"], lex["id"])]
    if len(found) != 1:
        what = "no" if not found else "more than one"
        raise LmfFileError(f"{where} has {what} lexicon for language {language!r}; it holds {held}")
    return dict(found[0])


def cleaned(lexicon: dict[str, Any], where: str) -> tuple[dict[str, Any], LmfProblems]:
    """The lexicon with repeated ids (after the first), lemmas LAMBDA's prompts cannot
    carry (with their senses and the links to those) and links to nothing left out; an
    empty lexicon (no sense) refused."""
    seen: set[str] = set()
    repeated = 0
    unfit: list[str] = []
    unfit_senses: set[str] = set()  # links to these are not dangling: their lemma went

    def first(element: Mapping[str, Any]) -> bool:
        nonlocal repeated
        if element["id"] in seen:
            repeated += 1
            return False
        seen.add(element["id"])
        return True

    synsets = [s for s in lexicon.get("synsets", []) if first(s)]
    synset_ids = {s["id"] for s in synsets}
    entries = []
    dangling = 0
    for entry in lexicon.get("entries", []):
        if not first(entry):
            continue
        if unfit_for_prompts(entry["lemma"]["writtenForm"]):
            unfit.append(entry["lemma"]["writtenForm"])
            unfit_senses.update(s["id"] for s in entry.get("senses", []) if first(s))
            continue
        senses = []
        for sense in entry.get("senses", []):
            if not first(sense):
                continue
            if sense["synset"] in synset_ids:
                senses.append(sense)
            else:
                dangling += 1
        entries.append({**entry, "senses": senses})
    sense_ids = {s["id"] for e in entries for s in e["senses"]}
    if not sense_ids:
        raise LmfFileError(f"{where}: the lexicon {lexicon['id']} holds no word with a sense")
    for entry in entries:
        for sense in entry["senses"]:
            kept = [
                r
                for r in sense.get("relations", [])
                if r["target"] in sense_ids or r["target"] in synset_ids
            ]
            lost = len(sense.get("relations", [])) - len(kept)
            dangling += lost - sum(r["target"] in unfit_senses for r in sense.get("relations", ()))
            sense["relations"] = kept
    out_synsets = []
    for synset in synsets:
        kept = [r for r in synset.get("relations", []) if r["target"] in synset_ids]
        dangling += len(synset.get("relations", [])) - len(kept)
        out_synsets.append({**synset, "relations": kept})
    return (
        {**lexicon, "entries": entries, "synsets": out_synsets},
        LmfProblems(
            dangling_relations=dangling,
            repeated_ids=repeated,
            unfit_lemmas=len(unfit),
            unfit_example=unfit[0] if unfit else "",
        ),
    )
