"""Retrieval metrics as LangChain / LangSmith evaluators.

Every metric of :mod:`rag_eval_adapters.measures` becomes a :class:`langsmith.evaluation.RunEvaluator`, usable in

* LangSmith's ``evaluate()`` / ``aevaluate()`` (``Client.evaluate`` too, also with ``upload_results=False``),
* ``langchain_core.tracers.evaluation.EvaluatorCallbackHandler``,
* the legacy ``langchain.smith.RunEvalConfig(custom_evaluators=[...])`` (it takes any ``RunEvaluator``),
* openevals-style direct calls: ``evaluator(inputs=..., outputs=..., reference_outputs=...)``.

The evaluators only find the retrieved document ids and the reference, then call the metric core: the scores
are exactly those of :mod:`rag_eval_adapters.metrics`. Feedback keys are the core metric keys (``hit_rate@3``,
``mrr``, ``ndcg@10``, ``mrr_granular``, ``ndcg_exp@10``), the same names the LlamaIndex adapters use.

>>> from rag_eval_adapters.langchain import HitRateEvaluator
>>> HitRateEvaluator(k=2)(outputs={"documents": ["d7", "d1"]}, reference_outputs={"expected_ids": ["d1"]})["score"]
1.0

Where the retrieved documents are found (:func:`find_documents`): ``outputs[documents_key]`` when
``documents_key`` is given; otherwise the first of ``outputs["documents"]``, ``outputs["output"]``,
``outputs["context"]``, ``outputs["source_documents"]`` holding a list (also one level down, e.g.
``outputs["output"]["documents"]``); otherwise the first retriever child run of the run (depth first, in start
order). Items may be ``Document`` objects, serialized documents (dicts from the LangSmith API, plain or in
LangChain's ``{"lc": 1, "type": "constructor", ...}`` form), ``(Document, score)`` pairs, or plain ids.

A document's id (:func:`document_id`) is ``id_fn(doc)`` when given, else ``doc.metadata[id_key]`` when
``id_key`` is given, else ``Document.id``; a plain id is its own id. Ids are strings (ints and UUIDs are
converted with ``str``, on both sides, so ``1`` and ``"1"`` match).

The reference is ``example.outputs[reference_key]`` (default ``"expected_ids"``): a list of relevant ids, or a
mapping ``id -> grade`` for graded relevance (a document is relevant when its grade is ``>= relevance_level``;
nDCG uses the grades as gains).
"""

from __future__ import annotations

from ..extras import require

require("langchain_core.documents", needed_by=__name__, extra="langchain", package="langchain-core")
require("langsmith.evaluation", needed_by=__name__, extra="langchain")

from .answer_evaluators import (
    AnswerMetricEvaluator,
    AnswerSimilarityEvaluator,
    ExactMatchEvaluator,
    RougeLEvaluator,
    TokenF1Evaluator,
    find_answer,
    find_reference_answers,
)
from .documents import (
    DOCUMENT_KEYS,
    FEEDBACK_CONFIG,
    document_id,
    document_text,
    find_documents,
    find_expected_texts,
    find_reference,
    retrieved_ids,
    retrieved_texts,
)
from .embeddings import LangChainEmbedder
from .evaluators import (
    AveragePrecisionEvaluator,
    F1Evaluator,
    HitRateEvaluator,
    JudgedShareEvaluator,
    MRREvaluator,
    NDCGEvaluator,
    PrecisionEvaluator,
    RecallEvaluator,
    RetrievalMetricEvaluator,
    RetrievalMetricsEvaluator,
    RPrecisionEvaluator,
)
from .judge_evaluators import JudgeEvaluator
from .rerank import CohereRerankRelevancyEvaluator, RerankRelevancyEvaluator

__all__ = [
    "JudgeEvaluator",
    "DOCUMENT_KEYS",
    "FEEDBACK_CONFIG",
    "RetrievalMetricEvaluator",
    "RetrievalMetricsEvaluator",
    "HitRateEvaluator",
    "MRREvaluator",
    "PrecisionEvaluator",
    "RecallEvaluator",
    "F1Evaluator",
    "AveragePrecisionEvaluator",
    "RPrecisionEvaluator",
    "JudgedShareEvaluator",
    "NDCGEvaluator",
    "RerankRelevancyEvaluator",
    "CohereRerankRelevancyEvaluator",
    "find_documents",
    "document_id",
    "document_text",
    "retrieved_ids",
    "find_reference",
    "retrieved_texts",
    "find_expected_texts",
    "AnswerMetricEvaluator",
    "ExactMatchEvaluator",
    "TokenF1Evaluator",
    "RougeLEvaluator",
    "AnswerSimilarityEvaluator",
    "find_answer",
    "find_reference_answers",
    "LangChainEmbedder",
]
