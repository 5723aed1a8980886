"""``rag_eval_adapters.llamaindex`` exports what its modules export: its ``__all__`` is built from theirs, and
the public API it had is unchanged."""

import rag_eval_adapters.llamaindex as llamaindex

LLAMAINDEX_API = {
    "AnswerMetricEvaluator", "ExactMatchEvaluator", "TokenF1Evaluator", "RougeLEvaluator",
    "AnswerSimilarityEvaluator", "LlamaIndexEmbedder", "HitRate", "MRR", "Precision", "Recall", "F1",
    "AveragePrecision", "NDCG", "metrics_from_names", "evaluate_dataset", "aevaluate_dataset", "DatasetEvaluation",
    "QueryError", "evaluate_retriever", "ScoringRetriever", "nodes_from_records", "RerankRelevancyMetric",
    "CohereRerankRelevancyMetric",
    "JudgeEvaluator", "JudgeFaithfulnessEvaluator", "JudgeRelevancyEvaluator", "JudgeCorrectnessEvaluator",
}


def test_llamaindex_all_is_its_public_api_once_and_star_imports():
    names = {}
    exec("from rag_eval_adapters.llamaindex import *", names)
    assert len(llamaindex.__all__) == len(set(llamaindex.__all__))
    assert set(llamaindex.__all__) == LLAMAINDEX_API
    for name in llamaindex.__all__:
        assert names[name] is getattr(llamaindex, name)


def test_every_class_and_function_the_package_imports_is_exported():
    imported = {
        name for name, value in vars(llamaindex).items()
        if not name.startswith("_") and callable(value)
        and getattr(value, "__module__", "").startswith("rag_eval_adapters.llamaindex.")
    }
    assert imported == set(llamaindex.__all__)
