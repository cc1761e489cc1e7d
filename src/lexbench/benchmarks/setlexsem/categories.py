"""Word categories for SetLexSem's samplers (beyond the paper, which names them as future
work): parts of speech from WordNet 3.0 and sentiment from the AFINN lexicon.

Each category is a token type of its own, with the `words` token type's axes (token length,
operand size, overlap):

* `nouns`, `verbs`, `adjectives`, `adverbs`: one-word lowercase lemmas (a-z only) that
  WordNet 3.0 lists under that part of speech and no other (its index.noun, index.verb,
  index.adj, index.adv files), so a set's members share their part of speech whatever
  their sense;
* `positive_words`, `negative_words`: one-word lowercase entries (a-z only) of AFINN-165
  (Finn Årup Nielsen's lexicon, shipped inside the `afinn` PyPI package) scored above or
  below zero.

Pools are sorted tuples, so draws from them are deterministic.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

POS_TYPES = {"nouns": "noun", "verbs": "verb", "adjectives": "adj", "adverbs": "adv"}
SENTIMENT_TYPES = {"positive_words": 1, "negative_words": -1}
CATEGORY_TYPES: tuple[str, ...] = (*POS_TYPES, *SENTIMENT_TYPES)
AFINN_FILE = "AFINN-en-165.txt"
_WORD = re.compile(r"[a-z]+")


@cache
def pos_words(directory: Path) -> dict[str, tuple[str, ...]]:
    """Part of speech -> its unambiguous one-word lemmas (sorted), from WordNet's index files."""
    found: dict[str, set[str]] = {}
    for pos in POS_TYPES.values():
        path = directory / f"index.{pos}"
        if not path.is_file():
            raise FileNotFoundError(f"the WordNet at {directory} has no index.{pos}")
        lines = path.read_text(encoding="utf-8").splitlines()
        # Licence lines start with spaces; a lemma line starts with the lemma.
        found[pos] = {
            line.split(" ", 1)[0]
            for line in lines
            if line and not line.startswith(" ") and _WORD.fullmatch(line.split(" ", 1)[0])
        }
    return {
        pos: tuple(sorted(words - set().union(*(found[o] for o in found if o != pos))))
        for pos, words in found.items()
    }


@cache
def sentiment_words() -> dict[int, tuple[str, ...]]:
    """+1 -> AFINN's positive one-word entries, -1 -> its negative ones (sorted)."""
    try:
        import afinn
    except ImportError:
        raise ImportError(
            "the sentiment word categories need the afinn package: pip install "
            "'lexbench[sentiment]'"
        ) from None
    path = Path(afinn.__file__).parent / "data" / AFINN_FILE
    if not path.is_file():
        raise FileNotFoundError(f"the afinn package has no {AFINN_FILE} at {path}")
    out: dict[int, set[str]] = {1: set(), -1: set()}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, _, score = line.rpartition("\t")
        if _WORD.fullmatch(word) and score.lstrip("-").isdigit() and int(score) != 0:
            out[1 if int(score) > 0 else -1].add(word)
    return {sign: tuple(sorted(words)) for sign, words in out.items()}


def category_pool(
    token_type: str, token_length: int | None, wordnet: str | None = None
) -> tuple[str, ...]:
    """The words a category's sampler draws from, of `token_length` letters (None: any)."""
    if token_type in POS_TYPES:
        from lexbench.lexicon.wordnet.files import locate_wordnet

        words = pos_words(locate_wordnet(wordnet, allow_install=False))[POS_TYPES[token_type]]
    elif token_type in SENTIMENT_TYPES:
        words = sentiment_words()[SENTIMENT_TYPES[token_type]]
    else:
        raise ValueError(f"unknown word category {token_type!r}; choose from {CATEGORY_TYPES}")
    if token_length is None:
        return words
    return tuple(w for w in words if len(w) == token_length)
