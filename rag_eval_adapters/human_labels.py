"""Reading human labels for a subset of queries (JSON Lines), for the prediction-powered means of reports.

One line per labelled query (and run, when several runs are compared)::

    {"query_id": "q1", "faithfulness": 1, "f1": 0.8}
    {"query_id": "q1", "run": "bm25", "faithfulness": 0}

Every field besides ``query_id`` and ``run`` is a metric key and its human value (a finite number, on the scale
of the metric the judge or scorer reports: [0, 1] for every registry metric but DCG). A malformed line, a value
that is not a finite number (``true`` is not 1), a value off its metric's scale (``"ndcg@10": 5``) or a repeated
(run, query) raises ``ValueError`` naming the file, line and field.

This module is I/O (it reads a file and names its lines), not a statistic: the statistics in
:mod:`rag_eval_adapters.stats` take the numbers it returns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from pathlib import Path

from .jsonl import _query_id, read_jsonl_objects

__all__ = ["HumanLabels", "read_human_labels", "label_problem"]

HumanLabels = dict[str | None, dict[Hashable, dict[str, float]]]
"""``{run or None: {query_id: {metric: value}}}`` (``None``: lines without a ``run``: any run)."""

_HINT = 'expected {"query_id": ..., "run": ... (optional), "<metric>": <human value>, ...}'


def label_problem(metric: str, value: float) -> str:
    """Why ``value`` cannot be a human label of ``metric``, or ``""``: a metric of the registry bounded by
    [0, 1] (every one but DCG; names as ``rag-eval`` reads them, e.g. ``ndcg@10``, ``faithfulness``) takes labels
    in [0, 1] only. A key the registry does not know is any finite number (a custom scorer's scale)."""
    from .measures import parse_metric

    try:
        bounded = bool(getattr(parse_metric(metric), "bounded", False))
    except (TypeError, ValueError):
        return ""
    if bounded and not 0.0 <= value <= 1.0:
        return f'the human label "{metric}" is {value:g}, off the metric\'s scale [0, 1]'
    return ""


def read_human_labels(path: str | Path, *, lines: dict[tuple[str | None, Hashable], int] | None = None) -> HumanLabels:
    """The human labels of a JSONL file (see the module docstring).

    ``lines``, when given, is filled with ``{(run or None, query_id): line number}``, so a later check (a query
    or metric the labelled results do not have) can name the line."""
    out: HumanLabels = {}
    for number, obj in read_jsonl_objects(path):
        where = f"{path}:{number}"
        qid = _query_id(obj, where, _HINT)
        run = obj.get("run")
        if run is not None and not isinstance(run, str):
            raise ValueError(f'{where}: "run" must be a string, got {run!r}')
        values = {}
        for key, value in obj.items():
            if key in ("query_id", "run"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f'{where}: the human label "{key}" must be a finite number, got {value!r}')
            problem = label_problem(key, float(value))
            if problem:
                raise ValueError(f"{where}: {problem}")
            values[key] = float(value)
        if not values:
            raise ValueError(f"{where}: no label on the line; {_HINT}")
        rows = out.setdefault(run, {})
        if qid in rows:
            raise ValueError(f"{where}: query {qid!r}{f' of run {run!r}' if run else ''} is labelled twice")
        rows[qid] = values
        if lines is not None:
            lines[(run, qid)] = number
    if not out:
        raise ValueError(f"{path}: no human labels in the file")
    return out
