"""rag_eval_adapters: trec_eval-exact retrieval metrics for RAG, in the tools RAG teams already use.

>>> from rag_eval_adapters import evaluate
>>> report = evaluate({"q1": {"d1": 1}}, {"q1": ["d3", "d1"]}, ["mrr", "ndcg@10"])
>>> report.mean["mrr"]
0.5

The framework adapters live in submodules imported on demand: :mod:`rag_eval_adapters.llamaindex`,
:mod:`rag_eval_adapters.langchain` and :mod:`rag_eval_adapters.rerank`.
"""

from __future__ import annotations

from ._version import __version__
from .columnar import evaluate_columns
from .evaluation import evaluate
from .measures import (
    DCG,
    F1,
    MRR,
    NDCG,
    AveragePrecision,
    HitRate,
    Metric,
    Precision,
    Recall,
    RPrecision,
    metric_names,
    parse_metric,
    parse_metrics,
)
from .jsonl import read_jsonl_qrels, read_jsonl_run
from .readers import read_qrels, read_run
from .report import GroupedReport, GroupStats, Report
from .tables import read_table_qrels, read_table_run
from .trec import read_trec_qrels, read_trec_run

__all__ = [
    "__version__",
    "evaluate",
    "evaluate_columns",
    "Report",
    "GroupedReport",
    "GroupStats",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "read_jsonl_qrels",
    "read_jsonl_run",
    "read_table_qrels",
    "read_table_run",
    "Metric",
    "HitRate",
    "MRR",
    "Precision",
    "Recall",
    "F1",
    "AveragePrecision",
    "RPrecision",
    "DCG",
    "NDCG",
    "parse_metric",
    "parse_metrics",
    "metric_names",
]
