"""The scorer protocol shared by every reranker, and input/output validation.

A *scorer* maps ``(query, texts)`` to one relevance score per text, in input order::

    scorer.score("capital of France", ["Paris is the capital.", "Bananas."])  # -> [0.93, 0.01]
    await scorer.ascore(query, texts)                                       # same, without blocking the loop

``scorer.calibrated`` says whether the scores are calibrated probabilities in [0, 1] (Cohere, the lexical
scorer) or raw, unbounded logits (most cross-encoders); ``scorer.name`` identifies the model for caches and
reports.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from .errors import short_query

__all__ = ["RelevanceScorer", "CallableScorer", "validate_query_texts", "check_scores"]


@runtime_checkable
class RelevanceScorer(Protocol):
    """Anything that scores how relevant each text is to a query.

    ``score(query, texts)`` returns ``len(texts)`` finite floats in input order (``[]`` for no texts, without
    any request); ``ascore`` is the same as a coroutine. When ``calibrated`` is True every score is in [0, 1].
    """

    name: str
    calibrated: bool

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]: ...


def validate_query_texts(query: object, texts: object) -> list[str]:
    """Check ``query`` is a non-empty str and ``texts`` a sequence of str; return ``texts`` as a list.

    Raises TypeError / ValueError naming the field and the query.
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, got {type(query).__name__} ({short_query(query)})")
    if not query.strip():
        raise ValueError("query must be a non-empty string; got an empty/blank query. Drop the query or give its text.")
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise TypeError(
            f"texts for query {short_query(query)} must be a sequence (list/tuple) of str, got "
            f"{type(texts).__name__}; wrap a single text in a list."
        )
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise TypeError(
                f"texts[{i}] for query {short_query(query)} must be a str, got {type(text).__name__}; "
                "pass the node/document text (e.g. node.get_content() or doc.page_content)."
            )
    return out


def check_scores(query: str, texts: Sequence[str], scores: Sequence[object], *, calibrated: bool, source: str) -> list[float]:
    """Validate a scorer's output: one finite real per text, and in [0, 1] when ``calibrated``.

    Returns the scores as a list of floats; raises ValueError naming the query and the scorer otherwise.
    """
    try:
        out = [float(s) for s in scores]  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{source} returned non-numeric scores for query {short_query(query)}: {exc}") from None
    if len(out) != len(texts):
        raise ValueError(
            f"{source} returned {len(out)} scores for {len(texts)} texts for query {short_query(query)}; "
            "a scorer must return exactly one score per text, in input order."
        )
    for i, s in enumerate(out):
        if not math.isfinite(s):
            raise ValueError(f"{source} returned a non-finite score ({s}) for texts[{i}] of query {short_query(query)}.")
        if calibrated and not 0.0 <= s <= 1.0:
            raise ValueError(
                f"{source} claims calibrated scores but returned {s} (outside [0, 1]) for texts[{i}] of query "
                f"{short_query(query)}; set calibrated=False and aggregate with normalize='sigmoid'."
            )
    return out


class CallableScorer:
    """Adapt any function ``fn(query, texts) -> sequence of floats`` to the scorer protocol.

    Use it to plug in a sentence-transformers ``CrossEncoder`` (raw logits, so ``calibrated=False``)::

        ce = CrossEncoder("cross-encoder/ms-marco-MiniLM-L-6-v2")
        scorer = CallableScorer(lambda q, ts: ce.predict([(q, t) for t in ts]), name="ms-marco-MiniLM-L-6-v2",
                                calibrated=False)

    ``afn`` (optional) is a coroutine function with the same signature; without it ``ascore`` runs ``fn`` in a
    worker thread. Outputs are validated by :func:`check_scores`.
    """

    def __init__(
        self,
        fn: Callable[[str, list[str]], Sequence[float]],
        *,
        name: str,
        calibrated: bool,
        afn: Callable[[str, list[str]], object] | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        if not isinstance(name, str) or not name:
            raise TypeError("name must be a non-empty str identifying the model (it keys caches)")
        self.fn = fn
        self.afn = afn
        self.name = name
        self.calibrated = bool(calibrated)

    def __repr__(self) -> str:
        return f"CallableScorer(name={self.name!r}, calibrated={self.calibrated})"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Scores of ``texts`` for ``query`` from ``fn``, validated, in input order."""
        items = validate_query_texts(query, texts)
        if not items:
            return []
        return check_scores(query, items, list(self.fn(query, items)), calibrated=self.calibrated, source=repr(self))

    async def ascore(self, query: str, texts: Sequence[str]) -> list[float]:
        """Async :meth:`score`: awaits ``afn`` or runs ``fn`` in a thread."""
        items = validate_query_texts(query, texts)
        if not items:
            return []
        if self.afn is not None:
            raw = await self.afn(query, items)  # type: ignore[misc]
        else:
            raw = await asyncio.to_thread(self.fn, query, items)
        return check_scores(query, items, list(raw), calibrated=self.calibrated, source=repr(self))
