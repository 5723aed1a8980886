"""Formatting of evaluation and comparison results: table, JSON, CSV, Markdown, and plots.

The functions take the core's :class:`~rag_eval_adapters.Report` (the one result type: a LlamaIndex
``DatasetEvaluation`` becomes one with ``to_report()``), its per-group view
:class:`~rag_eval_adapters.GroupedReport` and :class:`~rag_eval_adapters.compare.Comparison`
objects and return text, so the command line, notebooks and tests share one implementation.
``rich`` (tables) and ``matplotlib`` (plots) are imported only when those outputs are asked for.

Metric keys such as ``ndcg@10`` are split into a row name (``ndcg``) and a cutoff (``10``): when
every metric is measured at the same cutoffs the table is a grid (metric x k), otherwise a list.
"""

from __future__ import annotations

from ._text import FORMATS, MEAN_ROW, repr_float, split_key
from .comparison import comparison_tables, comparison_to_dict, render_comparison
from .evaluation import (
    QueryDetail,
    evaluation_tables,
    evaluation_to_dict,
    notes_lines,
    render_evaluation,
    worst_queries,
)
from .groups import render_groups
from .markup import escape_markdown
from .plots import plot_metrics

__all__ = [
    "notes_lines",
    "FORMATS",
    "MEAN_ROW",
    "QueryDetail",
    "split_key",
    "repr_float",
    "worst_queries",
    "evaluation_to_dict",
    "render_evaluation",
    "evaluation_tables",
    "render_groups",
    "comparison_to_dict",
    "render_comparison",
    "comparison_tables",
    "plot_metrics",
    "escape_markdown",
]
