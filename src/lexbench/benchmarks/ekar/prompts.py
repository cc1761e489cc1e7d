"""What E-KAR asks a model: the modes and methods, the instruction (the paper's Chinese one and
its English counterpart), the lettered prompt, and the log-likelihood context and
continuations ("tea : teapot : teacup ::" + " passenger : bus : taxi")."""

from __future__ import annotations

from collections.abc import Sequence

from lexbench.benchmarks.ekar.data import EkarItem
from lexbench.types import Decoding

MODES = ("hard", "easy")


METHODS = ("loglikelihood", "generate", "embedding", "contextual")


# Methods that compare tuple vectors (static word vectors, or an untuned encoder's
# contextual representations): they answer with cosines, in HARD mode only.
VECTOR_METHODS = ("embedding", "contextual")


NORMALISATIONS = ("sum", "per_token", "per_char")


# Room for "The answer is (D)." and the like; a letter is all we need.
GENERATE_DECODING = Decoding(max_new_tokens=12, temperature=0.0, stop=("\n\n",))


INSTRUCTIONS = {
    "en": "Choose the candidate whose terms are related in the same way as the query's terms.",
    "zh": "请选出与题干中词语关系最为相近、相似或匹配的一项。",
}


def tuple_text(terms: Sequence[str], language: str) -> str:
    """ "tea : teapot : teacup" (English) or "茶：茶壶：茶杯" (Chinese)."""
    return (" : " if language == "en" else "：").join(terms)


def _explanation_line(item: EkarItem, mode: str) -> str:
    if mode == "hard":
        return ""
    explanation = item.query_explanation
    if explanation is None:
        raise ValueError(
            f"item {item.id}: EASY mode needs the query's explanation, and this "
            f"item has none (a blind test split?); use --mode hard"
        )
    return (
        f"Explanation of the query: {explanation}\n"
        if item.language == "en"
        else f"题干解释：{explanation}\n"
    )


def choice_prompt(item: EkarItem, mode: str) -> str:
    """The lettered multiple-choice prompt for `generate`, ending where the letter goes."""
    language = item.language
    lines = [INSTRUCTIONS[language]]
    lines.append(("Query: " if language == "en" else "题干：") + tuple_text(item.query, language))
    explanation = _explanation_line(item, mode)
    if explanation:
        lines.append(explanation.rstrip("\n"))
    for label, terms in zip(item.labels, item.choices):
        lines.append(f"{label}. {tuple_text(terms, language)}")
    if language == "en":
        lines.append("Answer with the letter of the best candidate (A, B, C or D).")
        lines.append("Answer:")
    else:
        lines.append("请只回答选项字母（A、B、C或D）。")
        lines.append("答案：")
    return "\n".join(lines)


def loglikelihood_context(item: EkarItem, mode: str) -> str:
    """The shared context: instruction, (explanation,) the query and the analogy marker."""
    if item.language == "en":
        head = f"{INSTRUCTIONS['en']}\n{_explanation_line(item, mode)}"
        return f"{head}{tuple_text(item.query, 'en')} ::"
    head = f"{INSTRUCTIONS['zh']}\n{_explanation_line(item, mode)}"
    return f"{head}{tuple_text(item.query, 'zh')}，相当于"


def candidate_continuations(item: EkarItem) -> tuple[str, ...]:
    """Each candidate's verbalisation as a continuation of `loglikelihood_context`."""
    separator = " " if item.language == "en" else ""
    return tuple(separator + tuple_text(terms, item.language) for terms in item.choices)
