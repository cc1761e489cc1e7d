"""How each kind of backend finds a rank request's target words among its ranked answers.

A rank request names the words it is scored on (`Request.targets`); the backend answers
with `Response.target_ranks`, one 1-based rank (or None) per target, computed its own way:

* a local tokenizer (transformers causal and masked LMs): the first token id of " " + word,
  the way the word starts after a space, which is how it follows "is like" in the prompt;
* token strings only (OpenAI-compatible servers' `top_logprobs`): the first returned token
  that starts a word (a leading space, or the reply's first token in chat) and is a prefix
  of the word. Servers do not say how they tokenise, so this can credit a shorter prefix
  token (" n" for "nucleus") where the token-id rule would not;
* whole vocabulary words (static vectors): the word itself, folded as the model folds.

    >>> ranks_of_ids([5, 9, 7], [7, 5, 2])
    (3, 1, None)
    >>> ranks_of_token_strings([" the", " nucle", "n"], ["nucleus", "atom"], word_start=True)
    (2, None)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any


def ranks_of_ids(ranked: Sequence[Hashable], target_keys: Sequence[Hashable]) -> tuple[int | None, ...]:
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


# Word-start markers of byte-level BPE ("Ġ") and SentencePiece ("▁") vocabularies, which
# some servers return raw instead of decoded.
_WORD_START_MARKERS = (" ", "Ġ", "▁", "\u0120")


def ranks_of_token_strings(tokens: Sequence[str], targets: Sequence[str], *,
                           word_start: bool) -> tuple[int | None, ...]:
    """Rank of each target among token strings: the first token that begins a word and
    whose text (marker stripped) is a non-empty prefix of the target.

    `word_start=True` (completions after "is like") requires the token to carry a leading
    space or marker; False (the first token of a chat reply) accepts it without one."""
    ranks: list[int | None] = []
    for target in targets:
        found = None
        for rank, token in enumerate(tokens, 1):
            marked = token.startswith(_WORD_START_MARKERS)
            if word_start and not marked:
                continue
            piece = token.lstrip("".join(_WORD_START_MARKERS))
            if piece and target.startswith(piece):
                found = rank
                break
        ranks.append(found)
    return tuple(ranks)
