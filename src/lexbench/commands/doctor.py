"""`lexbench doctor`: what this machine has for lexbench, and how to get what it lacks.

    lexbench doctor [--base-url http://127.0.0.1:8000/v1] [--api-key-env NAME] [--wordnet DIR]

Checks WordNet 3.0, the packaged SmolLM2 model, the optional backends' packages, a GPU, and
(with --base-url) an OpenAI-compatible server. Each check is a plain function returning a
`Check`; nothing is downloaded or installed. Exit status 1 when a required piece is missing
(WordNet, or the server you named), else 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.commands.arguments import server_url
from lexbench.terminal import strip_url_credentials

SERVER_HINT = (
    "start an OpenAI-compatible server, then pass its URL (ending in /v1) as --base-url:\n"
    "  * the packaged model:  pip install 'llama-cpp-python[server]' &&\n"
    "      python -m llama_cpp.server --model {gguf} --host 127.0.0.1 --port 8000\n"
    "  * any Hub model (GPU): pip install vllm && vllm serve MODEL --port 8000\n"
    "  * a hosted API:        --base-url https://api.openai.com/v1 with the key in $OPENAI_API_KEY"
)


@dataclass(frozen=True)
class Check:
    """One piece lexbench may need: whether it is here, what was found, and how to get it."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = False


def check_wordnet(path: str | None = None) -> Check:
    from lexbench.lexicon.wordnet.files import WordNetNotFound, locate_wordnet

    try:
        found = locate_wordnet(path, allow_install=False)
    except (WordNetNotFound, FileNotFoundError) as error:
        return Check("WordNet 3.0", False, "not found", str(error), required=True)
    return Check("WordNet 3.0", True, str(found), required=True)


def check_packaged_model() -> Check:
    from lexbench.models.hf_files import packaged_smollm2_gguf

    try:
        gguf = packaged_smollm2_gguf()
    except FileNotFoundError as error:
        return Check("packaged model (SmolLM2-135M)", False, "not installed", str(error))
    size = gguf.stat().st_size / 2**20
    return Check("packaged model (SmolLM2-135M)", True, f"{gguf} ({size:.0f} MiB)")


# (import name, what it is for, how to install)
PACKAGES: tuple[tuple[str, str, str], ...] = (
    (
        "torch",
        "in-process models (hf backend)",
        "pip install torch  (CPU: --index-url https://download.pytorch.org/whl/cpu)",
    ),
    ("transformers", "in-process models (hf backend)", "pip install 'lexbench[hf]'"),
    ("httpx", "OpenAI-compatible servers (openai backend)", "pip install 'lexbench[openai]'"),
    (
        "llama_cpp",
        "serving the packaged GGUF locally (optional)",
        "pip install 'llama-cpp-python[server]'  (compiles llama.cpp, about 10 minutes)",
    ),
)


def check_packages() -> list[Check]:
    checks = []
    for module, purpose, install in PACKAGES:
        # find_spec, not import: importing torch alone takes seconds.
        present = importlib.util.find_spec(module) is not None
        checks.append(
            Check(
                f"package {module}",
                present,
                purpose if present else f"missing: needed for {purpose}",
                "" if present else install,
            )
        )
    return checks


def check_gpu() -> Check:
    fix = (
        "optional: lexbench runs on the CPU. For a GPU, install a CUDA build of torch "
        "(https://pytorch.org/get-started/locally/), or serve the model with vLLM on a GPU "
        "machine and use --model openai:NAME --base-url URL"
    )
    if importlib.util.find_spec("torch") is not None:
        import torch

        if torch.cuda.is_available():
            names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
            return Check("GPU", True, f"CUDA: {', '.join(names)}")
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return Check("GPU", True, "Apple MPS")
        cuda_build = torch.version.cuda
        detail = f"torch {torch.__version__} sees no CUDA device" + (
            "" if cuda_build else " (a CPU-only build)"
        )
    else:
        detail = "torch is not installed"
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        listed = subprocess.run(
            [smi, "-L"], capture_output=True, text=True, check=False, timeout=20
        ).stdout.strip()
        if listed:
            detail += f"; nvidia-smi lists: {listed.splitlines()[0]}"
    return Check("GPU", False, detail, fix)


def check_server(base_url: str, api_key_env: str = "OPENAI_API_KEY", timeout: float = 5.0) -> Check:
    """GET {base_url}/models: reachable, the key accepted, and which models it serves."""
    import httpx

    from lexbench.models.hf_files import packaged_smollm2_gguf

    try:
        gguf: Any = packaged_smollm2_gguf()
    except FileNotFoundError:
        gguf = "MODEL.gguf"
    hint = SERVER_HINT.format(gguf=gguf)
    key = os.environ.get(api_key_env)
    from lexbench.terminal import terminal_text

    public_url = strip_url_credentials(base_url).rstrip("/")  # never show URL credentials
    name = f"server {public_url}"
    key_note = f"${api_key_env} {'set' if key else 'not set'}"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = base_url.rstrip("/") + "/models"
    try:
        reply = httpx.get(url, headers=headers, timeout=timeout)
    except httpx.HTTPError as error:
        return Check(
            name, False, f"not reachable ({type(error).__name__}); {key_note}", hint, required=True
        )
    if reply.status_code in (401, 403):
        return Check(
            name,
            False,
            f"reachable, but refused the key (HTTP {reply.status_code}); {key_note}",
            f"put a valid key in ${api_key_env} (or name another variable with --api-key-env)",
            required=True,
        )
    if reply.status_code != 200:
        return Check(
            name,
            False,
            f"GET {public_url}/models answered HTTP {reply.status_code}; {key_note}",
            "check the URL: OpenAI-compatible servers serve /v1/models, so the base "
            "URL usually ends in /v1\n" + hint,
            required=True,
        )
    from lexbench.models.secrets import SecretMask, credential_secrets, split_url_credentials

    # A server may echo the key or the URL's credentials in its model list too.
    mask = SecretMask(credential_secrets(key, split_url_credentials(base_url)[1]))
    try:
        models = [terminal_text(mask(str(m.get("id")))) for m in reply.json().get("data", [])]
    except (ValueError, AttributeError):
        return Check(
            name,
            False,
            f"GET {public_url}/models did not answer OpenAI-style JSON",
            hint,
            required=True,
        )
    shown = ", ".join(models[:5]) + (f" (+{len(models) - 5} more)" if len(models) > 5 else "")
    return Check(
        name,
        True,
        f"serves {shown or 'no models listed'}; {key_note}; "
        f"use --model openai:{models[0] if models else 'NAME'} --base-url {public_url}",
        required=True,
    )


def run_checks(
    base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY", wordnet: str | None = None
) -> list[Check]:
    checks = [check_wordnet(wordnet), check_packaged_model(), *check_packages(), check_gpu()]
    if base_url:
        checks.append(check_server(base_url, api_key_env))
    return checks


def format_checks(checks: Sequence[Check], base_url_given: bool = True) -> str:
    width = max(len(c.name) for c in checks)
    lines = []
    for check in checks:
        mark = "ok" if check.ok else ("MISSING" if check.required else "missing")
        lines.append(f"[{mark:>7}] {check.name:<{width}}  {check.detail}")
        if not check.ok and check.fix:
            fix_lines = check.fix.splitlines()
            lines.append(f"{'':10}how to get it: {fix_lines[0]}")
            lines.extend(f"{'':10}{line}" for line in fix_lines[1:])
    if not base_url_given:
        lines.append("(no --base-url given: pass one to check an OpenAI-compatible server)")
    return "\n".join(lines)


def _doctor(args: argparse.Namespace) -> int:
    checks = run_checks(args.base_url, args.api_key_env, args.wordnet)
    print(format_checks(checks, base_url_given=bool(args.base_url)))
    return 1 if any(c.required and not c.ok for c in checks) else 0


def register(cli: Any) -> None:
    parser = cli.command(
        "doctor",
        "what is available (WordNet, models, GPU, a server) and how to get what is missing",
        _doctor,
    )
    parser.add_argument(
        "--base-url",
        type=server_url,
        default=None,
        help="also check the OpenAI-compatible server at this URL",
    )
    parser.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the server's API key",
    )
    parser.add_argument("--wordnet", default=None, help="a WordNet 3.0 directory to check")
