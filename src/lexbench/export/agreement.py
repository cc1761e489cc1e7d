"""Many exported tasks through lm-eval and inspect_ai in one process each, the model loaded
once per tool (and per prompt mode), for the agreement tests and
`measurements/studies/export_agreement.py`; `--verify` runs one export through the tool's command
line instead (`lexbench.export.tool_runs`).

    folders = export_slices({"scan": {"limit": 1}}, Path("exports"))
    theirs = lm_eval_in_process(folders, transformers_folder("smollm2-135m"))
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexbench.export.lm_eval import lm_eval_tasks
from lexbench.export.scorer import MANIFEST, ExportScorer
from lexbench.export.tool_runs import Verdict, inspect_verdicts, lm_eval_verdicts, manifest_of

#: The tools and the benchmarks each can take (inspect_ai has no log-likelihood request).
TOOLS = ("lm-eval", "inspect")


def export_slices(
    slices: Mapping[str, Mapping[str, Any]],
    root: Path,
    *,
    skip: Mapping[str, set[str]] | None = None,
) -> dict[tuple[str, str], Path]:
    """Export each benchmark's slice for both tools: {(benchmark, format): folder};
    `skip` names the benchmarks a format leaves out."""
    from lexbench.export.formats import export

    folders = {}
    for benchmark, options in slices.items():
        for fmt in TOOLS:
            if benchmark in (skip or {}).get(fmt, set()):
                continue
            folder = root / f"{benchmark} {fmt}"
            export(benchmark, dict(options), fmt, folder)
            folders[(benchmark, fmt)] = folder
    return folders


def _by_mode(folders: Mapping[str, Path]) -> dict[bool, dict[str, Path]]:
    modes: dict[bool, dict[str, Path]] = {}
    for benchmark, folder in folders.items():
        chat = manifest_of(folder)["prompt_mode"] == "chat"
        modes.setdefault(chat, {})[benchmark] = folder
    return modes


def lm_eval_in_process(
    folders: Mapping[str, Path], model_folder: Path, *, batch_size: int = 16
) -> dict[str, dict[str, Verdict]]:
    """{benchmark: verdicts}: lm-eval's own evaluator on exported lm-eval tasks, its `hf`
    model loaded once (with `--apply_chat_template` for the chat-mode tasks)."""
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    model = HFLM(pretrained=str(model_folder), batch_size=batch_size, device="cpu", dtype="float32")
    verdicts: dict[str, dict[str, Verdict]] = {}
    for chat, chosen in sorted(_by_mode(folders).items()):
        results = lm_eval.simple_evaluate(
            model=model,
            tasks=[task for folder in chosen.values() for task in lm_eval_tasks(folder)],
            # lm-eval's command line puts --model_args in the tasks' metadata; so do we.
            task_manager=TaskManager(
                include_path=[str(f) for f in chosen.values()],
                include_defaults=False,
                metadata={"pretrained": str(model_folder)},
            ),
            apply_chat_template=chat,
            log_samples=True,
        )
        for task, samples in results["samples"].items():
            benchmark = max((b for b in chosen if task.startswith(f"lexbench_{b}")), key=len)
            scorer = ExportScorer(chosen[benchmark] / MANIFEST)  # names lexbench's choice
            verdicts.setdefault(benchmark, {}).update(lm_eval_verdicts(samples, scorer))
    return verdicts


def inspect_in_process(
    folders: Mapping[str, Path], model_folder: Path, log_dir: Path
) -> dict[str, dict[str, Verdict]]:
    """{benchmark: verdicts}: inspect_ai's own `eval` on exported inspect tasks, all tasks of
    a prompt mode in one call, its `hf/` provider with the export's model arguments."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from lexbench.export.inspect_task import lexbench_task, model_args

    verdicts = {}
    for chat, chosen in sorted(_by_mode(folders).items()):
        model = get_model(f"hf/{model_folder}", **model_args(chat))
        logs = inspect_eval(
            [lexbench_task(folder) for folder in chosen.values()],
            model=model,
            display="none",
            log_dir=str(log_dir),
        )
        for log in logs:
            verdicts[log.eval.task.removeprefix("lexbench_")] = inspect_verdicts(log)
    return verdicts
