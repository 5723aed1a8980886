"""Reading human labels for a subset of queries (JSON Lines), for the prediction-powered means of reports.

One line per labelled query (and run, when several runs are compared)::

    {"query_id": "q1", "faithfulness": 1, "f1": 0.8}
    {"query_id": "q1", "run": "bm25", "faithfulness": 0}

Every field besides ``query_id`` and ``run`` is a metric key and its human value (a finite number, on the scale
of the metric the judge or scorer reports). A malformed line, a value that is not a finite number or a repeated
(run, query) raises ``ValueError`` naming the file and line.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from pathlib import Path

from .jsonl import _query_id, read_jsonl_objects

__all__ = ["HumanLabels", "read_human_labels"]

HumanLabels = dict[str | None, dict[Hashable, dict[str, float]]]
"""``{run or None: {query_id: {metric: value}}}`` (``None``: lines without a ``run``: any run)."""

_HINT = 'expected {"query_id": ..., "run": ... (optional), "<metric>": <human value>, ...}'


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
