"""The explanation-generation prompts of E-KAR: the paper's input format (Appendix A.1: terms
joined by its separator, the query's explanation for a candidate) and an instruction format
for chat models, each asking for the explanation of a query (E_Q) or of a candidate (E_A)."""

from __future__ import annotations

from collections.abc import Sequence

from lexbench.benchmarks.ekar.data import EkarItem
from lexbench.benchmarks.ekar.prompts import tuple_text
from lexbench.types import Decoding

# The longest explanation generated, in new tokens, everywhere an explanation is generated
# (`run ekar --task explain` and the Acc(Δ) pipeline of `finetune table`), so the two give
# the same explanations. The paper states no length (its generators keep HF defaults); 64
# is lexbench's choice, recorded in every run's config and report.
EXPLANATION_MAX_NEW_TOKENS = 64

# No stop string: small models often open with a newline, and a "\n" stop would cut the
# answer to nothing. The explanation is the first non-empty line of what comes back.
EXPLAIN_DECODING = Decoding(max_new_tokens=EXPLANATION_MAX_NEW_TOKENS, temperature=0.0)


PROMPT_FORMATS = ("paper", "instruct")


PAPER_SEPARATOR = " </s> "


_INSTRUCT = {
    "en": {
        "query_label": "Query: ",
        "given": "Explanation of the query: ",
        "candidates": "Candidates:",
        "Q": "Write the explanation of the query: in one sentence, how its terms are related.",
        "A": "Write the explanation of candidate {label}: in one sentence, how its terms are "
        "related, and whether that matches the query.",
        "answer": "Explanation:",
    },
    "zh": {
        "query_label": "题干：",
        "given": "题干解释：",
        "candidates": "选项：",
        "Q": "请写出题干的解释：用一句话说明题干中词语之间的关系。",
        "A": "请写出选项{label}的解释：用一句话说明该选项中词语之间的关系，以及它是否与题干相符。",
        "answer": "解释：",
    },
}


def first_line(text: str | None) -> str:
    """The first non-empty line, stripped: the generated explanation ("" for none)."""
    if not isinstance(text, str):
        return ""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def paper_terms(terms: Sequence[str]) -> str:
    """Appendix A.1's "t1 : t2" (three terms: "t1 : t2 : t3"), in both languages."""
    return " : ".join(terms)


def paper_prompt(item: EkarItem, target: str, mode: str) -> str:
    """Appendix A.1's EG input for `target` ("Q" or a candidate letter)."""
    parts = [f"query = {paper_terms(item.query)}"]
    if mode == "easy":
        parts.append(f"query explanation = {_query_explanation(item)}")
    parts += [f"candidate = {paper_terms(terms)}" for terms in item.choices]
    parts.append(f"generate the explanation of {target}")
    return PAPER_SEPARATOR.join(parts)


def instruct_prompt(item: EkarItem, target: str, mode: str) -> str:
    """lexbench's plain-instruction input: the same information as `paper_prompt`."""
    words = _INSTRUCT[item.language]
    lines = [f"{words['query_label']}{tuple_text(item.query, item.language)}"]
    if mode == "easy":
        lines.append(f"{words['given']}{_query_explanation(item)}")
    lines.append(words["candidates"])
    lines += [
        f"{label}. {tuple_text(terms, item.language)}"
        for label, terms in zip(item.labels, item.choices)
    ]
    lines.append(words["Q"] if target == "Q" else words["A"].format(label=target))
    lines.append(words["answer"])
    return "\n".join(lines)


def explanation_prompt(item: EkarItem, target: str, mode: str, prompt_format: str = "paper") -> str:
    """The input for generating `target`'s explanation ("Q", or "A".."D")."""
    if target != "Q" and target not in item.labels:
        raise ValueError(f"unknown explanation target {target!r}; use Q or one of A-D")
    if target == "Q" and mode == "easy":
        raise ValueError("EASY mode gives E_Q as input; it generates E_A only")
    if prompt_format == "paper":
        return paper_prompt(item, target, mode)
    if prompt_format == "instruct":
        return instruct_prompt(item, target, mode)
    raise ValueError(
        f"unknown prompt format {prompt_format!r}; choose from {', '.join(PROMPT_FORMATS)}"
    )


def _query_explanation(item: EkarItem) -> str:
    explanation = item.query_explanation
    if explanation is None:
        raise ValueError(
            f"item {item.id}: EASY mode needs the query's explanation, and this item has none"
        )
    return explanation
