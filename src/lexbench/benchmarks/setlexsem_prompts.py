"""SetLexSem prompt text: set construction, `<task>`, k demonstrations, final instructions.

    You are given two sets. Set A is {12, 47}. Set B is {47, 90}. You are given the following task:
    <task> Print the set union of A and B as a Python set. </task>
    These are some examples:
    <examples>
    - If set A is {3, 8} and set B is {8, 5}, the answer is {3, 8, 5}, because 3, 8, and 5 are in either A or B.
    </examples>
    Do not explain your reasoning. Do not write code or use any tools. ...

Members are written bare (no quotes), as in the paper. The method decides the final
instructions; the phrasing decides how the task is worded (formal set vocabulary or plain
language). Demonstrations use the same operation on other sets, with the answer and a one-line
reason; with the empty set as answer they say so ("{} (the empty set)").

Unlike the paper, no prompt ends with a pre-filled "<thinking>" tag: a pre-fill cannot be
passed through a chat template, and the same text must serve completion and chat models.
"""

from __future__ import annotations

from collections.abc import Sequence

from lexbench.benchmarks.setlexsem_sets import Member, ordered_answer

FORMAL_TASKS = {
    "union": "Print the set union of A and B as a Python set.",
    "intersection": "Print the set intersection of A and B as a Python set.",
    "difference": "Print the set difference of A and B as a Python set.",
    "symmetric_difference": "Print the symmetric set difference of A and B as a Python set.",
}
PLAIN_TASKS = {
    "union": "Print the set of members belonging to either A or B as a Python set.",
    "intersection": "Print the set of members belonging to both A and B as a Python set.",
    "difference": "Print the set of members belonging to A and not to B as a Python set.",
    "symmetric_difference": ("Print the set of members belonging to A or B but not to both "
                             "A and B as a Python set."),
}

NO_CODE = "Do not write code or use any tools."
ANSWER_FORMAT = ("At last, give only the final answer as a set, without any code or additional "
                 "context, inside <answer></answer> XML tags.")
EMPTY_ALLOWED = "The answer can be an empty set."
STOP = "Stop after printing."
THINKING = "Explain your step-by-step reasoning in detail within <thinking></thinking> XML tags."
REFLECTION = ("Then check every member of your result against A and B within "
              "<reflection></reflection> XML tags, and correct any mistake.")

METHOD_INSTRUCTIONS = {
    "baseline": " ".join(["Do not explain your reasoning.", NO_CODE, ANSWER_FORMAT, STOP]),
    "allow_empty_set": " ".join(["Do not explain your reasoning.", NO_CODE, ANSWER_FORMAT,
                                 EMPTY_ALLOWED, STOP]),
    "chain_of_thought": " ".join(["Think step by step.", THINKING, ANSWER_FORMAT]),
    "self_reflection": " ".join(["Think step by step.", THINKING, REFLECTION, ANSWER_FORMAT]),
}

EXAMPLES_BEGIN = "These are some examples:\n<examples>\n"
EXAMPLES_END = "</examples>\n"


def set_text(members: Sequence[Member]) -> str:
    """{a, b, c}; the empty set is {}."""
    return "{" + ", ".join(str(m) for m in members) + "}"


def english_list(members: Sequence[Member]) -> str:
    """1 -> "1"; 1, 2 -> "1 and 2"; 1, 2, 3 -> "1, 2, and 3"."""
    items = [str(m) for m in members]
    if not items:
        raise ValueError("english_list needs at least one member")
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f", and {items[-1]}"


def _verb(members: Sequence[Member]) -> str:
    return "is" if len(members) == 1 else "are"


def demonstration_reason(operation: str, a: Sequence[Member], b: Sequence[Member],
                         answer: Sequence[Member]) -> str:
    if operation == "union":
        return f"{english_list(answer)} {_verb(answer)} in either A or B"
    if operation == "intersection":
        if not answer:
            return "no members are in both A and B"
        return f"{english_list(answer)} {_verb(answer)} in both A and B"
    if operation == "difference":
        if not answer:
            return "all members of A are in B"
        return f"only {english_list(answer)} {_verb(answer)} in A and not in B"
    if operation == "symmetric_difference":
        if not answer:
            return "A and B have the same members"
        only_a = [m for m in answer if m in set(a)]
        only_b = [m for m in answer if m in set(b)]
        parts = [f"{english_list(side)} {_verb(side)} only in {name}"
                 for side, name in ((only_a, "A"), (only_b, "B")) if side]
        return " and ".join(parts)
    raise ValueError(f"unknown operation {operation!r}")


def demonstration(operation: str, a: Sequence[Member], b: Sequence[Member]) -> str:
    answer = ordered_answer(operation, a, b)
    shown = set_text(answer) + (" (the empty set)" if not answer else "")
    return (f"If set A is {set_text(a)} and set B is {set_text(b)}, the answer is {shown}, "
            f"because {demonstration_reason(operation, a, b, answer)}.")


def task_text(operation: str, phrasing: str) -> str:
    table = FORMAL_TASKS if phrasing == "formal" else PLAIN_TASKS if phrasing == "plain" else None
    if table is None:
        raise ValueError(f"unknown phrasing {phrasing!r}; choose from formal, plain")
    return table[operation]


def prompt_text(a: Sequence[Member], b: Sequence[Member], operation: str, method: str,
                phrasing: str, demonstrations: Sequence[tuple[Sequence[Member], Sequence[Member]]],
                demonstration_texts: Sequence[str] | None = None) -> str:
    """The whole prompt for one item. `demonstration_texts`, when given, are the already
    rendered `demonstration(operation, *pair)` lines (generation caches them)."""
    if method not in METHOD_INSTRUCTIONS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHOD_INSTRUCTIONS)}")
    parts = [f"You are given two sets. Set A is {set_text(a)}. Set B is {set_text(b)}. "
             f"You are given the following task:\n",
             f"<task> {task_text(operation, phrasing)} </task>\n"]
    if demonstrations:
        parts.append(EXAMPLES_BEGIN)
        texts = demonstration_texts if demonstration_texts is not None else [
            demonstration(operation, da, db) for da, db in demonstrations]
        if len(texts) != len(demonstrations):
            raise ValueError("demonstration_texts must match demonstrations one to one")
        parts.extend(f"- {text}\n" for text in texts)
        parts.append(EXAMPLES_END)
    parts.append(METHOD_INSTRUCTIONS[method] + "\n")
    return "".join(parts)
