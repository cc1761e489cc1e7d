"""The four analogy methods' formulas (see `models.embeddings`): every vocabulary row scored
for a block of queries at once, the top-k rows of each, and one candidate pair's score for
a multiple-choice question. Plain functions over numpy arrays: what a method computes,
apart from how the backend looks words up and answers requests.
"""

from __future__ import annotations

import numpy as np

COSMUL_EPSILON = 1e-3


def vocabulary_scores(
    method: str,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    *,
    unit: np.ndarray,
    unit_sq: np.ndarray,
    raw: np.ndarray,
    raw_sq: np.ndarray,
) -> np.ndarray:
    """Scores of every vocabulary row for a block of queries (higher is better): `a`, `b`,
    `c` hold one query's term vectors a row (unit vectors, or raw ones for `scan-paper`);
    `unit` and `raw` are the vocabulary's vectors, `unit_sq` and `raw_sq` their squared
    norms."""
    if method == "3cosadd":
        # Normalising the target does not change the ranking; gensim does the same.
        return (b - a + c) @ unit.T
    if method == "3cosmul":
        sim_a = (a @ unit.T + 1.0) / 2.0
        sim_b = (b @ unit.T + 1.0) / 2.0
        sim_c = (c @ unit.T + 1.0) / 2.0
        return sim_b * sim_c / (sim_a + COSMUL_EPSILON)
    if method == "pairdiff":
        offset = b - a
        offset_norm = np.linalg.norm(offset, axis=1, keepdims=True)
        along = unit @ offset.T  # V x B: d·r
        numerator = along.T - np.einsum("ij,ij->i", c, offset)[:, None]
        # |d − c|² = |d|² − 2 d·c + |c|², every term already at hand.
        distance_sq = unit_sq[None, :] - 2.0 * (c @ unit.T) + np.einsum("ij,ij->i", c, c)[:, None]
        denominator = np.sqrt(np.clip(distance_sq, 0.0, None)) * offset_norm
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.where(denominator > 0, numerator / denominator, -np.inf)
        return scores.astype(np.float32)
    if method == "scan-paper":
        target = np.abs(b - a) + c
        distance_sq = (
            raw_sq[None, :]
            - 2.0 * (target @ raw.T)
            + np.einsum("ij,ij->i", target, target)[:, None]
        )
        return -np.sqrt(np.clip(distance_sq, 0.0, None))
    raise ValueError(f"unknown analogy method {method!r}")


def top_rows(scores: np.ndarray, top_k: int) -> list[tuple[tuple[int, float], ...]]:
    """The top-k (row, score) of each row of `scores`, best first; ties go to the lower
    row (the more frequent word); excluded (-inf) rows never appear."""
    k = min(top_k, scores.shape[1])
    candidates = np.argpartition(scores, scores.shape[1] - k, axis=1)[:, -k:]
    values = np.take_along_axis(scores, candidates, axis=1)
    order = np.lexsort((candidates, -values), axis=1)
    candidates = np.take_along_axis(candidates, order, axis=1).tolist()
    values = np.take_along_axis(values, order, axis=1).tolist()
    return [
        tuple((r, v) for r, v in zip(rows, scores_) if v != -np.inf)
        for rows, scores_ in zip(candidates, values)
    ]


def pair_score(method: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> float:
    """How well the pair c : d answers a : b (higher is better): unit term vectors, or raw
    ones for `scan-paper` (the negative distance of d from |b − a| + c)."""
    if method == "scan-paper":
        return -float(np.linalg.norm(d - (np.abs(b - a) + c)))
    if method == "pairdiff":
        first, second = b - a, d - c
        norms = float(np.linalg.norm(first) * np.linalg.norm(second))
        return float(first @ second) / norms if norms > 0 else float("-inf")
    if method == "3cosadd":
        target = b - a + c
        norm = float(np.linalg.norm(target))
        return float(d @ target) / norm if norm > 0 else float("-inf")
    # 3cosmul
    shifted = [(float(d @ x) + 1.0) / 2.0 for x in (a, b, c)]
    return shifted[1] * shifted[2] / (shifted[0] + COSMUL_EPSILON)
