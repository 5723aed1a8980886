"""The one result type of every evaluation: :class:`Report`, and its per-group view :class:`GroupedReport`.

:func:`~rag_eval_adapters.evaluate`, :func:`~rag_eval_adapters.evaluate_columns`,
``DatasetEvaluation.to_report()`` (LlamaIndex data sets) and the answer metrics all return a
:class:`Report`; :mod:`rag_eval_adapters.reports` renders it and :mod:`rag_eval_adapters.compare`
compares several.

>>> report = Report.from_per_query(
...     {"q1": {"mrr": 1.0}, "q2": {"mrr": 0.5}, "q3": {"mrr": 0.0}},
...     attributes={"q1": {"query_type": "fact"}, "q2": {"query_type": "fact"}, "q3": {"query_type": "how"}},
... )
>>> report.mean["mrr"]
0.5
>>> report.by("query_type").mean("mrr")
{'fact': 0.75, 'how': 0.0, 'all': 0.5}
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

import numpy as np

from .stats.interval import Interval
from .stats.resampling import bootstrap_interval, column_means
from .validation import check_count, check_fraction, check_seed

__all__ = ["Report", "GroupedReport", "GroupStats", "OVERALL", "as_report"]

OVERALL = "all"  # the label of the overall row of a GroupedReport, as trec_eval labels its summary lines

Grouping = str | Mapping[Hashable, Hashable] | Callable[[Hashable], Hashable]


def _key(metric: Any) -> str:
    """The column name of a metric: a string as given, else its ``label`` (the name it was asked for) or its
    ``key`` (core and answer metric objects)."""
    if isinstance(metric, str):
        return metric
    for attribute in ("label", "key"):
        name = getattr(metric, attribute, None)
        if isinstance(name, str):
            return name
    raise TypeError(f"a report metric must be a name or an object with a string 'key', got {metric!r:.60}")


class Report:
    """Per-query scores of one evaluation: means, per-query values, errors, counts and per-query attributes.

    Parameters
    ----------
    metrics : sequence of Metric or str
        The metrics in column order: core :class:`~rag_eval_adapters.measures.Metric` objects, any object with
        a string ``key`` (answer metrics), or plain names (LlamaIndex ``metric_name``). A metric object's column
        is named by its ``label`` when it has one (the name it was asked for), else by its ``key``.
    query_ids : sequence
        The queries that were scored, one per row of ``values``.
    values : array_like
        Shape ``(len(query_ids), len(metrics))``.
    errors : mapping, optional
        ``{query_id: message}`` for each query that could not be scored (the others still are).
    counts : mapping, optional
        Named counts, e.g. ``queries``, ``scored``, ``missing_from_run``, ``not_in_qrels``, ``errors``.
        Default: ``queries`` (scored plus failed), ``scored`` and ``errors``.
    relevance_level : float or None, optional
        The lowest grade that counted as relevant (retrieval reports); None where it does not apply.
    attributes : mapping, optional
        ``{query_id: {field: value}}``: what is known of each query besides its scores, such as
        ``query_type``; failed queries may have attributes too. :meth:`by` groups on them.
    unmeasured : mapping, optional
        ``{metric key: {query_id: reason}}``: cells with no score (an LLM judge's refusal, a failed call...).
        The query keeps its other scores; means, intervals and per-query values leave those cells out and
        :attr:`measured` counts the rest. In ``values`` such a cell is NaN (nowhere else).
    info : mapping, optional
        What produced the scores, shown with them: e.g. ``{"judge": {"judge_model", "prompt_version", ...}}``.

    Attributes
    ----------
    metrics, query_ids, values, errors, counts, relevance_level, attributes, unmeasured, info
        As given (``values`` as a float64 array).
    """

    def __init__(
        self,
        metrics: Sequence[Any],
        query_ids: Sequence[Hashable],
        values: Any,
        errors: Mapping[Hashable, str] | None = None,
        counts: Mapping[str, int] | None = None,
        relevance_level: float | None = 1.0,
        attributes: Mapping[Hashable, Mapping[str, Any]] | None = None,
        unmeasured: Mapping[str, Mapping[Hashable, str]] | None = None,
        info: Mapping[str, Any] | None = None,
    ) -> None:
        self.metrics = list(metrics)
        self._keys = [_key(m) for m in self.metrics]
        if len(set(self._keys)) != len(self._keys):
            raise ValueError(f"a report's metric keys must be distinct, got {self._keys}")
        self.query_ids = list(query_ids)
        self.values = np.asarray(values, dtype=np.float64).reshape(len(self.query_ids), len(self.metrics))
        self.errors = dict(errors or {})
        if counts is None:
            counts = {"queries": len(self.query_ids) + len(self.errors), "scored": len(self.query_ids),
                      "errors": len(self.errors)}
        self.counts = dict(counts)
        self.relevance_level = relevance_level
        self.attributes = {q: dict(a) for q, a in (attributes or {}).items()}
        self.info = dict(info or {})
        self.unmeasured = _unmeasured_cells(self, unmeasured or {})

    @classmethod
    def from_per_query(
        cls,
        per_query: Mapping[Hashable, Mapping[str, float]],
        metrics: Sequence[Any] | None = None,
        *,
        errors: Mapping[Hashable, str] | None = None,
        counts: Mapping[str, int] | None = None,
        relevance_level: float | None = None,
        attributes: Mapping[Hashable, Mapping[str, Any]] | None = None,
    ) -> Report:
        """A report from ``{query_id: {metric key: value}}``.

        Parameters
        ----------
        per_query : mapping
            The scores of each scored query; every query must hold a value for every metric.
        metrics : sequence, optional
            The columns (names or metric objects), in order; default: the keys of the first query.
        errors, counts, relevance_level, attributes
            As in :class:`Report`.

        Raises
        ------
        ValueError
            When a query lacks a value for one of the metrics.
        """
        if metrics is None:
            first = next(iter(per_query.values()), {})
            metrics = list(first)
        keys = [_key(m) for m in metrics]
        values = np.empty((len(per_query), len(keys)), dtype=np.float64)
        for i, (query_id, row) in enumerate(per_query.items()):
            try:
                values[i] = [row[k] for k in keys]
            except KeyError as exc:
                raise ValueError(f"query {query_id!r} has no value for metric {exc.args[0]!r}") from None
        return cls(metrics, list(per_query), values, errors, counts, relevance_level, attributes)

    @property
    def keys(self) -> list[str]:
        """The metric keys, e.g. ``["ndcg@10", "mrr"]``."""
        return list(self._keys)

    @cached_property
    def mean(self) -> dict[str, float]:
        """Metric key -> mean over the scored queries (``{}`` when none was scored); a metric with
        :attr:`unmeasured` cells is averaged over its measured queries (left out when it has none)."""
        if not self.query_ids:
            return {}
        if not self.unmeasured:
            return dict(zip(self._keys, column_means(self.values), strict=False))
        return {k: column_means(self.values[self._measured_rows(j), j:j + 1])[0] for j, k in enumerate(self._keys)
                if self.measured[k]}

    @cached_property
    def measured(self) -> dict[str, int]:
        """Metric key -> queries with a score for it (the count beside each mean)."""
        return {k: len(self.query_ids) - len(self.unmeasured.get(k, {})) for k in self._keys}

    def _measured_rows(self, column: int) -> np.ndarray:
        return ~np.isnan(self.values[:, column])

    @cached_property
    def per_query(self) -> dict[Hashable, dict[str, float]]:
        """Query id -> {metric key -> value}, for the scored queries (unmeasured cells left out)."""
        keys = self._keys
        if self.unmeasured:
            return {q: {k: v for k, v in zip(keys, row, strict=True) if v == v}
                    for q, row in zip(self.query_ids, self.values.tolist(), strict=True)}
        return {q: dict(zip(keys, row, strict=False)) for q, row in zip(self.query_ids, self.values.tolist(), strict=False)}

    def column(self, metric: Any) -> np.ndarray:
        """The per-query values of one metric, in ``query_ids`` order.

        Parameters
        ----------
        metric : str or Metric
            A column name of this report, or a metric name or object that means the same metric
            (``"map@100"`` finds ``ap@100``).

        Raises
        ------
        KeyError
            When the report does not hold that metric.
        """
        if isinstance(metric, str) and metric in self._keys:
            return self.values[:, self._keys.index(metric)]
        wanted = metric
        if isinstance(metric, str):
            try:
                wanted = _parsed(metric)
            except (ValueError, TypeError):
                wanted = None
        wanted_key = getattr(wanted, "key", None)
        for j, held in enumerate(self.metrics):
            if wanted is not None and (held == wanted or (wanted_key is not None and getattr(held, "key", None)
                                                          == wanted_key)):
                return self.values[:, j]
        raise KeyError(f"{metric!r} was not evaluated; this report holds {self._keys}")

    def by(
        self,
        field: Grouping,
        *,
        confidence: float = 0.95,
        n_bootstrap: int = 1000,
        seed: int | None = 0,
    ) -> GroupedReport:
        """Per-group means, counts and confidence intervals of every metric, with the overall row.

        Parameters
        ----------
        field : str, mapping or callable
            What a query's group is: the name of a per-query attribute (``"query_type"``), a mapping
            ``{query_id: group}``, or a function of the query id. A query without the attribute is in the
            group ``None``. No group may be named ``"all"``: that is the overall row.
        confidence : float
            The coverage of each interval (0.95: 95%).
        n_bootstrap : int
            Resamples of the percentile bootstrap interval of each mean (queries of the group drawn with
            replacement, as :mod:`~rag_eval_adapters.compare` does; seeded, so the same report gives the same
            intervals). The work grows as ``n_bootstrap`` times the number of scored queries.
        seed : int or None
            Seed of the resampling. Every group is resampled from a generator seeded afresh (the same draws
            for every metric of the group, each metric's means computed from its own values), so a row's
            interval does not depend on which other groups or metrics the report holds; with ``None`` one
            fresh seed is drawn for the whole call.

        Returns
        -------
        GroupedReport
            One :class:`GroupStats` per group (in order of first appearance among the scored queries, then
            groups with only failed queries) and the overall row, labelled ``"all"``.

        Raises
        ------
        ValueError
            When a query's group is ``"all"`` (naming the query), or for a bad ``confidence`` or
            ``n_bootstrap``.
        TypeError
            When a group is not hashable.
        """
        confidence = check_fraction(confidence, "confidence")
        n_bootstrap = check_count(n_bootstrap, "n_bootstrap")
        seed = check_seed(seed)
        group_of = _hashable_groups(_grouper(field, self.attributes), field)
        labels = [group_of(q) for q in self.query_ids]
        failed: dict[Hashable, int] = {}
        for q in self.errors:
            label = group_of(q)
            failed[label] = failed.get(label, 0) + 1
        order: dict[Hashable, list[int]] = {}
        for row, label in enumerate(labels):
            order.setdefault(label, []).append(row)
        for label in failed:
            order.setdefault(label, [])
        if seed is None:
            seed = int(cast(int, np.random.SeedSequence().entropy))  # one seed for every group and metric of this call
        stats = _stats if not self.unmeasured else _stats_by_column
        groups = [
            stats(label, self.values[rows], self._keys, failed.get(label, 0), confidence, n_bootstrap, seed)
            for label, rows in order.items()
        ]
        overall = stats(OVERALL, self.values, self._keys, len(self.errors), confidence, n_bootstrap, seed)
        name = field if isinstance(field, str) else getattr(field, "__name__", "group")
        return GroupedReport(str(name), self.keys, groups, overall, confidence, n_bootstrap)

    def with_attributes(self, attributes: Mapping[Hashable, Mapping[str, Any]]) -> Report:
        """A copy of this report with more per-query attributes (merged over the ones it has)."""
        merged = {q: dict(a) for q, a in self.attributes.items()}
        for q, extra in attributes.items():
            merged.setdefault(q, {}).update(extra)
        return Report(self.metrics, self.query_ids, self.values, self.errors, self.counts,
                      self.relevance_level, merged, self.unmeasured, self.info)

    def to_dict(self) -> dict[str, Any]:
        """``{"mean", "per_query", "counts", "errors", "metrics", "relevance_level"}`` (and ``attributes`` when
        there are any), ready for JSON."""
        out = {
            "mean": self.mean,
            "per_query": {str(q): v for q, v in self.per_query.items()},
            "counts": self.counts,
            "errors": {str(q): e for q, e in self.errors.items()},
            "metrics": self.keys,
            "relevance_level": self.relevance_level,
        }
        if self.attributes:
            out["attributes"] = {str(q): a for q, a in self.attributes.items()}
        if self.unmeasured:
            out["measured"] = dict(self.measured)
            out["unmeasured"] = {k: {str(q): r for q, r in cells.items()} for k, cells in self.unmeasured.items()}
        if self.info:
            out["info"] = dict(self.info)
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame: one row per scored query (index ``query_id``), one column per metric, then one
        column per attribute."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        frame = pd.DataFrame(self.values, columns=self._keys, index=pd.Index(self.query_ids, name="query_id"))
        fields = list(dict.fromkeys(f for q in self.query_ids for f in self.attributes.get(q, {})))
        for name in fields:
            if name not in frame.columns:
                frame[name] = [self.attributes.get(q, {}).get(name) for q in self.query_ids]
        return frame

    def __repr__(self) -> str:
        means = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        extra = f", errors={len(self.errors)}" if self.errors else ""
        fields = sorted({f for a in self.attributes.values() for f in a})
        extra += f", attributes={fields}" if fields else ""
        return f"Report(queries={len(self.query_ids)}{extra}, mean={{{means}}})"


def as_report(result: Any, what: str = "result") -> Report:
    """``result`` as a :class:`Report`: a Report as is, or anything with a ``to_report()`` method (a LlamaIndex
    ``DatasetEvaluation``) converted.

    Raises
    ------
    TypeError
        For anything else, naming ``what``.
    """
    if isinstance(result, Report):
        return result
    convert = getattr(result, "to_report", None)
    if callable(convert):
        converted = convert()
        if isinstance(converted, Report):
            return converted
    raise TypeError(
        f"{what} must be a rag_eval_adapters.Report (from evaluate, evaluate_columns, evaluate_answers or a "
        f"DatasetEvaluation's to_report()), got {type(result).__name__}"
    )


def _parsed(name: str) -> Any:
    from .measures import parse_metric

    return parse_metric(name)


def _unmeasured_cells(report: Report, unmeasured: Mapping[str, Mapping[Hashable, str]]) -> dict[str, dict]:
    """The checked ``unmeasured`` cells of ``report``, each set to NaN in its ``values`` (a copy)."""
    out: dict[str, dict] = {}
    rows = {q: i for i, q in enumerate(report.query_ids)}
    for key, cells in unmeasured.items():
        if key not in report._keys:
            raise ValueError(f"unmeasured names the metric {key!r}, which this report does not hold ({report._keys})")
        if not cells:
            continue
        missing = [q for q in cells if q not in rows]
        if missing:
            raise ValueError(f"unmeasured {key!r} names queries that are not scored rows: {missing[:5]}")
        if not out:
            report.values = report.values.copy()
        column = report._keys.index(key)
        for q in cells:
            report.values[rows[q], column] = np.nan
        out[key] = {q: str(r) for q, r in cells.items()}
    return out


def _grouper(field: Grouping, attributes: Mapping[Hashable, Mapping[str, Any]]) -> Callable[[Hashable], Any]:
    if isinstance(field, str):
        return lambda q: attributes.get(q, {}).get(field)
    if isinstance(field, Mapping):
        return lambda q: field.get(q)
    if callable(field):
        return field
    raise TypeError(
        "by() takes an attribute name (e.g. 'query_type'), a mapping {query_id: group} or a function of the "
        f"query id, got {type(field).__name__}"
    )


def _hashable_groups(group_of: Callable[[Hashable], Any], field: Grouping) -> Callable[[Hashable], Hashable]:
    def checked(query_id: Hashable) -> Hashable:
        group = group_of(query_id)
        if not isinstance(group, Hashable):
            what = f"attribute {field!r}" if isinstance(field, str) else "group"
            raise TypeError(f"query {query_id!r}: its {what} is a {type(group).__name__} ({group!r:.60}); "
                            "a group must be a hashable value such as a string or a number")
        if isinstance(group, str) and group == OVERALL:
            what = f"attribute {field!r}" if isinstance(field, str) else "group"
            raise ValueError(f"query {query_id!r}: its {what} is {OVERALL!r}, the label of the overall row; give "
                             "that group another name (e.g. group with a mapping or a function of the query id)")
        return group

    return checked


def _stats(label, values, keys, errors, confidence, n_bootstrap, seed: int) -> GroupStats:
    """One row of a GroupedReport. The group's resamples come from a generator seeded afresh with ``seed``, and
    each metric's mean and interval are computed from its own column, so a row depends neither on the other
    groups nor on the other metrics."""
    n = values.shape[0]
    if n == 0:
        return GroupStats(label, 0, errors, {}, {}, {})
    low, high = bootstrap_interval(values, n_bootstrap, confidence, np.random.default_rng(seed))
    return GroupStats(
        label, n, errors, dict(zip(keys, column_means(values), strict=True)),
        dict(zip(keys, low.tolist(), strict=True)), dict(zip(keys, high.tolist(), strict=True)),
    )


def _stats_by_column(label, values, keys, errors, confidence, n_bootstrap, seed: int) -> GroupStats:
    """:func:`_stats` of each column over its measured rows (a report with unmeasured cells)."""
    mean, low, high, measured = {}, {}, {}, {}
    for j, key in enumerate(keys):
        column = values[:, j]
        kept = column[~np.isnan(column)].reshape(-1, 1)
        measured[key] = int(kept.shape[0])
        if kept.shape[0]:
            one = _stats(label, kept, [key], errors, confidence, n_bootstrap, seed)
            mean.update(one.mean)
            low.update(one.ci_low)
            high.update(one.ci_high)
    return GroupStats(label, values.shape[0], errors, mean, low, high, measured)


@dataclass(frozen=True)
class GroupStats:
    """One row of a :class:`GroupedReport`.

    Attributes
    ----------
    group : hashable
        The group's value (``"all"`` for the overall row).
    count : int
        Scored queries in the group.
    errors : int
        Queries of the group that could not be scored.
    mean, ci_low, ci_high : dict
        Metric key -> mean and the bounds of its interval (``{}`` when no query of the group was scored;
        a group of one query has a zero-width interval). A metric with unmeasured cells is averaged over its
        measured queries, and left out when the group has none.
    measured : dict
        Metric key -> queries of the group with a score for it; empty when the report has no unmeasured cell
        (then every metric was measured on all ``count`` queries).
    """

    group: Hashable
    count: int
    errors: int
    mean: dict[str, float]
    ci_low: dict[str, float]
    ci_high: dict[str, float]
    measured: dict[str, int] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"group", "count", "errors", "mean", "ci_low", "ci_high"}`` (and ``measured``), ready for JSON."""
        out = {"group": self.group, "count": self.count, "errors": self.errors, "mean": dict(self.mean),
               "ci_low": dict(self.ci_low), "ci_high": dict(self.ci_high)}
        if self.measured:
            out["measured"] = dict(self.measured)
        return out


@dataclass(frozen=True)
class GroupedReport:
    """A :class:`Report` split by a per-query field: :meth:`Report.by`'s result.

    Attributes
    ----------
    field : str
        What the queries were grouped on.
    keys : list of str
        The metric keys.
    groups : list of GroupStats
        One row per group.
    overall : GroupStats
        Every scored query, labelled ``"all"``.
    confidence : float
        Coverage of the intervals.
    n_bootstrap : int
        Resamples behind each interval.
    """

    field: str
    keys: list[str]
    groups: list[GroupStats]
    overall: GroupStats
    confidence: float
    n_bootstrap: int

    @property
    def rows(self) -> list[GroupStats]:
        """The groups, then the overall row."""
        return [*self.groups, self.overall]

    def __getitem__(self, group: Hashable) -> GroupStats:
        for row in self.rows:
            if row.group == group:
                return row
        raise KeyError(f"no group {group!r}; the groups are {[g.group for g in self.groups]}")

    def mean(self, metric: str) -> dict[Hashable, float]:
        """Group -> mean of ``metric`` (groups with no scored query left out), the overall mean last."""
        if metric not in self.keys:
            raise KeyError(f"{metric!r} was not evaluated; this report holds {self.keys}")
        return {row.group: row.mean[metric] for row in self.rows if row.count and metric in row.mean}

    def interval(self, group: Hashable, metric: str) -> Interval:
        """The mean of ``metric`` in ``group`` (``"all"``: every query) with its percentile bootstrap interval, as
        the package's one interval type (:class:`~rag_eval_adapters.stats.interval.Interval`; ``n``: the queries
        behind the mean).

        Raises
        ------
        KeyError
            For a group or metric the report does not have, or a metric the group has no score of.
        """
        row = self[group]
        if metric not in self.keys:
            raise KeyError(f"{metric!r} was not evaluated; this report holds {self.keys}")
        if metric not in row.mean:
            raise KeyError(f"group {group!r} has no score of {metric!r}")
        n = row.measured.get(metric, row.count) if row.measured else row.count
        return Interval(row.mean[metric], row.ci_low[metric], row.ci_high[metric], self.confidence, "bootstrap", n)

    def to_dict(self) -> dict[str, Any]:
        """``{"field", "metrics", "confidence", "n_bootstrap", "groups": [...]}`` (overall row last)."""
        return {"field": self.field, "metrics": list(self.keys), "confidence": self.confidence,
                "n_bootstrap": self.n_bootstrap, "groups": [row.to_dict() for row in self.rows]}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame: one row per group (index ``field``, overall last) with ``count``, ``errors``, and
        for each metric its mean, ``<metric> ci_low`` and ``<metric> ci_high``."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        records = []
        for row in self.rows:
            record: dict[str, Any] = {"count": row.count, "errors": row.errors}
            for k in self.keys:
                record[k] = row.mean.get(k, math.nan)
                record[f"{k} ci_low"] = row.ci_low.get(k, math.nan)
                record[f"{k} ci_high"] = row.ci_high.get(k, math.nan)
            records.append(record)
        return pd.DataFrame(records, index=pd.Index([r.group for r in self.rows], name=self.field))

    def __repr__(self) -> str:
        first = self.keys[0] if self.keys else None
        parts = []
        for row in self.rows:
            shown = f"{row.mean[first]:.4f}" if first is not None and row.count else "-"
            parts.append(f"{row.group!r}: n={row.count} {first}={shown}")
        return f"GroupedReport(by={self.field!r}, {'; '.join(parts)})"
