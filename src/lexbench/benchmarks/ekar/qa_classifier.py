"""E-KAR's fine-tuned QA classifier as its training, its table and Acc(Δ) read with it: the
experiment its lineage names, the texts it reads for one item, and its choice per item.

Two input formats (`finetune.choice_model.ChoiceSettings.input_format`):

* "request": each candidate read together with the query as the E-KAR benchmark
  verbalises them for `loglikelihood` (instruction, the query explanation in EASY mode,
  "q1 : q2 ::", then " c1 : c2"), so the classifier also runs as
  `lexbench run ekar --model ekar-classifier:DIR --normalisation sum`;
* "explanations": Appendix A.1's Acc(Δ) input, "t1 : t2 </s> explanation: E" for the query
  and for each candidate (gold explanations in training; Acc(Δ) swaps in generated ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The experiment a classifier's `lexbench-lineage.json` names.
EXPERIMENT = "ekar-qa"
EXPLANATION_WORD = {"en": "explanation: ", "zh": "解释："}


def request_texts(item: Any, mode: str) -> tuple[list[str], list[str]]:
    """(context per candidate, candidate continuation): what `lexbench run ekar` sends."""
    from lexbench.benchmarks.ekar.prompts import candidate_continuations, loglikelihood_context

    continuations = list(candidate_continuations(item))
    return [loglikelihood_context(item, mode)] * len(continuations), continuations


def explanation_texts(item: Any, explanations: Sequence[str]) -> tuple[list[str], list[str]]:
    """Appendix A.1's Acc(Δ) input: "t1 : t2 </s> explanation: E" for the query (first) and
    each candidate (second). `explanations` = [E_Q, E_A, E_B, E_C, E_D]; empty strings
    give the paper's "None" condition."""
    from lexbench.benchmarks.ekar.explain_prompts import PAPER_SEPARATOR, paper_terms

    if len(explanations) != 1 + len(item.choices):
        raise ValueError(
            f"item {item.id}: expected {1 + len(item.choices)} explanations "
            f"(query, then each candidate), got {len(explanations)}"
        )
    word = EXPLANATION_WORD[item.language]
    first = f"{paper_terms(item.query)}{PAPER_SEPARATOR}{word}{explanations[0]}".rstrip()
    seconds = [
        f"{paper_terms(terms)}{PAPER_SEPARATOR}{word}{text}".rstrip()
        for terms, text in zip(item.choices, explanations[1:])
    ]
    return [first] * len(seconds), seconds


def item_texts(
    item: Any, input_format: str, mode: str, explanations: Sequence[str] | None = None
) -> tuple[list[str], list[str]]:
    """The (first, second) text pairs the classifier reads for `item`: the request format,
    or the explanation format with `explanations` (the item's gold ones when None)."""
    if input_format == "request":
        return request_texts(item, mode)
    if explanations is None:
        if len(item.explanations) != 5:
            raise ValueError(
                f"item {item.id} has no gold explanations; the explanation input format needs them"
            )
        explanations = item.explanations
    return explanation_texts(item, explanations)


def predictions(
    folder: str | Path,
    items: Sequence[Any],
    *,
    explanations: Sequence[Sequence[str]] | None = None,
    device: str = "cpu",
    batch_size: int = 16,
) -> list[int]:
    """The classifier's choice for each item (with `explanations` per item for the
    explanation format; gold ones when None)."""
    from lexbench.finetune.choice_model import load_choice_model, score_choices

    network, tokenizer = load_choice_model(folder, device)
    settings = network.settings
    groups = [
        item_texts(
            item,
            settings.input_format,
            settings.mode,
            explanations[i] if explanations is not None else None,
        )
        for i, item in enumerate(items)
    ]
    scores = score_choices(network, tokenizer, groups, batch_size=batch_size)
    return [max(range(len(row)), key=lambda j: (row[j], -j)) for row in scores]
