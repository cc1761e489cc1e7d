"""Where lexbench keeps what it prepares once: WordNet copies, indexes, model caches.

Everything lives under one cache root so a user can see (and delete) it in one place.
`LEXBENCH_CACHE` overrides the default `~/.cache/lexbench` (or `$XDG_CACHE_HOME/lexbench`).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The directory lexbench writes its caches under, created on demand."""
    explicit = os.environ.get("LEXBENCH_CACHE")
    if explicit:
        root = Path(explicit)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = (Path(xdg) if xdg else Path.home() / ".cache") / "lexbench"
    root.mkdir(parents=True, exist_ok=True)
    return root


def cache_dir(*parts: str) -> Path:
    """A sub-directory of the cache root, created on demand."""
    path = cache_root().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
