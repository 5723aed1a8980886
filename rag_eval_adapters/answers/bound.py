"""An answer metric bound to the embedder it scores with: what a framework's answer evaluator holds."""

from __future__ import annotations

import asyncio
from typing import Any

from .cache import CachedEmbedder
from .embedders import Embedder
from .metrics import AnswerMetric, parse_answer_metric

__all__ = ["BoundAnswerMetric"]


class BoundAnswerMetric:
    """An answer metric and its embedder: ``score(prediction, references)`` and ``await ascore(...)``.

    Parameters
    ----------
    metric : str or AnswerMetric
        A name :func:`~rag_eval_adapters.answers.parse_answer_metric` reads (``"em"``, ``"rouge_l_stem"``...) or
        a metric object.
    embedder : Embedder, optional
        The embedder of a metric that embeds (``semantic_similarity``); its vectors are cached by content hash
        (a :class:`~rag_eval_adapters.answers.CachedEmbedder`) for this object's lifetime.
    accepted : str
        What the caller takes as an embedder, shown when the metric needs one and none is given.

    Raises
    ------
    ValueError
        The metric needs an embedder and ``embedder`` is None (``"semantic_similarity needs an embedder: ..."``).

    Examples
    --------
    >>> BoundAnswerMetric("token_recall").score("in Paris, France", ["Paris"])
    1.0
    """

    def __init__(self, metric: str | AnswerMetric, embedder: Embedder | None = None, *,
                 accepted: str = "an Embedder, e.g. E5Embedder()") -> None:
        self.metric = parse_answer_metric(metric)
        if self.metric.needs_embedder and embedder is None:
            raise ValueError(f"{self.metric.key} needs an embedder: {accepted}")
        self.embedder = CachedEmbedder(embedder) if embedder is not None else None

    def score(self, prediction: str, references: Any) -> float:
        """The metric of ``prediction`` against its reference(s) (a string or a list: the best one counts)."""
        return float(self.metric.score(prediction, references, self.embedder))

    async def ascore(self, prediction: str, references: Any) -> float:
        """As :meth:`score`; a metric that embeds runs in a worker thread (the event loop is not blocked by the
        embedder), a lexical one inline."""
        if self.metric.needs_embedder:
            return await asyncio.to_thread(self.score, prediction, references)
        return self.score(prediction, references)

    def __repr__(self) -> str:
        return f"BoundAnswerMetric({self.metric!r}{'' if self.embedder is None else ', embedder=...'})"
