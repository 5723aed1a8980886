"""What the gate compares: per-question values of each metric, from a report, a ``report.json`` or a mapping.

A *column* is ``{question id: value}`` of one metric, holding only the questions that metric measured (a judged
metric's unmeasured answers and the questions that failed with an error are left out). The gate pairs the
baseline's and the candidate's columns on the questions both hold.

``report.json`` files read: the JSON of ``rag-eval evaluate``, ``answers`` and ``judge`` (``--format json``:
``{"mean", "per_query": {question: {metric: value}}}``) and the report folder of ``rag-eval bench`` and ``demo``
(``{"configurations": {name: {"per_query", "answers": {"per_query"}}}}``: one configuration picked by name).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

from ..report import Report

__all__ = ["Columns", "as_columns", "read_report_file", "report_columns", "mapping_columns", "find_metric", "columns_report",
           "NO_PER_QUESTION"]

Columns = dict[str, dict[Hashable, float]]
"""Metric key -> {question id: value}, measured cells only."""

NO_PER_QUESTION = ("holds no per-question values; the gate pairs questions, so write a report that has them: "
                   "rag-eval evaluate --qrels QRELS --run RUN -m METRIC --format json -o report.json "
                   "(or rag-eval answers / judge --format json -o report.json, or the report.json of rag-eval bench)")


def report_columns(report: Report) -> Columns:
    """The columns of a :class:`~rag_eval_adapters.Report` (NaN cells, the unmeasured ones, left out)."""
    out: Columns = {}
    for j, key in enumerate(report.keys):
        column = report.values[:, j].tolist()
        out[key] = {q: v for q, v in zip(report.query_ids, column, strict=True) if v == v}
    return out


def _number(value: Any, where: str, qid: Any, metric: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: question {qid!r}, field {metric!r}: {value!r} is not a finite number")
    return float(value)


def mapping_columns(per_query: Mapping[Hashable, Mapping[str, Any]], where: str,
                    metrics: list[str] | None = None) -> Columns:
    """The columns of ``{question: {metric: value}}`` (``None`` for an unmeasured cell).

    ``metrics`` names the metric fields (default: every field of every question, all of which must then be
    numbers); other fields, such as a question's type, are ignored. A value that is not a finite number (or
    ``None``) raises ``ValueError`` naming ``where``, the question and the field.
    """
    if not isinstance(per_query, Mapping):
        raise TypeError(f"{where}: per-question values must be a mapping {{question: {{metric: value}}}}")
    out: Columns = {m: {} for m in metrics or ()}
    for qid, row in per_query.items():
        if not isinstance(row, Mapping):
            raise ValueError(f"{where}: question {qid!r} holds {type(row).__name__}, not {{metric: value}}")
        for metric in (metrics if metrics is not None else row):
            value = _number(row.get(metric), where, qid, metric)
            if value is not None:
                out.setdefault(metric, {})[qid] = value
    return out


def _metric_fields(section: Mapping[str, Any]) -> list[str] | None:
    mean = section.get("mean")
    return list(mean) if isinstance(mean, Mapping) and mean else None


def _bench_columns(data: Mapping[str, Any], where: str, config: str | None) -> Columns:
    configs = data["configurations"]
    if not isinstance(configs, Mapping) or not configs:
        raise ValueError(f"{where}: no configuration in the bench report")
    if config is None:
        raise ValueError(f"{where} is a bench report of {len(configs)} configurations: pick one with --config "
                         f"({', '.join(configs)})")
    if config not in configs:
        raise ValueError(f"{where}: no configuration {config!r}; the report has {', '.join(configs)}")
    entry = configs[config]
    if not isinstance(entry, Mapping) or not isinstance(entry.get("per_query"), Mapping):
        raise ValueError(f"{where} [{config}] {NO_PER_QUESTION}")
    columns = mapping_columns(entry["per_query"], f"{where} [{config}]", _metric_fields(entry))
    answers = entry.get("answers")
    if isinstance(answers, Mapping) and isinstance(answers.get("per_query"), Mapping):
        columns.update(mapping_columns(answers["per_query"], f"{where} [{config}] answers", _metric_fields(answers)))
    return columns


def read_report_file(path: str | os.PathLike[str], config: str | None = None) -> Columns:
    """The columns of a ``report.json`` (see the module doc); ``config`` picks a bench report's configuration.

    Raises
    ------
    ValueError
        A file that is not JSON, a report without per-question values (naming the command that writes them), an
        unknown configuration, or a value that is not a number (naming the question and field).
    OSError
        A file that cannot be read.
    """
    where = str(path)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: not a JSON report ({exc})") from None
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: a report is a JSON object, got {type(data).__name__}")
    if "configurations" in data:
        return _bench_columns(data, where, config)
    if config is not None:
        raise ValueError(f"{where}: --config {config} names a bench configuration, but this is not a bench report")
    if not isinstance(data.get("per_query"), Mapping) or not data["per_query"]:
        raise ValueError(f"{where} {NO_PER_QUESTION}")
    return mapping_columns(data["per_query"], where, _metric_fields(data))


def as_columns(source: Any, what: str, config: str | None = None) -> Columns:
    """The columns of a :class:`~rag_eval_adapters.Report` (or anything with ``to_report()``), a ``report.json``
    path, or a mapping ``{question: {metric: value}}``; ``what`` names the source in errors."""
    if isinstance(source, (str, os.PathLike)):
        return read_report_file(Path(source), config)
    if isinstance(source, Report) or hasattr(source, "to_report"):
        from ..report import as_report

        return report_columns(as_report(source, what))
    if isinstance(source, Mapping):
        return mapping_columns(source, what)
    raise TypeError(f"{what}: give a Report, a report.json path or {{question: {{metric: value}}}}, "
                    f"got {type(source).__name__}")


def find_metric(columns: Columns, name: str, what: str) -> str:
    """The key of ``columns`` that ``name`` names (exactly, else ignoring case); ``ValueError`` listing the keys."""
    if name in columns:
        return name
    folded = [k for k in columns if k.casefold() == name.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise ValueError(f"{what} has no metric {name!r}; it has {', '.join(columns) or 'none'}")


def columns_report(columns: Columns, metrics: list[str]) -> Report:
    """A :class:`~rag_eval_adapters.Report` of the ``metrics`` columns (a cell a column lacks is unmeasured,
    reason ``"not scored"``), for the pages and tables that take reports."""
    qids: dict[Hashable, None] = {}
    for metric in metrics:
        qids.update(dict.fromkeys(columns[metric]))
    order = list(qids)
    values = [[columns[m].get(q, math.nan) for m in metrics] for q in order]
    unmeasured = {m: {q: "not scored" for q in order if q not in columns[m]} for m in metrics}
    return Report(list(metrics), order, values, unmeasured={m: c for m, c in unmeasured.items() if c})
