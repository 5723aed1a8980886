"""Reranker relevancy as LangSmith ``RunEvaluator``s (no reference needed)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from langsmith.evaluation import EvaluationResult, RunEvaluator

from ..rerank import (
    AGGREGATIONS,
    DEFAULT_COHERE_MODEL,
    CohereReranker,
    RelevanceScorer,
    RelevancyResult,
    RerankError,
    RerankUsage,
    arerank_relevancy_result,
    check_relevancy_options,
    cohere_repr_args,
    relevancy_key,
    relevancy_repr_args,
    rerank_relevancy_result,
)
from ..rerank.aggregate import Agg, Normalize
from .documents import _PREVIEW, FEEDBACK_CONFIG, _check_keys, _query_id, _short, _where, document_text, find_documents
from .documents import DOCUMENT_KEYS as DOCUMENT_KEYS  # defined with the document lookup; kept importable here
from .documents import IdFn as IdFn


def _relevancy_comment(result: RelevancyResult) -> str:
    if not result.scores:
        return f"no documents retrieved: {result.scorer} relevancy 0"
    shown = ", ".join(f"{s:.4g}" for s in result.scores[:_PREVIEW])
    more = ", ..." if len(result.scores) > _PREVIEW else ""
    how = f"{result.normalize}, then " if result.normalize else ""
    return f"{how}{result.agg} of {len(result.scores)} {result.scorer} scores [{shown}{more}]"


class RerankRelevancyEvaluator(RunEvaluator):
    """A LangSmith ``RunEvaluator`` scoring how relevant the retrieved texts are to the query: no reference needed.

    ``score = agg_i scorer(query, texts[i])`` (:func:`rag_eval_adapters.rerank.rerank_relevancy`) with ``agg`` in
    ``max`` (default), ``mean`` or ``median``; in [0, 1] (an uncalibrated scorer needs ``normalize="sigmoid"``).
    No retrieved documents scores 0.

    * The query is ``run.inputs[query_key]``, else ``example.inputs[query_key]`` (a ``ValueError`` naming the
      keys there when neither has it).
    * The texts are the ``page_content`` of the retrieved documents, found as for the id metrics
      (:func:`find_documents`: ``outputs[documents_key]``, the usual output keys, or the retriever child run);
      plain strings are taken as the texts themselves.
    * The feedback key is ``rerank_relevancy`` for default options, else ``rerank_relevancy_<agg>`` and/or a
      ``_sigmoid`` suffix, or ``key``.
    * When the scorer fails for a query (a :class:`~rag_eval_adapters.rerank.RerankError` once its retries are
      exhausted), the result is recorded, not scored: ``EvaluationResult(score=None, comment="RerankError: ...",
      extra={"error": True})``. Invalid input (no query, no documents) raises, and LangSmith ``evaluate()`` makes
      it that example's error.

    ``evaluate_run`` scores with ``scorer.score``; ``aevaluate_run`` awaits ``scorer.ascore`` (native async:
    ``aevaluate()`` with ``max_concurrency`` scores many examples at once). The openevals-style call
    ``evaluator(inputs=..., outputs=...)`` returns ``{"key", "score", "comment"}``.
    """

    _default_key: str = "rerank_relevancy"

    def __init__(
        self,
        scorer: RelevanceScorer,
        agg: Agg = "max",
        normalize: Normalize = None,
        *,
        query_key: str = "query",
        documents_key: str | None = None,
        key: str | None = None,
    ) -> None:
        check_relevancy_options(scorer, agg, normalize)
        _check_keys({"query_key": query_key, "documents_key": documents_key, "key": key}, blank=False)
        self.scorer = scorer
        self.agg = agg
        self.normalize = normalize
        self.query_key = query_key
        self.documents_key = documents_key
        self.key: str = key if key is not None else relevancy_key(self._default_key, agg, normalize)

    @property
    def feedback_keys(self) -> list[str]:
        """The feedback key this evaluator emits (LangSmith also uses it to report an example's error)."""
        return [self.key]

    def _repr_args(self) -> list[str]:
        return [f"scorer={self.scorer!r}"]

    def __repr__(self) -> str:
        args = relevancy_repr_args(self._repr_args(), self.agg, self.normalize)
        if self.query_key != "query":
            args.append(f"query_key={self.query_key!r}")
        if self.documents_key is not None:
            args.append(f"documents_key={self.documents_key!r}")
        if self.key != relevancy_key(self._default_key, self.agg, self.normalize):
            args.append(f"key={self.key!r}")
        return f"{type(self).__name__}({', '.join(args)})"

    # -- extraction --------------------------------------------------------------------------------------------
    def _query(self, sources: Sequence[tuple[str, Any]], query_id: Any) -> Any:
        seen = []
        for where, inputs in sources:
            if isinstance(inputs, Mapping):
                if self.query_key in inputs:
                    return inputs[self.query_key]
                seen.append(f"{where} has keys {sorted(map(str, inputs))}")
            elif inputs is not None:
                seen.append(f"{where} is a {type(inputs).__name__}")
        found = "; ".join(seen) or "no inputs were given"
        text_keys = list(dict.fromkeys(k for _, inputs in sources if isinstance(inputs, Mapping)
                                       for k, v in inputs.items() if isinstance(v, str)))
        if len(text_keys) == 1:
            hint = f"query_key={text_keys[0]!r}"
        else:
            hint = "query_key='<the input key holding the question>'" + (
                f" (string inputs: {', '.join(map(repr, text_keys))})" if text_keys else "")
        raise ValueError(
            f"{_where(query_id)}no query: {' and '.join(w for w, _ in sources)} hold no {self.query_key!r} "
            f"({found}); pass {hint}"
        )

    def _texts(self, source: Any, query_id: Any) -> list[str]:
        texts = []
        for rank, item in enumerate(find_documents(source, documents_key=self.documents_key, query_id=query_id), 1):
            text = item if isinstance(item, str) else document_text(item)
            if text is None:
                raise TypeError(
                    f"{_where(query_id)}document at rank {rank} is a {type(item).__name__} ({_short(item)}), "
                    "neither a Document nor a text; return Documents (their page_content is scored) or strings"
                )
            texts.append(text)
        return texts

    def _run_inputs(self, run: Any, example: Any) -> tuple[Any, list[str]]:
        query_id = _query_id(run, example)
        sources = [("run.inputs", getattr(run, "inputs", None))]
        if example is not None:
            sources.append(("example.inputs", getattr(example, "inputs", None)))
        return self._query(sources, query_id), self._texts(run, query_id)

    # -- results -----------------------------------------------------------------------------------------------
    def _result(self, result: RelevancyResult) -> EvaluationResult:
        return EvaluationResult(key=self.key, score=result.score, comment=_relevancy_comment(result),
                                feedback_config=dict(FEEDBACK_CONFIG))

    def _failure(self, error: RerankError) -> EvaluationResult:
        return EvaluationResult(key=self.key, score=None, comment=f"{type(error).__name__}: {error}",
                                extra={"error": True})

    def _score(self, query: Any, texts: list[str]) -> EvaluationResult:
        try:
            result = rerank_relevancy_result(query, texts, self.scorer, self.agg, normalize=self.normalize)
        except RerankError as error:
            return self._failure(error)
        return self._result(result)

    def evaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """Score the documents retrieved in ``run`` for the run's query (``scorer.score``, blocking)."""
        return self._score(*self._run_inputs(run, example))

    async def aevaluate_run(
        self,
        run: Any,
        example: Any = None,
        evaluator_run_id: uuid.UUID | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        """As :meth:`evaluate_run`, natively async: awaits ``scorer.ascore`` (no thread pool)."""
        query, texts = self._run_inputs(run, example)
        try:
            result = await arerank_relevancy_result(query, texts, self.scorer, self.agg,
                                                    normalize=self.normalize)
        except RerankError as error:
            return self._failure(error)
        return self._result(result)

    def __call__(self, *, inputs: Any, outputs: Any, reference_outputs: Any = None, **kwargs: Any) -> dict[str, Any]:
        """openevals-style call: ``{"key", "score", "comment"}`` for one query.

        ``inputs`` holds the query under ``query_key`` (or is the query string), ``outputs`` the target's
        outputs (or the list of documents / texts). ``reference_outputs`` and extra keywords are ignored. A
        scorer failure gives ``score=None`` and the error as the comment.
        """
        query = inputs if isinstance(inputs, str) else self._query([("inputs", inputs)], None)
        result = self._score(query, self._texts(outputs, None))
        return {"key": result.key, "score": result.score, "comment": result.comment}


class CohereRerankRelevancyEvaluator(RerankRelevancyEvaluator):
    """:class:`RerankRelevancyEvaluator` on Cohere Rerank (:class:`~rag_eval_adapters.rerank.CohereReranker`).

    Feedback key ``cohere_rerank_relevancy`` (``cohere_rerank_relevancy_mean`` with ``agg="mean"``), the key
    LlamaIndex and the LlamaIndex adapter use. The key comes from ``api_key``, ``$CO_API_KEY`` or
    ``$COHERE_API_KEY``; ``base_url`` points at any Cohere-compatible endpoint. Other keyword arguments
    (``timeout``, ``max_retries``, ``max_concurrency``, ``cache``, ``client``, ...) go to ``CohereReranker``.
    """

    _default_key: str = "cohere_rerank_relevancy"

    def __init__(
        self,
        model: str = DEFAULT_COHERE_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        agg: Agg = "max",
        query_key: str = "query",
        *,
        normalize: Normalize = None,
        documents_key: str | None = None,
        key: str | None = None,
        **reranker_kwargs: Any,
    ) -> None:
        if agg not in AGGREGATIONS:  # before the reranker asks for a key
            raise ValueError(f"agg must be one of {', '.join(AGGREGATIONS)}; got {agg!r}")
        reranker = CohereReranker(model=model, api_key=api_key, base_url=base_url, **reranker_kwargs)
        super().__init__(reranker, agg, normalize, query_key=query_key, documents_key=documents_key, key=key)

    @property
    def model(self) -> str:
        """The Cohere rerank model."""
        return self.scorer.model  # type: ignore[attr-defined]

    @property
    def usage(self) -> RerankUsage:
        """What the reranker has spent so far (requests, retries, billed search units, ...)."""
        return self.scorer.usage  # type: ignore[attr-defined]

    def _repr_args(self) -> list[str]:
        return cohere_repr_args(self.scorer)  # type: ignore[arg-type]
