"""Traces placed in their conversations: :func:`turns` numbers each thread's turns and carries its history;
:func:`answer_records` makes the plain answer records of the turns (for ``evaluate_answers``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .model import Trace, Turn

__all__ = ["turns", "answer_records", "turn_contexts"]


def turns(traces: Iterable[Trace], *, history: bool = True) -> Iterator[Turn]:
    """Each trace as a :class:`~.model.Turn` of its thread.

    A trace without a thread id is a conversation of its own (its trace id as thread id). A turn index the
    tracer recorded is kept; otherwise the turns of a thread are numbered 1, 2, ... in input order (write a
    thread's traces in time order) and ``index_source`` says so. With ``history``, each turn holds the earlier
    turns' question and answer of its thread (the memory of one pair per earlier turn of each open thread).
    """
    counts: dict[str, int] = {}
    said: dict[str, list[tuple[str, str]]] = {}
    for trace in traces:
        thread = trace.thread_id if trace.thread_id is not None else trace.trace_id
        counts[thread] = counts.get(thread, 0) + 1
        index, source = (trace.turn, "recorded") if trace.turn is not None else (counts[thread], "input order")
        earlier = tuple(said.get(thread, ())) if history else ()
        yield Turn(trace, thread, index, earlier, source)
        if history:
            pairs = said.setdefault(thread, [])
            pairs.extend([("user", trace.question or ""), ("agent", trace.answer or "")])


def turn_contexts(turn: Turn) -> list[dict[str, Any]]:
    """The chunks the turn's answer was given: those of its last retrieval step, as ``{"chunk_id", "text"}``
    (a chunk without a recorded id is named by its rank, ``"#1"``...)."""
    steps = turn.trace.retrievals
    if not steps:
        return []
    return [{"chunk_id": c.id if c.id is not None else f"#{rank}", "text": c.text or ""}
            for rank, c in enumerate(steps[-1].chunks, 1)]


def answer_records(items: Iterable[Turn], references: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """One plain answer record a turn: ``query_id`` (the turn key ``"<thread_id>:<turn>"``), ``question``,
    ``prediction`` (the trace's answer), ``contexts`` (:func:`turn_contexts`), ``conversation`` (the earlier
    turns, ``{"speaker", "text"}``), ``thread_id``, ``turn``, and ``reference(s)`` from ``references[key]``
    (a string or a list) when given."""
    for turn in items:
        record: dict[str, Any] = {
            "query_id": turn.key, "question": turn.trace.question, "prediction": turn.trace.answer,
            "contexts": turn_contexts(turn), "thread_id": turn.thread_id, "turn": turn.index,
            "conversation": [{"speaker": role, "text": text} for role, text in turn.history],
        }
        if references is not None and turn.key in references:
            wanted = references[turn.key]
            record["references" if isinstance(wanted, list) else "reference"] = wanted
        yield record
