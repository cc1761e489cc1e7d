"""Offline WordNet 3.0, the raw-data layer: find a WordNet 3.0 database directory and prepare
a copy NLTK's reader accepts.

Search order (`locate_wordnet`): a path the user gives, a copy lexbench prepared earlier,
Debian's `wordnet-base` package, NLTK's own data, then apt-get (as root) or NLTK's downloader.
NLTK 3.10 refuses corpus roots outside its data path or behind symbolic links, so WordNet is
always copied (never linked) into `<cache>/nltk_data/corpora/wordnet`. Debian ships no
`lexnames` file, which NLTK's reader needs; it is written from the table in `man 5 lexnames`
(`LEXNAMES` below). `fingerprint` names the exact content, so every index built from it is
keyed on the data.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from lexbench.paths import cache_dir

# The 45 lexicographer files of WordNet 3.0: number, name, syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb). From `man 5 lexnames`.
LEXNAMES: tuple[str, ...] = (
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
)
_SYNTACTIC_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}

# Files NLTK's reader opens; the first group is required.
REQUIRED_FILES = (
    "data.noun",
    "data.verb",
    "data.adj",
    "data.adv",
    "index.noun",
    "index.verb",
    "index.adj",
    "index.adv",
)
OPTIONAL_FILES = (
    "noun.exc",
    "verb.exc",
    "adj.exc",
    "adv.exc",
    "index.sense",
    "cntlist.rev",
    "lexnames",
)

# Where Debian (wordnet-base + wordnet-sense-index) and the classic Princeton install put it.
SYSTEM_LOCATIONS = ("/usr/share/wordnet", "/usr/local/WordNet-3.0/dict", "/usr/share/wordnet/dict")

INSTALL_HINT = (
    "WordNet 3.0 was not found. Any one of these fixes it:\n"
    "  * Debian/Ubuntu:  sudo apt-get install wordnet-base wordnet-sense-index\n"
    "  * online:         python -c \"import nltk; nltk.download('wordnet')\"\n"
    "  * a local copy:   pass --wordnet DIR (or set LEXBENCH_WORDNET=DIR), where DIR holds\n"
    "                    data.noun, index.noun, ... from WordNet 3.0 (wordnet.princeton.edu)"
)


class WordNetNotFound(RuntimeError):
    """No WordNet 3.0 database could be found or prepared."""


# --------------------------------------------------------------------------------------------
# Raw-data layer: find and prepare the database directory
# --------------------------------------------------------------------------------------------


def _nltk_data_root() -> Path:
    return cache_dir("nltk_data")


def _prepared_dir() -> Path:
    return _nltk_data_root() / "corpora" / "wordnet"


def _has_database(directory: Path) -> bool:
    return all((directory / name).is_file() for name in REQUIRED_FILES)


def write_lexnames(directory: Path) -> None:
    """Write the `lexnames` file NLTK's reader needs (Debian does not ship it)."""
    lines = [
        f"{number:02d}\t{name}\t{_SYNTACTIC_CATEGORY[name.split('.')[0]]}\n"
        for number, name in enumerate(LEXNAMES)
    ]
    (directory / "lexnames").write_text("".join(lines), encoding="utf-8")


def _fingerprint_files(directory: Path) -> str:
    digest = hashlib.sha256()
    for name in REQUIRED_FILES + OPTIONAL_FILES:
        path = directory / name
        if path.is_file():
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def prepare_from(source: Path) -> Path:
    """Copy a WordNet 3.0 database directory into lexbench's NLTK data root.

    Copies real files (NLTK 3.10 refuses symlinks), adds `lexnames` when missing, and records
    a content fingerprint so relation indexes can be keyed on the exact data.
    """
    source = Path(source).expanduser()
    if not _has_database(source):
        missing = [name for name in REQUIRED_FILES if not (source / name).is_file()]
        raise WordNetNotFound(
            f"{source} is not a WordNet 3.0 database directory (missing: {', '.join(missing)}).\n"
            + INSTALL_HINT
        )
    target = _prepared_dir()
    staging = target.with_name("wordnet.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in REQUIRED_FILES + OPTIONAL_FILES:
        path = source / name
        if path.is_file():
            # copyfile follows a symlinked source and writes a plain file.
            shutil.copyfile(path, staging / name)
    if not (staging / "lexnames").is_file():
        write_lexnames(staging)
    (staging / "lexbench-fingerprint.txt").write_text(_fingerprint_files(staging) + "\n")
    (staging / "lexbench-source.txt").write_text(str(source.resolve()) + "\n")
    # Rename last so a half-copied database is never mistaken for a prepared one.
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return target


def _try_apt_install() -> bool:
    """Install Debian's WordNet packages when we are root on a Debian-like system."""
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return False
    if os.environ.get("LEXBENCH_NO_APT"):
        return False
    print("lexbench: installing WordNet 3.0 with apt-get (wordnet-base wordnet-sense-index)...")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    result = subprocess.run(
        ["apt-get", "install", "-y", "-q", "wordnet-base", "wordnet-sense-index"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode == 0


def _try_nltk_download() -> Path | None:
    """NLTK's downloader, into lexbench's data root; None when offline or refused."""
    import nltk

    try:
        ok = nltk.download(
            "wordnet", download_dir=str(_nltk_data_root()), quiet=True, raise_on_error=False
        )
    except Exception as error:  # network errors come in many types; we report and go on
        print(f"lexbench: NLTK download of WordNet failed: {error}")
        return None
    if not ok:
        return None
    zipped = _nltk_data_root() / "corpora" / "wordnet.zip"
    if zipped.is_file() and not _has_database(_prepared_dir()):
        import zipfile

        extract_to = _nltk_data_root() / "corpora" / "wordnet-download"
        with zipfile.ZipFile(zipped) as archive:
            archive.extractall(extract_to)
        inner = next((p for p in extract_to.rglob("data.noun")), None)
        if inner is None:
            return None
        return inner.parent
    return _prepared_dir() if _has_database(_prepared_dir()) else None


def locate_wordnet(
    path: str | os.PathLike[str] | None = None, *, allow_install: bool = True
) -> Path:
    """Return a prepared WordNet 3.0 directory NLTK can read, preparing one if needed.

    Search order: `path` (or `$LEXBENCH_WORDNET`), a copy prepared earlier, the system
    locations Debian and Princeton use, NLTK's own data, then (if `allow_install`) apt-get
    when running as root and NLTK's downloader. Raises `WordNetNotFound` naming what to
    install when nothing works.
    """
    explicit = path or os.environ.get("LEXBENCH_WORDNET")
    if explicit:
        explicit_path = Path(explicit).expanduser()
        prepared = _prepared_dir()
        source_note = prepared / "lexbench-source.txt"
        if (
            _has_database(prepared)
            and source_note.is_file()
            and source_note.read_text().strip() == str(explicit_path.resolve())
        ):
            return prepared
        return prepare_from(explicit_path)

    prepared = _prepared_dir()
    if _has_database(prepared) and (prepared / "lexnames").is_file():
        return prepared

    candidates = [Path(p) for p in SYSTEM_LOCATIONS]
    wnsearch = os.environ.get("WNSEARCHDIR")
    if wnsearch:
        candidates.insert(0, Path(wnsearch))
    for candidate in candidates:
        if _has_database(candidate):
            return prepare_from(candidate)

    import nltk

    try:
        existing = Path(str(nltk.data.find("corpora/wordnet")))
        if existing.is_dir() and _has_database(existing):
            return prepare_from(existing)
    except LookupError:
        pass

    if allow_install:
        if _try_apt_install():
            for candidate in candidates:
                if _has_database(candidate):
                    return prepare_from(candidate)
        downloaded = _try_nltk_download()
        if downloaded is not None:
            return downloaded if downloaded == prepared else prepare_from(downloaded)
    raise WordNetNotFound(INSTALL_HINT)


def fingerprint(directory: Path) -> str:
    note = directory / "lexbench-fingerprint.txt"
    if note.is_file():
        return note.read_text().strip()
    return _fingerprint_files(directory)
