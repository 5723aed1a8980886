"""Judgments for the retrieval steps of traces: by turn (``<thread_id>:<turn>``) or by a step's query text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..jsonl import read_jsonl_objects
from .model import RetrievalStep, Turn

__all__ = ["TraceQrels", "trace_qrels", "read_trace_qrels", "judging_inputs"]


@dataclass
class TraceQrels:
    """``by_turn[(thread_id, turn)]`` and ``by_query[query text]``, each ``{doc_id: grade}``.

    A step is judged by its turn's judgments when there are any, else by those of its query text.
    """

    by_turn: dict[tuple[str, int], dict[str, float]] = field(default_factory=dict)
    by_query: dict[str, dict[str, float]] = field(default_factory=dict)

    def for_step(self, turn: Turn, step: RetrievalStep) -> dict[str, float] | None:
        """The judgments of ``step`` of ``turn``, or ``None`` when it has none."""
        found = self.by_turn.get((turn.thread_id, turn.index))
        if found is None and step.query is not None:
            found = self.by_query.get(step.query)
        return found

    def for_turn(self, turn: Turn) -> dict[str, float] | None:
        """The judgments of the turn (its key's, else the union of its steps' query-text judgments)."""
        found = self.by_turn.get((turn.thread_id, turn.index))
        if found is not None:
            return found
        merged: dict[str, float] = {}
        for step in turn.trace.retrievals:
            for doc, grade in (self.by_query.get(step.query or "") or {}).items():
                merged[doc] = max(grade, merged.get(doc, grade))
        return merged or None


def trace_qrels(qrels: Mapping[Any, Mapping[Any, float]] | TraceQrels) -> TraceQrels:
    """Judgments ``{query_id: {doc_id: grade}}`` read for traces: an id ending in ``:<integer>`` names a turn
    (split at the last colon: ``"chat:7:2"`` is turn 2 of thread ``chat:7``), a tuple ``(thread_id, turn)`` too;
    any other id is a step's query text."""
    if isinstance(qrels, TraceQrels):
        return qrels
    out = TraceQrels()
    for key, grades in qrels.items():
        judged = {str(d): float(g) for d, g in grades.items()}
        if isinstance(key, tuple) and len(key) == 2:
            out.by_turn[(str(key[0]), int(key[1]))] = judged
            continue
        thread, colon, turn = str(key).rpartition(":")
        if colon and turn.strip().lstrip("-").isdigit():
            out.by_turn[(thread, int(turn))] = judged
        else:
            out.by_query[str(key)] = judged
    return out


def read_trace_qrels(path: Any) -> TraceQrels:
    """Judgments for traces from a file: JSON Lines whose objects hold ``thread_id`` and ``turn`` (or ``query``,
    a step's query text) with ``doc_id`` and ``relevance`` (one judgment a line) or ``relevance`` as
    ``{doc_id: grade}``; any other file is read by :func:`~rag_eval_adapters.read_qrels` (TREC, JSONL, CSV...)
    and its query ids by :func:`trace_qrels`. Errors name ``file:line``."""
    from ..readers import read_qrels
    name = str(path)
    if not name.endswith((".jsonl", ".jsonl.gz")):
        return trace_qrels(read_qrels(path))
    out = TraceQrels()
    for number, obj in read_jsonl_objects(path):
        where = f"{path}:{number}"
        if not isinstance(obj, Mapping) or not ({"thread_id", "turn"} <= set(obj) or "query" in obj):
            if number == 1 and isinstance(obj, Mapping) and "query_id" in obj:
                return trace_qrels(read_qrels(path))
            raise ValueError(f"{where}: a judgment needs \"thread_id\" and \"turn\" (or \"query\")")
        target = _target(obj, where)
        into = out.by_turn.setdefault(target, {}) if isinstance(target, tuple) else out.by_query.setdefault(target, {})
        into.update(_grades(obj, where))
    return out


def _target(obj: Mapping[str, Any], where: str) -> tuple[str, int] | str:
    if "thread_id" not in obj:
        return str(obj["query"])
    turn = obj["turn"]
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ValueError(f"{where}: \"turn\" must be an integer, got {turn!r}")
    return str(obj["thread_id"]), turn


def _grades(obj: Mapping[str, Any], where: str) -> dict[str, float]:
    relevance = obj.get("relevance", 1)
    if isinstance(relevance, Mapping):
        pairs = list(relevance.items())
    elif "doc_id" in obj:
        pairs = [(obj["doc_id"], relevance)]
    else:
        raise ValueError(f"{where}: give \"doc_id\" and \"relevance\", or \"relevance\" as {{doc_id: grade}}")
    out = {}
    for doc, grade in pairs:
        if isinstance(grade, bool) or not isinstance(grade, int | float) or grade != grade:
            raise ValueError(f"{where}: the grade of {doc!r} must be a number, got {grade!r}")
        out[str(doc)] = float(grade)
    return out


def judging_inputs(traces: Any) -> tuple[dict[str, dict[str, float]], dict[str, str], dict[str, str]]:
    """``(run, queries, documents)`` of traces' retrieval steps for :func:`~rag_eval_adapters.judges.fill_judgments`:
    the run keyed by each step's query text (``{query: {doc_id: score}}``, score ``1/rank`` in the order
    returned; a query retrieved twice keeps its first ranking), ``queries`` each text to itself and
    ``documents`` each recorded chunk id to its recorded text. The judged qrels it returns are keyed by query text,
    which :func:`trace_qrels` reads as such. Steps without a query, and chunks without an id or text, are left out.
    """
    run: dict[str, dict[str, float]] = {}
    documents: dict[str, str] = {}
    for trace in traces:
        for step in trace.retrievals:
            if step.query is None or step.query in run:
                continue
            kept = [c for c in step.chunks if c.id is not None]
            run[step.query] = {str(c.id): 1.0 / rank for rank, c in enumerate(kept, 1)}
            documents.update({str(c.id): c.text for c in kept if c.text is not None})
    return run, {q: q for q in run}, documents
