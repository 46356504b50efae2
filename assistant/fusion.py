"""Score fusion: one paper score from its dense and its BM25 score, for the retriever and the benches alike.

Scores are absolute, so that one calibrated cutoff means the same thing for every question:
    fused = w_q * dense + (1 - w_q) * bm25 / (bm25 + c)
where `dense` is the best chunk's cosine similarity to the question and `c` the BM25 score that counts as
half-relevant. The dense weight can adapt to the question: when one paper's BM25 score stands clearly above
the runner-up, the lexical match is trusted more:
    w_q = w * max(floor, 1 - gain * (bm25_1 - bm25_2) / (bm25_1 + c))
`w`, `c` and `gain` are tuned on SciFact train by bench/fusion_sweep.py, which scores its grid with this same
function; reciprocal-rank fusion is the alternative (`RetrievalSettings.fusion = "rrf"`).

Both functions are pure: arrays in, arrays out, nothing else read. The arithmetic follows the arrays' dtype
(float64 for the retriever, float32 for the benches' cached features), so each gets the figures it always had.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fused_scores", "dense_weights", "reciprocal_rank_scores"]


def fused_scores(
    dense: np.ndarray,
    lexical: np.ndarray,
    *,
    weight: float,
    half: float,
    gain: float = 0.0,
    floor: float = 1.0,
) -> np.ndarray:
    """The fused score of every candidate. The last axis holds one question's candidates (a 1-D array for
    one question, (questions, candidates) for many); `dense` and `lexical` have the same shape."""
    weights = dense_weights(lexical, weight=weight, half=half, gain=gain, floor=floor)[..., None]
    return weights * dense + (1 - weights) * lexical / (lexical + half)


def dense_weights(
    lexical: np.ndarray, *, weight: float, half: float, gain: float = 0.0, floor: float = 1.0
) -> np.ndarray:
    """Each question's dense weight `w_q`, lower when its best BM25 match clearly beats the runner-up
    (shape: `lexical.shape[:-1]`). A single retriever (weight 0 or 1) stays single."""
    if not 0 < weight < 1:
        return np.full(lexical.shape[:-1], weight)
    if lexical.shape[-1] < 2:  # no runner-up: it scores 0
        lexical = np.concatenate([lexical, np.zeros((*lexical.shape[:-1], 2), lexical.dtype)], axis=-1)
    top = -np.sort(-lexical, axis=-1)
    first, second = top[..., 0], top[..., 1]
    # The lead is measured on the saturating scale, so a weak single-word match is no clear winner.
    peak = np.where(first > 0, (first - second) / (first + half), 0.0)
    return weight * np.maximum(floor, 1 - gain * peak)


def reciprocal_rank_scores(dense: np.ndarray, lexical: np.ndarray, k: int) -> np.ndarray:
    """Reciprocal-rank fusion over one question's candidates: the sum of 1 / (k + rank) over the retrievers
    that found the candidate (a positive score), ranks counted from 1, ties in candidate order."""
    fused = np.zeros(len(dense), dtype=np.float64)
    for scores in (dense, lexical):
        found = np.flatnonzero(scores > 0)
        order = found[np.argsort(-scores[found], kind="stable")]
        fused[order] += 1.0 / (k + np.arange(1, len(order) + 1))
    return fused
