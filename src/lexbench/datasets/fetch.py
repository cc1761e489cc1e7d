"""Download a public data file once, check its hash, and cache it.

    path = fetch("https://.../SCAN_dataset.csv", sha256="...", name="scan/SCAN_dataset.csv")

* A file already in the cache with the right hash is returned without touching the network.
* A download goes to a temporary name and is renamed only after the hash matches, so a
  broken or tampered download never lands in the cache.
* Offline, the error says which URL failed and how to supply the file by path instead.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

from lexbench.hashing import sha256_file
from lexbench.paths import cache_dir


class DownloadError(RuntimeError):
    """The file could not be downloaded, or its hash did not match."""


sha256_of = sha256_file  # the name callers of this module know


def cached_path(name: str) -> Path:
    """Where `fetch` keeps a file called `name` (relative, may contain folders)."""
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"cache name must be a relative path without '..', got {name!r}")
    path = cache_dir("data") / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def fetch(url: str, *, sha256: str | None, name: str, timeout: float = 60.0) -> Path:
    """The cached copy of `url`, downloading it if needed. `sha256=None` skips the check
    (only for files whose content legitimately changes; say why at the call site)."""
    target = cached_path(name)
    if target.is_file() and (sha256 is None or sha256_of(target) == sha256):
        return target
    partial = target.with_name(target.name + ".partial")
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "lexbench"})
        with (
            urllib.request.urlopen(request, timeout=timeout) as response,
            open(partial, "wb") as out,
        ):
            while block := response.read(1 << 20):
                out.write(block)
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        partial.unlink(missing_ok=True)
        raise DownloadError(
            f"could not download {url} ({error}). If this machine is offline, download the "
            f"file elsewhere and pass its local path instead."
        ) from None
    if sha256 is not None:
        actual = sha256_of(partial)
        if actual != sha256:
            partial.unlink(missing_ok=True)
            raise DownloadError(
                f"{url}: sha256 {actual} does not match the expected {sha256}; "
                "the file was not cached"
            )
    os.replace(partial, target)
    return target
