"""Reciprocal rank fusion (Cormack, Clarke and Buettcher, 2009)."""

from __future__ import annotations

from collections.abc import Sequence

from ..validation import check_count

__all__ = ["reciprocal_rank_fusion"]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse ranked id lists: ``score(d) = sum over rankings of 1 / (k + rank of d)`` (ranks from 1).

    Returns ``[(id, score)]`` by score descending, ties broken by id descending (trec_eval's order).

    >>> reciprocal_rank_fusion([["a", "b"], ["b", "c"]], k=60)[0][0]
    'b'
    """
    check_count(k, "the RRF constant k", minimum=0)
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(dict.fromkeys(ranking), start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
