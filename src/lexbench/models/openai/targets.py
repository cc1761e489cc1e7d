"""Which of a server's ranked token strings is a target word's first token.

A rank request names its target words; a server returns the top tokens as strings. Two rules:

* **exact** (the server can tell us its tokenisation): the backend asks `/completions` to
  echo " " + word (a completion continues "... is like", so the answer starts after a
  space; a chat reply's first token has none, so chat asks for the word alone) with
  `echo: true, logprobs: 1, max_tokens: 1`, and takes the echoed token that covers the
  word's first character (`text_offset`), which skips a lone space token such as
  SentencePiece's. A target's rank is the position of the first ranked token equal to that
  string. This is the transformers backend's first-token-id rule, in strings.
* **strict prefix** (no echo: chat-only endpoints, hosted APIs): the first ranked token
  that starts a word (a leading space or marker on completions) and whose text, marker
  stripped, equals the word or is a prefix of it at least min(3, len(word)) characters
  long. A one- or two-letter token (" a" for "air") is never credited.

    >>> covering_token([" a", "ir", " x"], [0, 2, 4], 1)
    ' a'
    >>> covering_token(["▁", "air"], [0, 1], 1)
    'air'
    >>> strict_prefix_ranks([" a", " ai", " air"], ["air", "aisle", "a"], word_start=True)
    (3, None, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexbench.models.openai.call import COMPLETIONS, Call
from lexbench.models.openai.echo import echo_body, echo_unsupported, echoed_logprobs

EXACT = "exact"
STRICT_PREFIX = "strict-prefix"
RULES = {
    EXACT: "exact first token: the server's own tokenisation of ' ' + word, learned by a "
    "completions echo request",
    STRICT_PREFIX: "strict prefix: no echo to learn the server's tokenisation; a token counts "
    "when it equals the word or is a prefix of at least min(3, len(word)) "
    "characters",
}
# Word-start markers of byte-level BPE ("Ġ") and SentencePiece ("▁") vocabularies, which
# some servers return raw instead of decoded.
_WORD_START_MARKERS = (" ", "Ġ", "▁")
_MARKERS = "".join(_WORD_START_MARKERS)


def covering_token(tokens: Sequence[str], offsets: Sequence[int], position: int) -> str | None:
    """The token whose text covers character `position` of the echoed text (a token runs
    from its offset to the next token's; zero-length tokens such as a BOS cover nothing)."""
    if len(tokens) != len(offsets):
        return None
    for index, start in enumerate(offsets):
        end = offsets[index + 1] if index + 1 < len(offsets) else start + len(tokens[index])
        if start <= position < end:
            return str(tokens[index])
    return None


def exact_ranks(tokens: Sequence[str], first_tokens: Sequence[str]) -> tuple[int | None, ...]:
    """1-based position of each first-token string among `tokens` (None when absent)."""
    position: dict[str, int] = {}
    for rank, token in enumerate(tokens, 1):
        position.setdefault(token, rank)
    return tuple(position.get(token) for token in first_tokens)


def strict_prefix_ranks(
    tokens: Sequence[str], targets: Sequence[str], *, word_start: bool
) -> tuple[int | None, ...]:
    """The strict prefix rule (see the module docstring)."""
    ranks: list[int | None] = []
    for target in targets:
        found = None
        for rank, token in enumerate(tokens, 1):
            if word_start and not token.startswith(_WORD_START_MARKERS):
                continue
            piece = token.lstrip(_MARKERS)
            if piece and (
                piece == target or (target.startswith(piece) and len(piece) >= min(3, len(target)))
            ):
                found = rank
                break
        ranks.append(found)
    return tuple(ranks)


class TargetTokens:
    """The first token of each target word on one server, memoised per model instance,
    and the rule in use (None until a rank request needed one)."""

    def __init__(self, base_url: str, model: str):
        self.base_url = base_url
        self.model = model
        self.rule: str | None = None
        self.reason = ""
        self._first: dict[tuple[str, bool], str] = {}
        self._failed: dict[tuple[str, bool], str] = {}

    @staticmethod
    def text_of(word: str, word_start: bool) -> str:
        return " " + word if word_start else word

    def unknown(self, words: Sequence[tuple[str, bool]]) -> list[tuple[str, bool]]:
        """The (word, word_start) pairs whose first token is not known yet, when the exact
        rule is (or may be) in use."""
        if self.rule == STRICT_PREFIX:
            return []
        return sorted({w for w in words if w not in self._first})

    def calls(self, words: Sequence[tuple[str, bool]]) -> list[Call]:
        calls = []
        for word, word_start in words:
            text = self.text_of(word, word_start)
            body = echo_body(self.model, text)
            calls.append(
                Call(
                    COMPLETIONS,
                    body,
                    self._parser(text, 1 if word_start else 0),
                    ("echo", self.model),
                )
            )
        return calls

    def _parser(self, text: str, position: int) -> Any:
        def parse(choice: dict[str, Any], usage: dict[str, Any] | None) -> str:
            logprobs = echoed_logprobs(choice, text, self.base_url, self.model, tokens=True)
            token = covering_token(logprobs["tokens"], logprobs["text_offset"], position)
            if token is None:
                raise echo_unsupported(self.base_url, self.model)
            return token

        return parse

    def learned(self, word: tuple[str, bool], value: Any) -> None:
        """Record what the echo request for `word` gave: its first token, or why not."""
        if isinstance(value, str):
            self._first[word] = value
            self.rule = EXACT
        elif self.rule != EXACT and not _transient(value):
            # The server cannot echo (a chat-only or hosted endpoint): the fallback rule,
            # for every word, so a run never mixes rules.
            self.rule = STRICT_PREFIX
            self.reason = str(value).split(". ")[0][:200]
        else:
            self._failed[word] = str(value)

    def failure(self, targets: Sequence[str], word_start: bool) -> str | None:
        """Why a request with these targets cannot be ranked now (None: it can)."""
        if self.rule == STRICT_PREFIX:
            return None
        for word in targets:
            key = (word, word_start)
            if key not in self._first:
                why = self._failed.get(key, "not learned")
                return f"could not learn the server's first token of {word!r}: {why}"
        return None

    def ranks(
        self, tokens: Sequence[str], targets: Sequence[str], word_start: bool
    ) -> tuple[int | None, ...]:
        if self.rule == STRICT_PREFIX or not targets:
            return strict_prefix_ranks(tokens, targets, word_start=word_start)
        return exact_ranks(tokens, [self._first[(w, word_start)] for w in targets])

    def describe(self) -> str:
        if self.rule is None:
            return "not needed in this process (no rank request was sent to the server)"
        return RULES[self.rule] + (f" ({self.reason})" if self.reason else "")


def _transient(value: Any) -> bool:
    """A failure another run may not have (retries used up), unlike a refusal."""
    from lexbench.models.openai.flight import RequestFailed

    return isinstance(value, RequestFailed)
