"""SetLexSem prompt text, word for word as the paper's published prompt templates.

Every prompt is: set construction, the `<task>`, k demonstrations, the method's final
instructions, then a blank line and the method's opening ("<thinking>" for the chain-of-
thought methods, nothing for the base prompts). For example (base prompt, k = 1):

    You are given two sets. Set A is (12, 47). Set B is (47, 90). You are given the following task:
    <task> Print the set union of A and B as a Python set. </task>
    These are some examples:
    <examples>
    - If set A is (3, 8) and set B is (8, 5), print (3, 8, 5), because 3, 8, and 5 are in either A or B.
    </examples>

    Do not explain your reasoning. Do not write a code or script or use any tools. At last, ...

Sets are written in parentheses with bare members, in draw order, as the authors' code does.
The authors sent this whole text as one user message, so the trailing "<thinking>" is part
of the prompt, not an assistant pre-fill: it goes through a chat template unchanged.

Methods (`METHODS`): the paper's four, named as its Table 14 names them, and three more from
the authors' code that the paper did not run (`EXTRA_METHODS`). Phrasings: the paper's
formal and plain task wording, three more from the authors' code (`EXTRA_PHRASINGS`), and
lexbench's stories (`NARRATIVE_PHRASINGS`, see `narrative`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lexbench.benchmarks.setlexsem.narrative import (
    is_narrative,
    narrative_phrasings,
    narrative_setup,
    narrative_task,
    scenarios,
)
from lexbench.benchmarks.setlexsem.sets import Member, ground_truth, ordered_answer

_FORMAL = {
    "union": "Print the set union of A and B as a Python set.",
    "intersection": "Print the set intersection of A and B as a Python set.",
    "difference": "Print the set difference of A and B as a Python set.",
    # Sic: the paper's template has no "as a Python set" here.
    "symmetric_difference": "Print the symmetric set difference of A and B.",
}
_PLAIN = {
    "union": "Print the set of members belonging to either A or B as a Python set.",
    "intersection": "Print the set of members belonging to both A and B as a Python set.",
    "difference": "Print the set of members belonging to A and not to B as a Python set.",
    "symmetric_difference": (
        "Print the set of members belonging to A or B but not both A and B as a Python set."
    ),
}
_PYTHONIC = {
    "union": (
        "Take the elements that are in either set A or set B, and present them all "
        "together as a single set in Python."
    ),
    "intersection": (
        "Take the elements that are common to both set A and set B, and present "
        "them as a single set in Python."
    ),
    "difference": (
        "Take the elements that are in set A but not in set B, and present them as "
        "a single set in Python."
    ),
    "symmetric_difference": (
        "Take the elements that are in either set A or set B, but not in "
        "both, and present them as a single set in Python."
    ),
}
_FUNCTIONAL = {
    "union": (
        "Take the items from set A and the items from set B, combine them, and then "
        "display the full set of all those elements in Python."
    ),
    "intersection": (
        "Take the elements that are in both set A and set B, combine them into a "
        "single set, and display that set in Python."
    ),
    "difference": (
        "Take the elements that are in set A but not in set B, combine them into a "
        "single set, and display that set in Python."
    ),
    "symmetric_difference": (
        "Take the elements that are in either set A or set B, but not "
        "both, combine them into a single set, and display that set in "
        "Python."
    ),
}
_ITERATIVE = {
    "union": (
        "Start with an empty set, go through the elements in set A and add them, then go "
        "through the elements in set B and add them as well, and finally show the "
        "complete set containing all those elements in Python."
    ),
    "intersection": (
        "Start with an empty set, go through the elements in set A, and only add "
        "them to the set if they are also in set B, then show the final set."
    ),
    "difference": (
        "Start with an empty set, go through the elements in set A, and only add "
        "them to the set if they are not in set B, then show the final set."
    ),
    "symmetric_difference": (
        "Start with an empty set, go through the elements in set A and "
        "add them if they are not in set B, then go through the elements "
        "in set B and add them if they are not in set A, and finally show "
        "the complete set."
    ),
}
TASKS = {
    "formal": _FORMAL,
    "plain": _PLAIN,
    "pythonic": _PYTHONIC,
    "functional": _FUNCTIONAL,
    "iterative": _ITERATIVE,
}
PAPER_PHRASINGS = ("formal", "plain")
EXTRA_PHRASINGS = ("pythonic", "functional", "iterative")
# lexbench's stories (beyond the paper): one per scenario of data/narrative.toml.
NARRATIVE_PHRASINGS = narrative_phrasings()
NARRATIVE_LABELS = {s.phrasing: f"Narrative: {s.label}" for s in scenarios()}
PHRASINGS = PAPER_PHRASINGS + EXTRA_PHRASINGS + NARRATIVE_PHRASINGS

STOP = "Stop after printing."
NO_CODE = "Do not write a code or script or use any tools."
EMPTY_ALLOWED = "The answer can be an empty set."
THINKING = (
    "Explain your step-by-step reasoning process in detail within <thinking></thinking> XML tags."
)
FINAL_ANSWER = (
    "At last, provide only the final answer as a mathematical set, without any code "
    "or additional context. Do not include anything other than your final answer "
    "in your response within <answer></answer> XML tags."
)
EXPERT = "You are an expert in performing set-operation in mathematics."

# method -> (final instructions, opening after the blank line). The instructions start with
# a newline, so after demonstrations ("</examples>\n") a blank line separates them.
_TEMPLATES: dict[str, tuple[str, str]] = {
    "baseline": (
        "\n" + " ".join(["Do not explain your reasoning.", NO_CODE, FINAL_ANSWER, STOP]),
        "",
    ),
    "baseline_allow_empty": (
        "\n"
        + " ".join(["Do not explain your reasoning.", NO_CODE, FINAL_ANSWER, EMPTY_ALLOWED, STOP]),
        "",
    ),
    # The authors' "composite": expertise, chain of thought, self-recitation, self-criticism.
    "cot_self_reflection": (
        "\n" + " ".join([EXPERT, "Think step by step.", THINKING, FINAL_ANSWER]),
        "<thinking>",
    ),
    # Sic: the authors' allow-empty variant drops the expertise sentence.
    "cot_self_reflection_allow_empty": (
        "\n" + " ".join(["Think step by step.", THINKING, FINAL_ANSWER, EMPTY_ALLOWED]),
        "<thinking>",
    ),
    "chain_of_thought": (
        "\n" + " ".join(["Think step by step.", THINKING, FINAL_ANSWER]),
        "<thinking>",
    ),
    "self_recitation": ("\n" + " ".join([THINKING, FINAL_ANSWER]), "<thinking>"),
    "domain_expertise": ("\n" + " ".join([EXPERT, FINAL_ANSWER]), ""),
}
PAPER_METHODS = (
    "baseline",
    "baseline_allow_empty",
    "cot_self_reflection",
    "cot_self_reflection_allow_empty",
)
EXTRA_METHODS = ("chain_of_thought", "self_recitation", "domain_expertise")
METHODS = PAPER_METHODS + EXTRA_METHODS
# Methods that reason before answering (they get the larger token budget).
REASONING_METHODS = (
    "cot_self_reflection",
    "cot_self_reflection_allow_empty",
    "chain_of_thought",
    "self_recitation",
)
# The paper's names (Table 14).
METHOD_LABELS = {
    "baseline": "Base Prompt",
    "baseline_allow_empty": "Base Prompt (allow empty set)",
    "cot_self_reflection": "CoT and Self-Reflection",
    "cot_self_reflection_allow_empty": "CoT and Self-Reflection (allow empty set)",
    "chain_of_thought": "CoT (authors' code, not in the paper's runs)",
    "self_recitation": "Self-recitation (authors' code, not in the paper's runs)",
    "domain_expertise": "Domain expertise (authors' code, not in the paper's runs)",
}

EXAMPLES_BEGIN = "\nThese are some examples:\n<examples>\n"
EXAMPLES_END = "</examples>\n"


def set_text(members: Sequence[Member]) -> str:
    """(a, b, c); the empty set is ()."""
    return "(" + ", ".join(str(m) for m in members) + ")"


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


def demonstration(operation: str, a: Sequence[Member], b: Sequence[Member]) -> str:
    """One worked example, as the paper's `make_shot` writes it (answer in reading order)."""
    answer = ordered_answer(operation, a, b)
    opening = f"If set A is {set_text(a)} and set B is {set_text(b)}, print {set_text(answer)}"
    if operation == "union":
        return f"{opening}, because {english_list(answer)} {_verb(answer)} in either A or B."
    if operation == "intersection":
        if not answer:
            return f"{opening} (the empty set), because no members are in both A and B."
        return f"{opening}, because {english_list(answer)} {_verb(answer)} in both A and B."
    if operation == "difference":
        if not answer:
            return f"{opening} (the empty set), because all members of A are in B."
        return f"{opening}, because only {english_list(answer)} {_verb(answer)} in A and not B."
    if operation == "symmetric_difference":
        # Sic: no closing period, and nothing after "because" when A equals B.
        only_a = [m for m in answer if m in set(a)]
        only_b = [m for m in answer if m in set(b)]
        parts = [
            f"{set_text(side)} {_verb(side)} in only {name}"
            for side, name in ((only_a, "A"), (only_b, "B"))
            if side
        ]
        return f"{opening}, because " + " and ".join(parts)
    raise ValueError(f"unknown operation {operation!r}")


def task_text(operation: str, phrasing: str) -> str:
    if is_narrative(phrasing):
        return narrative_task(phrasing, operation)
    if phrasing not in TASKS:
        raise ValueError(f"unknown phrasing {phrasing!r}; choose from {', '.join(PHRASINGS)}")
    return TASKS[phrasing][operation]


def prompt_text(
    a: Sequence[Member],
    b: Sequence[Member],
    operation: str,
    method: str,
    phrasing: str,
    demonstrations: Sequence[tuple[Sequence[Member], Sequence[Member]]],
    demonstration_texts: Sequence[str] | None = None,
) -> str:
    """The whole prompt for one item. `demonstration_texts`, when given, are the already
    rendered `demonstration(operation, *pair)` lines (generation caches them)."""
    if method not in _TEMPLATES:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    ground_truth(operation, a, b)  # validates the operation name
    setup = (
        narrative_setup(phrasing, set_text(a), set_text(b))
        if is_narrative(phrasing)
        else f"You are given two sets. Set A is {set_text(a)}. Set B is {set_text(b)}. "
        f"You are given the following task:\n"
    )
    parts = [setup, f"<task> {task_text(operation, phrasing)} </task>"]
    if demonstrations:
        texts = (
            demonstration_texts
            if demonstration_texts is not None
            else [demonstration(operation, da, db) for da, db in demonstrations]
        )
        if len(texts) != len(demonstrations):
            raise ValueError("demonstration_texts must match demonstrations one to one")
        parts.append(EXAMPLES_BEGIN + "".join(f"- {text}\n" for text in texts) + EXAMPLES_END)
    instructions, opening = _TEMPLATES[method]
    parts.append(f"{instructions}\n\n{opening}")
    return "".join(parts)
