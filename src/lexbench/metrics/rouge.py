"""ROUGE-N (Lin, 2004) with a tokenisation that works for English and Chinese.

Tokens: lowercased runs of letters/digits; every CJK character is a token of its own
(character-level ROUGE is the usual choice for Chinese, which has no spaces between
words). Punctuation is dropped. No stemming, no stop-word removal.

    >>> round(rouge_n("the cat sat on the mat", "the cat sat on a mat").f1, 3)
    0.6
    >>> rouge_n("茶壶装茶", "茶壶用来装茶").recall
    0.4
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

# CJK Unified Ideographs (+ extension A, compatibility ideographs) one character at a time;
# any other run of letters or digits is one token.
_CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK_RANGES}]|[^\W_{_CJK_RANGES}]+")


def rouge_tokens(text: str) -> list[str]:
    """Lowercased word tokens; each CJK character is a token."""
    return _TOKEN.findall(text.lower())


def ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass(frozen=True)
class RougeScore:
    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def rouge_n(prediction: str, reference: str, n: int = 2) -> RougeScore:
    """ROUGE-N of one prediction against one reference: clipped n-gram overlap.

    A side with no n-grams (fewer than n tokens) scores 0 (nothing can match), as in
    Google's rouge-score package.
    """
    if n < 1:
        raise ValueError(f"ROUGE-N needs n >= 1, got {n}")
    predicted = ngrams(rouge_tokens(prediction), n)
    expected = ngrams(rouge_tokens(reference), n)
    overlap = sum((predicted & expected).values())
    predicted_total = sum(predicted.values())
    expected_total = sum(expected.values())
    precision = overlap / predicted_total if predicted_total else 0.0
    recall = overlap / expected_total if expected_total else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return RougeScore(precision, recall, f1)
