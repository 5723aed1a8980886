"""Answer metrics as LlamaIndex evaluators: ``BaseEvaluator`` subclasses for ``BatchEvalRunner`` and friends.

Each takes the generated ``response`` and the ``reference`` answer (one string or a list: the best match counts)
and returns an ``EvaluationResult`` with ``score`` in [0, 1] and ``passing = score >= threshold``::

    from llama_index.core.evaluation import BatchEvalRunner
    from rag_eval_adapters.llamaindex import ExactMatchEvaluator, TokenF1Evaluator, RougeLEvaluator

    runner = BatchEvalRunner({"exact_match": ExactMatchEvaluator(), "token_f1": TokenF1Evaluator(),
                              "rouge_l": RougeLEvaluator()})
    results = runner.evaluate_response_strs(queries=qs, response_strs=answers, reference=references)

:class:`AnswerSimilarityEvaluator` sits beside LlamaIndex's ``SemanticSimilarityEvaluator``: given the same
``BaseEmbedding`` and ``side="passage"`` it returns the same cosine (clipped at 0), and it also takes any
:class:`~rag_eval_adapters.answers.Embedder` (e.g. the offline ``E5Embedder``), caching vectors by content hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.evaluation.base import BaseEvaluator, EvaluationResult
from llama_index.core.prompts.mixin import PromptDictType

from ..answers import AnswerMetric, BoundAnswerMetric, Embedder, ExactMatch, RougeL, SemanticSimilarity, TokenF1
from ..answers.metrics import Part
from ..validation import check_fraction
from .embeddings import LlamaIndexEmbedder

__all__ = [
    "AnswerMetricEvaluator",
    "ExactMatchEvaluator",
    "TokenF1Evaluator",
    "RougeLEvaluator",
    "AnswerSimilarityEvaluator",
]


class AnswerMetricEvaluator(BaseEvaluator):
    """A LlamaIndex evaluator scoring one answer metric of :mod:`rag_eval_adapters.answers`.

    Parameters
    ----------
    metric : str or AnswerMetric
        ``"exact_match"`` (``"em"``), ``"token_f1"``, ``"rouge_l"``, ``"rouge_l_stem"``, ``"semantic_similarity"``...
        (``"f1"`` is retrieval F1: a ``ValueError`` listing the answer metrics).
    threshold : float
        ``passing`` is ``score >= threshold``.
    embedder : Embedder or BaseEmbedding, optional
        For ``semantic_similarity``.
    """

    def __init__(
        self,
        metric: str | AnswerMetric,
        *,
        threshold: float = 0.5,
        embedder: Embedder | BaseEmbedding | None = None,
    ) -> None:
        if isinstance(embedder, BaseEmbedding):
            embedder = LlamaIndexEmbedder(embedder)
        self.bound = BoundAnswerMetric(metric, embedder, accepted="an Embedder (e.g. E5Embedder()) or a BaseEmbedding")
        self.metric, self.embedder = self.bound.metric, self.bound.embedder
        self.threshold = check_fraction(threshold, "threshold", inclusive=True)

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        pass

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        reference: str | Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """Score ``response`` against ``reference`` (one string or several); ``query``/``contexts`` are echoed."""
        if response is None or reference is None:
            raise ValueError(f"{type(self).__name__} needs both response and reference "
                             "(BatchEvalRunner: pass reference=[...] with one entry per query)")
        score = await self.bound.ascore(response, reference)
        return EvaluationResult(
            query=query, response=response, contexts=contexts, score=score, passing=score >= self.threshold,
            feedback=f"{self.metric.key} = {score:.4f} (passing at >= {self.threshold:g})",
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.metric!r}, threshold={self.threshold:g})"


class ExactMatchEvaluator(AnswerMetricEvaluator):
    """Exact match after SQuAD-style Unicode normalisation; ``passing`` when it matches."""

    def __init__(self, *, threshold: float = 1.0) -> None:
        super().__init__(ExactMatch(), threshold=threshold)


class TokenF1Evaluator(AnswerMetricEvaluator):
    """Token F1 (or ``part="precision"``/``"recall"``) against the best reference."""

    def __init__(self, *, threshold: float = 0.5, part: Part = "f1") -> None:
        super().__init__(TokenF1(part=part), threshold=threshold)


class RougeLEvaluator(AnswerMetricEvaluator):
    """ROUGE-L F (or precision/recall), optionally Porter-stemmed."""

    def __init__(self, *, threshold: float = 0.5, stem: bool = False, part: Part = "f1") -> None:
        super().__init__(RougeL(stem=stem, part=part), threshold=threshold)


class AnswerSimilarityEvaluator(AnswerMetricEvaluator):
    """Cosine similarity of the answer's and the reference's embeddings (default threshold 0.8, as LlamaIndex's
    ``SemanticSimilarityEvaluator``; with E5, unrelated texts score about 0.75 and related but wrong answers about 0.8, so raise it to 0.85-0.9)."""

    def __init__(self, embedder: Embedder | BaseEmbedding, *, threshold: float = 0.8,
                 side: Literal["query", "passage"] = "query") -> None:
        super().__init__(SemanticSimilarity(side=side), threshold=threshold, embedder=embedder)
