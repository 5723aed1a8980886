"""How far the benchmark's means can be trusted: each mean's interval (``ci``: t, normal or bootstrap, named) and
the means corrected with a few human labels (PPI++, :func:`rag_eval_adapters.ppi.corrected_means`).

Human labels (the file :func:`~rag_eval_adapters.human_labels.read_human_labels` reads) give a query's human value
of a retrieval metric (``ndcg@10``...) or an answer metric (``token_f1``, ``faithfulness``...); a line naming a
``run`` applies to that configuration (``s256o32/bm25``), a line without one to every configuration. A label for a
configuration, query or metric the benchmark does not have is an error naming the line.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["LabelSet", "load_labels", "check_labels", "mean_intervals", "corrected_config_means", "uncorrected"]


class LabelSet:
    """Human labels ``{run or None: {query_id: {metric: value}}}`` and where each line came from."""

    def __init__(self, labels: Mapping[str | None, Mapping[Hashable, Mapping[str, float]]],
                 lines: Mapping[tuple[str | None, Hashable], int] | None = None, source: str = "") -> None:
        self.labels = {run: {q: dict(v) for q, v in rows.items()} for run, rows in labels.items()}
        self.lines = dict(lines or {})
        self.source = source

    @property
    def count(self) -> int:
        """Labelled (run, query) lines."""
        return sum(len(rows) for rows in self.labels.values())

    def where(self, run: str | None, query_id: Hashable) -> str:
        """``"labels.jsonl:3"``, or the label's run and query when it came from no file."""
        number = self.lines.get((run, query_id))
        if number is not None:
            return f"{self.source}:{number}"
        return f"the human label of query {query_id!r}" + (f" (run {run!r})" if run is not None else "")

    def for_run(self, run: str) -> dict[Hashable, dict[str, tuple[float, str | None]]]:
        """``{query_id: {metric: (value, run of the line)}}`` for one configuration (its own lines win)."""
        out: dict[Hashable, dict[str, tuple[float, str | None]]] = {}
        for source in (None, run):
            for q, values in self.labels.get(source, {}).items():
                out.setdefault(q, {}).update({m: (float(v), source) for m, v in values.items()})
        return out


def load_labels(human_labels: Any) -> LabelSet:
    """A :class:`LabelSet` from a JSONL path or a ``{run or None: {query_id: {metric: value}}}`` mapping."""
    from ..human_labels import read_human_labels

    if isinstance(human_labels, LabelSet):
        return human_labels
    if isinstance(human_labels, (str, Path)):
        lines: dict = {}
        return LabelSet(read_human_labels(human_labels, lines=lines), lines, str(human_labels))
    if not isinstance(human_labels, Mapping):
        raise TypeError("human_labels must be a JSONL path or {run or None: {query_id: {metric: value}}}, got "
                        f"{type(human_labels).__name__}")
    for run, rows in human_labels.items():
        if not isinstance(rows, Mapping) or not all(isinstance(v, Mapping) for v in rows.values()):
            raise TypeError(f"human_labels[{run!r}] must be {{query_id: {{metric: value}}}}")
    return LabelSet(human_labels)


def check_labels(labels: LabelSet, configurations: Sequence[str], query_ids: Sequence[Hashable],
                 retrieval_metrics: Sequence[str], answer_metrics: Sequence[str]) -> None:
    """Refuse (``ValueError`` naming the line) a label of an unknown configuration, query or metric."""
    queries = set(query_ids)
    known = list(retrieval_metrics) + list(answer_metrics)
    for run, rows in labels.labels.items():
        for qid, values in rows.items():
            where = labels.where(run, qid)
            if run is not None and run not in configurations:
                raise ValueError(f"{where}: run {run!r} is not a configuration of the benchmark "
                                 f"({', '.join(configurations)})")
            if qid not in queries:
                raise ValueError(f"{where}: query {qid!r} is not a question of the test set (or not in the "
                                 "evaluation mode)")
            for metric in values:
                if metric not in known:
                    answers = f"; answers: {', '.join(answer_metrics)}" if answer_metrics else "; no answers scored"
                    raise ValueError(f"{where}: {metric!r} is not a metric of the benchmark (retrieval: "
                                     f"{', '.join(retrieval_metrics)}{answers})")


def _intervals_of(report: Any, method: str, confidence: float, seed: int) -> dict[str, Any]:
    from ..intervals import report_intervals

    types: dict[Any, list[Hashable]] = {}
    for q in report.query_ids:
        types.setdefault(report.attributes.get(q, {}).get("query_type"), []).append(q)
    return {"all": report_intervals(report, method=method, confidence=confidence, seed=seed),
            "by_query_type": {str(t): report_intervals(report, method=method, confidence=confidence, seed=seed,
                                                       query_ids=ids)
                              for t, ids in sorted(types.items(), key=lambda kv: str(kv[0])) if t is not None}}


def mean_intervals(result: Any, method: str, confidence: float, seed: int = 0) -> dict[str, Any]:
    """Every mean of a configuration with its interval: ``{"retrieval": {"all": {metric: MeanInterval},
    "by_query_type": {type: {...}}}, "answers": {...}}`` (``answers`` when answers were scored)."""
    out = {"retrieval": _intervals_of(result.report, method, confidence, seed)}
    if result.answers is not None:
        out["answers"] = _intervals_of(result.answers, method, confidence, seed)
    return out


def uncorrected(result: Any, labels: LabelSet) -> dict[str, str]:
    """``{metric: why}`` for each metric labelled for this configuration that :func:`corrected_config_means` could
    not correct (fewer than 2 labelled queries, or no scored query without a label)."""
    counts: dict[str, int] = {}
    for values in labels.for_run(result.name).values():
        for metric in values:
            counts[metric] = counts.get(metric, 0) + 1
    return {m: (f"{n} human label{'s' if n != 1 else ''}; PPI++ needs at least 2 and a scored query without one")
            for m, n in counts.items() if m not in result.human}


def corrected_config_means(result: Any, labels: LabelSet, *, confidence: float = 0.95) -> dict[str, Any]:
    """The PPI++ mean of each labelled metric of one configuration: ``{metric: PPIInterval}``.

    Retrieval metrics are corrected over the configuration's scored queries, answer metrics over its answered
    ones; a label of a query the configuration did not score for that metric (an unanswered question) is an
    error naming the line. A metric needs labels on at least 2 queries and one scored query without a label
    (:func:`uncorrected` says which were not corrected).
    """
    from ..ppi import corrected_means

    mine = labels.for_run(result.name)
    out: dict[str, Any] = {}
    for report, what in ((result.report, "scored"), (result.answers, "answered")):
        keys = set(report.keys) if report is not None else set()
        human = {q: {m: v for m, (v, _) in values.items() if m in keys} for q, values in mine.items()}
        human = {q: v for q, v in human.items() if v}
        if not human:
            continue
        scored = set(report.query_ids)
        for q, values in human.items():
            if q not in scored:
                run = next(src for m, (_, src) in mine[q].items() if m in values)
                raise ValueError(f"{labels.where(run, q)}: query {q!r} is not {what} in configuration "
                                 f"{result.name!r}, so its {next(iter(values))} cannot be corrected")
        out.update(corrected_means(report, human, confidence=confidence))
    return out
