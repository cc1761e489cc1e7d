"""SetLexSem's wordings besides the paper's (`--prompt-variant`), in SetLexSem's own
family: the final-answer instruction reworded (still a set within <answer></answer> tags),
the task written after "Task:" instead of inside <task></task> tags, and an instruction
line first. Every method's prompt has the parts they reword."""

from __future__ import annotations

from typing import Any

from lexbench.benchmarks.setlexsem.prompts import FINAL_ANSWER
from lexbench.types import Request
from lexbench.wordings import PromptVariant, replace_required, reword

OTHER_FINAL_ANSWER = (
    "Finally, give only the final answer as a mathematical set, with no code and no other "
    "context. Put nothing but your final answer in your response, within <answer></answer> "
    "XML tags."
)
INSTRUCTION = "Read both sets carefully before you answer."


def _guard(item: Any, request: Request) -> Request:
    return reword(
        request, replace_required(request.prompt, FINAL_ANSWER, OTHER_FINAL_ANSWER, "guard")
    )


def _task_line(item: Any, request: Request) -> Request:
    text = replace_required(request.prompt, "\n<task> ", "\nTask: ", "task-line")
    return reword(request, replace_required(text, " </task>", "", "task-line"))


def _instruction(item: Any, request: Request) -> Request:
    return reword(request, f"{INSTRUCTION}\n{request.prompt}")


VARIANTS = (
    PromptVariant("guard", "the final-answer instruction reworded", _guard),
    PromptVariant("task-line", "the task after 'Task:' instead of in <task> tags", _task_line),
    PromptVariant("instruction", f"an instruction line first: {INSTRUCTION!r}", _instruction),
)
