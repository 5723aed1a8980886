"""LlamaIndex adapters: drop-in retrieval metrics for ``RetrieverEvaluator``, and whole-data-set evaluation.

Swap the imports and get LlamaIndex's numbers, then switch on what LlamaIndex lacks::

    # from llama_index.core.evaluation.retrieval.metrics import HitRate, MRR
    from rag_eval_adapters.llamaindex import HitRate, MRR, NDCG, evaluate_dataset
    from llama_index.core.evaluation import RetrieverEvaluator

    evaluator = RetrieverEvaluator(metrics=[HitRate(), MRR(), HitRate(top_k=3), NDCG(top_k=10)], retriever=retriever)
    run = evaluate_dataset(evaluator, "qa.jsonl", workers=8)
    run.mean        # {"hit_rate": ..., "mrr": ..., "hit_rate@3": ..., "ndcg@10": ...}

Every class subclasses LlamaIndex's ``BaseRetrievalMetric`` with LlamaIndex's ``metric_name`` and option
names, and scores through :mod:`rag_eval_adapters.measures`. The differences from LlamaIndex's own classes
are listed in ``docs/llamaindex.md``. This is the only module of the package that imports ``llama_index``.
"""

from __future__ import annotations

from ..extras import require

require("llama_index.core", needed_by=__name__, extra="llamaindex", package="llama-index-core")

from . import answer_evaluators, dataset, embeddings, judge_evaluators, metrics, rerank, retrievers
from .answer_evaluators import (  # noqa: F401
    AnswerMetricEvaluator,
    AnswerSimilarityEvaluator,
    ExactMatchEvaluator,
    RougeLEvaluator,
    TokenF1Evaluator,
)
from .dataset import (  # noqa: F401
    DatasetEvaluation,
    QueryError,
    aevaluate_dataset,
    evaluate_dataset,
    evaluate_retriever,
)
from .embeddings import LlamaIndexEmbedder  # noqa: F401
from .judge_evaluators import (  # noqa: F401
    JudgeCorrectnessEvaluator,
    JudgeEvaluator,
    JudgeFaithfulnessEvaluator,
    JudgeRelevancyEvaluator,
)
from .metrics import (  # noqa: F401
    F1,
    MRR,
    NDCG,
    AveragePrecision,
    HitRate,
    Precision,
    Recall,
    metrics_from_names,
)
from .rerank import CohereRerankRelevancyMetric, RerankRelevancyMetric  # noqa: F401
from .retrievers import ScoringRetriever, nodes_from_records  # noqa: F401

# the package exports what its modules export: each name is imported above and listed once, in its module's
# __all__ (the forms type checkers read: ``__all__ += <submodule>.__all__``)
__all__: list[str] = []
__all__ += answer_evaluators.__all__
__all__ += embeddings.__all__
__all__ += metrics.__all__
__all__ += dataset.__all__
__all__ += retrievers.__all__
__all__ += rerank.__all__
__all__ += judge_evaluators.__all__
