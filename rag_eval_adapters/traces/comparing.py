"""Two (or more) systems' traces compared turn by turn: paired by thread id and turn, unpaired turns counted,
the paired tests and the Holm correction of :func:`~rag_eval_adapters.compare.compare_reports`."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..compare import Comparison, compare_reports
from ..report import Report
from .scoring import TraceEvaluation

__all__ = ["TraceComparison", "compare_traces", "turn_scores"]


def turn_scores(result: TraceEvaluation, step: str = "last") -> Report:
    """One row a turn (id ``"<thread_id>:<turn>"``) with each retrieval metric of one of its scored steps:
    ``"last"`` (the retrieval the answer was given, by default) or ``"first"``; attributes ``thread_id`` and
    ``turn``."""
    if step not in ("first", "last"):
        raise ValueError(f"step must be 'first' or 'last', got {step!r}")
    chosen: dict[str, int] = {}
    steps = result.steps
    for row, qid in enumerate(steps.query_ids):
        key = str(qid).rpartition("#")[0]
        if step == "last" or key not in chosen:
            chosen[key] = row
    keys = list(chosen)
    values = steps.values[[chosen[k] for k in keys]] if keys else np.empty((0, len(steps.keys)))
    attributes: dict[Hashable, dict[str, Any]] = {k: {f: steps.attributes[steps.query_ids[chosen[k]]][f] for f in ("thread_id", "turn")}
                  for k in keys}
    return Report(steps.metrics, keys, values, None, None, steps.relevance_level, attributes)


@dataclass
class TraceComparison:
    """The paired comparison and the turns it could not pair.

    Attributes
    ----------
    comparison : Comparison
        :func:`~rag_eval_adapters.compare.compare_reports` of the systems' :func:`turn_scores` on the turns
        every system scored (Holm by default).
    paired : int
        Turns scored by every system.
    unpaired : dict
        System name -> its scored turns that another system did not score.
    """

    comparison: Comparison
    paired: int
    unpaired: dict[str, int]


def compare_traces(results: Mapping[str, TraceEvaluation], *, step: str = "last", **options: Any) -> TraceComparison:
    """Compare systems' :class:`~.scoring.TraceEvaluation` turn by turn (paired by thread id and turn).

    Parameters
    ----------
    results : mapping
        ``{system name: evaluate_traces(...)}``, at least two, scored with the same metrics.
    step : {"last", "first"}
        Which retrieval step of a turn stands for it (:func:`turn_scores`).
    **options
        Passed to :func:`~rag_eval_adapters.compare.compare_reports` (``correction="holm"`` by default,
        ``n_permutations``, ``seed``...).
    """
    reports = {name: turn_scores(result, step) for name, result in results.items()}
    scored: dict[str, set[Hashable]] = {name: set(r.query_ids) for name, r in reports.items()}
    common = set.intersection(*scored.values()) if scored else set()
    unpaired = {name: len(s - common) for name, s in scored.items()}
    return TraceComparison(compare_reports(reports, **options), len(common), unpaired)
