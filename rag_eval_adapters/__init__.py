"""rag_eval_adapters: trec_eval-exact retrieval metrics for RAG, in the tools RAG teams already use.

>>> from rag_eval_adapters import evaluate
>>> report = evaluate({"q1": {"d1": 1}}, {"q1": ["d3", "d1"]}, ["mrr", "ndcg@10"])
>>> report.mean["mrr"]
0.5

The framework adapters live in submodules imported on demand: :mod:`rag_eval_adapters.llamaindex`,
:mod:`rag_eval_adapters.langchain` and :mod:`rag_eval_adapters.rerank`.

The public names below are loaded on first use (module ``__getattr__``), so ``import rag_eval_adapters`` costs
little more than Python itself and a command such as ``rag-eval --help`` loads only what it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

# public name -> submodule that defines it (loaded on first access)
_LAZY: dict[str, str] = {
    "evaluate": "evaluation",
    "query_details": "evaluation",
    "evaluate_columns": "columnar",
    "Report": "report",
    "GroupedReport": "report",
    "GroupStats": "report",
    "read_qrels": "readers",
    "read_run": "readers",
    "read_trec_qrels": "trec",
    "read_trec_run": "trec",
    "read_jsonl_qrels": "jsonl",
    "read_jsonl_run": "jsonl",
    "read_table_qrels": "tables",
    "read_table_run": "tables",
    "Metric": "measures",
    "HitRate": "measures",
    "MRR": "measures",
    "Precision": "measures",
    "Recall": "measures",
    "F1": "measures",
    "AveragePrecision": "measures",
    "RPrecision": "measures",
    "DCG": "measures",
    "NDCG": "measures",
    "JudgedShare": "measures",
    "parse_metric": "measures",
    "parse_metrics": "measures",
    "metric_names": "measures",
}

if TYPE_CHECKING:  # static analysers and IDEs see ordinary imports (``X as X``: re-exported)
    from .columnar import evaluate_columns as evaluate_columns
    from .evaluation import evaluate as evaluate
    from .evaluation import query_details as query_details
    from .jsonl import read_jsonl_qrels as read_jsonl_qrels
    from .jsonl import read_jsonl_run as read_jsonl_run
    from .measures import DCG as DCG
    from .measures import F1 as F1
    from .measures import MRR as MRR
    from .measures import NDCG as NDCG
    from .measures import AveragePrecision as AveragePrecision
    from .measures import HitRate as HitRate
    from .measures import JudgedShare as JudgedShare
    from .measures import Metric as Metric
    from .measures import Precision as Precision
    from .measures import Recall as Recall
    from .measures import RPrecision as RPrecision
    from .measures import metric_names as metric_names
    from .measures import parse_metric as parse_metric
    from .measures import parse_metrics as parse_metrics
    from .readers import read_qrels as read_qrels
    from .readers import read_run as read_run
    from .report import GroupedReport as GroupedReport
    from .report import GroupStats as GroupStats
    from .report import Report as Report
    from .tables import read_table_qrels as read_table_qrels
    from .tables import read_table_run as read_table_run
    from .trec import read_trec_qrels as read_trec_qrels
    from .trec import read_trec_run as read_trec_run

__all__ = ["__version__", *_LAZY]  # every lazily loaded name is public


def __getattr__(name: str) -> Any:
    """Load a public name from its submodule on first access (PEP 562) and keep it as a module attribute."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
