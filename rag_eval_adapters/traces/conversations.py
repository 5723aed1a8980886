"""Statistics that respect conversations: the turns (and steps) of one thread are not independent, so the
intervals of a trace report are a bootstrap over conversations (threads drawn with replacement, each bringing all
its rows), not over rows.

:class:`ConversationReport` is a :class:`~rag_eval_adapters.Report` whose :meth:`~ConversationReport.by` keeps
the means, counts and errors of :meth:`Report.by <rag_eval_adapters.Report.by>` and replaces each interval by the
conversation bootstrap's.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import numpy as np

from ..report import GroupedReport, GroupStats, Report
from ..validation import check_count, check_fraction, check_seed

__all__ = ["ConversationReport", "conversation_interval", "CLUSTER_FIELD"]

CLUSTER_FIELD = "thread_id"
"""The per-row attribute naming a row's conversation."""

_CHUNK = 64  # resamples drawn at once: memory ~ _CHUNK x conversations


def conversation_interval(values: np.ndarray, clusters: list[Hashable], n_bootstrap: int, confidence: float,
                          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval ``(low, high)`` of the mean of each column of ``values`` (rows x metrics),
    resampling conversations: each resample draws as many conversations as there are, with replacement, and its
    mean is the mean of all their rows (NaN cells, unmeasured, left out of each column's mean)."""
    index = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    rows = np.fromiter((index[c] for c in clusters), dtype=np.int64, count=len(clusters))
    m, k = len(index), values.shape[1]
    measured = ~np.isnan(values)
    sums = np.zeros((m, k))
    counts = np.zeros((m, k))
    np.add.at(sums, rows, np.where(measured, values, 0.0))
    np.add.at(counts, rows, measured.astype(np.float64))
    means = np.empty((n_bootstrap, k))
    uniform = np.full(m, 1.0 / m)
    for start in range(0, n_bootstrap, _CHUNK):
        drawn = rng.multinomial(m, uniform, size=min(_CHUNK, n_bootstrap - start)).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            means[start:start + drawn.shape[0]] = (drawn @ sums) / (drawn @ counts)
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():  # a column no conversation measured has no interval: NaN, left out by the caller
        warnings.simplefilter("ignore", RuntimeWarning)
        low = np.nanquantile(means, alpha, axis=0)
        high = np.nanquantile(means, 1.0 - alpha, axis=0)
    return low, high


class ConversationReport(Report):
    """A :class:`~rag_eval_adapters.Report` of turns or steps whose rows carry a ``thread_id`` attribute; its
    :meth:`by` gives intervals by a bootstrap over conversations."""

    def by(self, field: Any, *, confidence: float = 0.95, n_bootstrap: int = 1000,
           seed: int | None = 0) -> GroupedReport:
        """Per-group means, counts and intervals, as :meth:`Report.by <rag_eval_adapters.Report.by>`, each
        interval a percentile bootstrap over the group's conversations (:func:`conversation_interval`; a row
        without a ``thread_id`` is a conversation of its own). Seeded afresh for each group, as ``Report.by``."""
        grouped = super().by(field, confidence=confidence, n_bootstrap=n_bootstrap, seed=seed)
        confidence = check_fraction(confidence, "confidence")
        n_bootstrap = check_count(n_bootstrap, "n_bootstrap")
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.default_rng().integers(2**62))
        group_of = _group_function(field, self.attributes)
        clusters = [self.attributes.get(q, {}).get(CLUSTER_FIELD, ("row", q)) for q in self.query_ids]
        labels = [group_of(q) for q in self.query_ids]
        rows = [self._interval(g, [i for i, label in enumerate(labels) if label == g.group], clusters,
                               confidence, n_bootstrap, seed) for g in grouped.groups]
        overall = self._interval(grouped.overall, list(range(len(self.query_ids))), clusters, confidence,
                                 n_bootstrap, seed)
        return dataclasses.replace(grouped, groups=rows, overall=overall)

    def _interval(self, stats: GroupStats, rows: list[int], clusters: list[Any], confidence: float,
                  n_bootstrap: int, seed: int) -> GroupStats:
        if not rows:
            return stats
        low, high = conversation_interval(self.values[rows], [clusters[i] for i in rows], n_bootstrap,
                                          confidence, np.random.default_rng(seed))
        keep = set(stats.mean)
        return dataclasses.replace(
            stats, ci_low={k: float(v) for k, v in zip(self.keys, low, strict=True) if k in keep},
            ci_high={k: float(v) for k, v in zip(self.keys, high, strict=True) if k in keep})


def _group_function(field: Any, attributes: Mapping[Hashable, Mapping[str, Any]]) -> Callable[[Hashable], Any]:
    if isinstance(field, str):
        return lambda q: attributes.get(q, {}).get(field)
    if isinstance(field, Mapping):
        return lambda q: field.get(q)
    return field  # type: ignore[no-any-return]
