"""The other tool run by itself on an exported task: the command lexbench prints (and
`--verify` runs), and each tool's per-item verdicts read from what it wrote.

    lm_eval --include_path TASK --tasks lexbench_scan --model hf --model_args pretrained=MODEL
    cd TASK && inspect eval task.py --model hf/MODEL --model-config model-args.yaml

inspect_ai refuses an absolute task path ("Non-relative patterns are unsupported"), so its
command runs from the task's folder; the folder is shell-quoted, so a path with spaces
works from any directory. MODEL is a transformers folder: `transformers_folder` gives the
packaged SmolLM2's (de-quantised once into the user cache), which both tools load offline.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexbench.export.inspect_task import MODEL_ARGS, SCORER_NAME
from lexbench.export.lm_eval import PLACEHOLDER, lm_eval_argv
from lexbench.export.scorer import MANIFEST, ExportScorer
from lexbench.types import Response

#: The models lexbench ships: a name for the packaged SmolLM2.
PACKAGED_MODELS = ("smollm2-135m", "smollm2", "hf:smollm2-135m")


@dataclass(frozen=True)
class Verdict:
    """One item as a tool saw it: what the model answered, and the score."""

    output: str
    correct: bool
    value: float | None = None  # the graded value, where the tool reports one


def transformers_folder(model: str) -> Path:
    """The transformers folder (safetensors, config, tokenizer) that lm-eval's `hf` model and
    inspect_ai's `hf/` provider load for `model`: the packaged SmolLM2 de-quantised into
    the user cache (built on first use, float32 as lexbench runs it), or a local folder."""
    if model in PACKAGED_MODELS:
        from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf

        folder, _ = dequantised_cache(packaged_smollm2_gguf(), "float32")
        return folder
    path = Path(model.removeprefix("hf:")).expanduser()
    if not (path / "config.json").is_file():
        raise ValueError(
            f"--verify needs smollm2-135m or a local transformers folder (with config.json) "
            f"that both tools load offline; {model!r} is neither"
        )
    return path.resolve()


def lexbench_model_spec(model: str) -> str:
    """The same model as a lexbench model spec."""
    return "smollm2-135m" if model in PACKAGED_MODELS else f"hf:{transformers_folder(model)}"


def manifest_of(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / MANIFEST).read_text(encoding="utf-8")))


def inspect_argv(model: Path | None) -> list[str]:
    """inspect's command, run from the task's folder (it takes no absolute task path)."""
    model_text = PLACEHOLDER if model is None else str(model)
    return [
        "inspect",
        "eval",
        "task.py",
        "--model",
        f"hf/{model_text}",
        "--model-config",
        MODEL_ARGS,
    ]


def printed_command(fmt: str, folder: Path, chat: bool) -> str:
    """The shell line that runs the exported task, paths quoted (any directory, spaces)."""
    folder = folder.resolve()
    if fmt == "lm-eval":
        return shlex.join(lm_eval_argv(folder, None, chat=chat))
    return f"cd {shlex.quote(str(folder))} && {shlex.join(inspect_argv(None))}"


#: What `--verify` adds to the printed command, and nothing else: where the tool writes its
#: logs and how it shows progress (inspect's plain display prints its sample count; its
#: default full-screen one draws nothing through a pipe), and for lm-eval the CPU and a
#: batch of 16 (lexbench's own run batches too).
LM_EVAL_ADDED = ("--device", "cpu", "--batch_size", "16", "--log_samples", "--output_path")
INSPECT_ADDED = ("--display", "plain", "--log-dir")


def verify_argv(fmt: str, folder: Path, model: Path, out: Path, *, chat: bool) -> list[str]:
    """The command `--verify` runs: the printed one with MODEL filled in, then the options
    above (`out`: where the tool's logs go)."""
    if fmt == "lm-eval":
        return [*lm_eval_argv(folder, model, chat=chat), *LM_EVAL_ADDED, str(out)]
    return [*inspect_argv(model), *INSPECT_ADDED, str(out)]


def _executable(name: str) -> str:
    """The tool's console script beside this Python (the same environment), else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else name


def _run(argv: list[str], cwd: Path, tool: str) -> None:
    """Run the tool's command line in `cwd`, streaming its output (`tool_output`)."""
    from lexbench.export.tool_output import run_streamed

    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    where = "" if tool != "inspect" else f"cd {shlex.quote(str(cwd))} && "
    print(f"lexbench: running {where}{shlex.join(argv)}", file=sys.stderr, flush=True)
    status, tail = run_streamed([_executable(argv[0]), *argv[1:]], cwd, env, tool)
    if status != 0:
        raise RuntimeError(f"{tool} exited with status {status}: {' | '.join(tail[-3:])}")


def run_lm_eval(folder: Path, model: Path, out: Path, *, chat: bool) -> dict[str, Verdict]:
    """lm-eval run by itself (the printed command line) on the exported task; its verdicts,
    with lexbench's chosen option named for a multiple-choice item."""
    _run(verify_argv("lm-eval", folder, model, out, chat=chat), folder, "lm-eval")
    lines = [
        json.loads(line)
        for path in sorted(out.rglob("samples_*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return lm_eval_verdicts(lines, ExportScorer(folder / MANIFEST))


def lm_eval_verdicts(
    samples: Iterable[Mapping[str, Any]], scorer: ExportScorer | None = None
) -> dict[str, Verdict]:
    """{item id: verdict} from lm-eval's logged samples (`--log_samples`); a run that logged
    none is a failure, whatever lm-eval's exit status was. A multiple-choice item's output
    is the option lexbench's scorer chooses from lm-eval's log-likelihoods (`scorer`: the
    export's), as lexbench's side names its own choice; without a scorer, the index of the
    largest sum."""
    verdicts: dict[str, Verdict] = {}
    for sample in samples:
        responses = sample["resps"]
        if sample["doc"].get("choices") is not None:  # multiple choice: (loglikelihood, greedy)
            scores = [float(r[0][0]) for r in responses]
            output = f"choice {scores.index(max(scores))}"
            if scorer is not None:
                output = chosen_option(scorer, str(sample["doc"]["id"]), scores)
        else:
            output = str(responses[0][0])
        verdicts[str(sample["doc"]["id"])] = Verdict(output, bool(sample["acc"]))
    if not verdicts:
        raise RuntimeError("lm-eval completed no sample")
    return verdicts


def chosen_option(scorer: ExportScorer, item_id: str, loglikelihoods: Sequence[float]) -> str:
    """The option lexbench's scorer chooses for `item_id` from these log-likelihoods (its
    answer: E-KAR's letter, SAT's pair), as `choice N` when it names none."""
    request = scorer.request(item_id)
    verdict = scorer.score(
        item_id, Response(request_id=request.id, loglikelihoods=tuple(loglikelihoods))
    )
    return str(verdict.answer) if verdict.answer not in (None, "") else "no choice"


def run_inspect(folder: Path, model: Path, out: Path) -> dict[str, Verdict]:
    """inspect_ai run by itself (the printed command line, from the task's folder); its
    verdicts."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    _run(verify_argv("inspect", folder, model, out, chat=False), folder, "inspect")
    logs = list_eval_logs(str(out))
    if not logs:
        raise RuntimeError(f"inspect wrote no log to {out}")
    return inspect_verdicts(read_eval_log(logs[0]))


def inspect_verdicts(log: Any) -> dict[str, Verdict]:
    """{item id: verdict} from an inspect_ai eval log; a log whose status is not success,
    or that completed no sample, is a failure whatever inspect's exit status was."""
    if log.status != "success":
        error = getattr(log.error, "message", None) or log.status
        raise RuntimeError(f"inspect's run ended with status {log.status!r}: {error}")
    verdicts: dict[str, Verdict] = {}
    for sample in log.samples or []:
        if sample.error or not sample.scores:
            continue
        value = sample.scores[SCORER_NAME].value
        verdicts[str(sample.id)] = Verdict(
            sample.output.completion, bool(value["correct"]), float(value["value"])
        )
    if not verdicts:
        raise RuntimeError("inspect completed no sample")
    return verdicts
