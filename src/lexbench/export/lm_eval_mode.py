"""An lm-eval export runs in lexbench's prompt mode or not at all.

lexbench sends some benchmarks' generation prompts in a chat model's chat format (SetLexSem:
`chat_default`) and the rest as plain completions; lm-eval does the first only with
`--apply_chat_template`. Run the other way, an export asks a different question and scores
near zero without a word (a chat-mode SetLexSem export without the flag: 0/8), and lm-eval's
own warning ("appears to be an instruct or chat variant ... Recommend setting
`apply_chat_template`") invites the flag on every completion-mode export of an instruct
model. So the mode is said three times and enforced once:

* the printed command carries `--apply_chat_template` exactly when it is needed, followed by
  a line that says so (`mode_note`);
* the task folder's README.md says it (`readme`);
* each task's class (`class: !function utils.LexbenchTask` in its YAML) compares lm-eval's
  `apply_chat_template` with the export's mode (the YAML's `lexbench_prompt_mode`) before
  building a request, and refuses the other mode in one line that names the fix.

A model without a chat template, to which lexbench sends the plain prompt, runs a chat-mode
export with `--metadata '{"lexbench_prompt_mode": "completion"}'` (lm-eval's runtime
metadata overrides the YAML's), not with the flag; the other way round likewise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FLAG = "--apply_chat_template"
#: The task YAML's metadata key that holds the export's prompt mode; lm-eval's `--metadata`
#: overrides it at run time (its runtime metadata wins over the YAML's).
MODE_KEY = "lexbench_prompt_mode"
#: How to run a chat-mode export on a model without a chat template, to which lexbench
#: sends the plain prompt (and the other way round).
PLAIN = f'--metadata \'{{"{MODE_KEY}": "completion"}}\''
CHAT = f'--metadata \'{{"{MODE_KEY}": "chat"}}\' {FLAG}'


def mode_note(chat: bool) -> str:
    """The line printed under the command."""
    if chat:
        return (
            f"chat prompts: {FLAG} is required (lexbench sends this benchmark in the model's "
            f"chat format; the task refuses to run without it); for a model without a chat "
            f"template, replace it with {PLAIN}"
        )
    return (
        f"completion prompts: run it without {FLAG}, whatever lm-eval's warning about "
        f"instruct or chat models says (the task refuses the flag); to send chat prompts "
        f"instead, add {CHAT}"
    )


def mismatch(task: str, metadata: Mapping[str, Any] | None, apply_chat_template: Any) -> str | None:
    """Why `task` of this export must not run with lm-eval's `apply_chat_template` as given
    (None when the mode is the export's, or the one `--metadata` chose)."""
    mode = (metadata or {}).get(MODE_KEY)
    if mode == "chat" and not apply_chat_template:
        return (
            f"{task}: lexbench sends these prompts in the model's chat format; run lm_eval "
            f"with {FLAG} (for a model without a chat template: {PLAIN})"
        )
    if mode == "completion" and apply_chat_template:
        return (
            f"{task}: lexbench sends these prompts as plain completions; run lm_eval without "
            f"{FLAG} (to send chat prompts instead: {CHAT})"
        )
    return None


def lexbench_task_class() -> type:
    """lm-eval's ConfigurableTask that refuses to build requests in the other prompt mode."""
    from lm_eval.api.task import ConfigurableTask

    class LexbenchTask(ConfigurableTask):
        def __init__(self, config: dict[str, Any] | None = None) -> None:
            # lm-eval hands a Python task its whole YAML, `class` included.
            super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})

        def build_all_requests(self, *, apply_chat_template: Any = False, **kwargs: Any) -> Any:
            problem = mismatch(self.config.task, self.config.metadata, apply_chat_template)
            if problem:
                raise ValueError(problem)
            return super().build_all_requests(apply_chat_template=apply_chat_template, **kwargs)

    return LexbenchTask


def readme(benchmark: str, tasks: str, chat: bool, command: str, items: int) -> str:
    """The task folder's README.md: how to run it, and the prompt mode, said first."""
    if chat:
        mode = (
            f"**Chat prompts: run with `{FLAG}`.** lexbench sends {benchmark}'s prompts in the "
            "model's chat format, so lm-eval must too. Without the flag lm-eval would send the "
            "raw prompt and the model would answer a different question and score near zero; "
            "the task refuses to run without it. For a model without a chat template (to "
            f"which lexbench sends the plain prompt), run it with `{PLAIN}` instead of the flag."
        )
    else:
        mode = (
            f"**Completion prompts: run without `{FLAG}`.** lexbench sends {benchmark}'s "
            "prompts as plain completions, as this task does. lm-eval warns that an instruct "
            'or chat model "appears to be an instruct or chat variant" and recommends '
            f"`{FLAG}`: do not add it here (the task refuses it). To send the prompts in the "
            f"model's chat format instead, run it with `{CHAT}`."
        )
    return (
        f"# {tasks} (lexbench export of {benchmark})\n\n{mode}\n\n"
        f"Run it from this folder ({items} items; MODEL is a transformers folder or a Hub "
        "id):\n\n"
        f"```bash\n{command}\n```\n\n"
        "`acc` is lexbench's verdict per item, from lexbench's own scorer (`utils.py`); "
        "`lexbench-manifest.json` names the benchmark, its options and the content hash. "
        "See lexbench's docs/exporting.md.\n"
    )
