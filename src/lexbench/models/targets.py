"""How each kind of backend finds a rank request's target words among its ranked answers.

A rank request names the words it is scored on (`Request.targets`); the backend answers
with `Response.target_ranks`, one 1-based rank (or None) per target, computed its own way:

* a local tokenizer (transformers causal and masked LMs): the first token id of " " + word,
  the way the word starts after a space, which is how it follows "is like" in the prompt;
* token strings only (OpenAI-compatible servers' `top_logprobs`): the server's own first
  token of " " + word, learned once per word by a completions echo request, equal to a
  returned token; where nothing echoes (chat-only endpoints, hosted APIs) a stricter prefix
  rule (`lexbench.models.openai.targets`);
* whole vocabulary words (static vectors): the word itself, folded as the model folds.

    >>> ranks_of_ids([5, 9, 7], [7, 5, 2])
    (3, 1, None)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any


def ranks_of_ids(
    ranked: Sequence[Hashable], target_keys: Sequence[Hashable]
) -> tuple[int | None, ...]:
    """1-based position of each target key in `ranked` (None when absent)."""
    position: dict[Hashable, int] = {}
    for rank, key in enumerate(ranked, 1):
        position.setdefault(key, rank)
    return tuple(position.get(key) for key in target_keys)


def first_token_id(tokenizer: Any, word: str) -> int:
    """The first token id of " " + word. A SentencePiece tokenizer may spell the space as a
    lone "▁" token before the word; the word's own first token is the one after it."""
    ids = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
    if not ids:
        raise ValueError(f"the tokenizer gives no tokens for {word!r}")
    if len(ids) > 1 and not tokenizer.decode([ids[0]]).strip():
        return int(ids[1])
    return int(ids[0])


class FirstTokenIds:
    """First-token ids of words for one tokenizer, memoised (SCAN asks the same words often)."""

    def __init__(self, tokenizer: Any):
        self.tokenizer = tokenizer
        self._ids: dict[str, int] = {}

    def __call__(self, word: str) -> int:
        if word not in self._ids:
            self._ids[word] = first_token_id(self.tokenizer, word)
        return self._ids[word]

    def ranks(self, ranked_ids: Sequence[int], targets: Sequence[str]) -> tuple[int | None, ...]:
        return ranks_of_ids(ranked_ids, [self(word) for word in targets])
