"""One recorded span, whatever its tracer, and the trace built from the spans of one run.

Every reader (:mod:`.openinference`, :mod:`.langsmith`) turns its records into :class:`Span` objects; the one
:func:`build_trace` orders them, keeps the outermost span of each nested kind (LlamaIndex's ``retrieve`` inside
``retrieve``, a chat call inside a predict call) and makes the :class:`~.model.Trace`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .model import LLMStep, RetrievalStep, RetrievedChunk, Step, ToolCall, Trace

__all__ = ["Span", "build_trace", "grouped_by_trace"]


@dataclass
class Span:
    """A tracer's record of one step, read into plain fields.

    ``kind`` is ``"retrieval"``, ``"llm"``, ``"tool"`` or ``"other"``; ``data`` holds what that kind needs:
    ``query`` and ``chunks`` (a list of :class:`~.model.RetrievedChunk`), ``model``, ``messages`` and
    ``output``, or ``arguments`` and ``output``. A root span's ``data`` holds ``question``, ``answer``,
    ``thread_id`` and ``turn`` when recorded.
    """

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str | None
    kind: str
    start: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)


def grouped_by_trace(spans: Iterable[tuple[str, Span]]) -> Iterator[tuple[str, list[Span]]]:
    """``(trace id, spans)`` for each run of consecutive spans of one trace, from ``(where, span)`` pairs.

    Raises
    ------
    ValueError
        When a trace's spans come again after another trace's (naming where): the input must be grouped by
        trace, so only one trace is held in memory at a time.
    """
    done: set[str] = set()
    current: str | None = None
    held: list[Span] = []
    for where, span in spans:
        if span.trace_id != current:
            if current is not None:
                yield current, held
                done.add(current)
            if span.trace_id in done:
                raise ValueError(f"{where}: trace {span.trace_id!r} appears again after other traces; the input "
                                 "must be grouped by trace (sort it by trace id, or write each trace in one piece)")
            current, held = span.trace_id, []
        held.append(span)
    if current is not None:
        yield current, held


def build_trace(trace_id: str, spans: list[Span], source: str) -> Trace:
    """The :class:`~.model.Trace` of one run's spans.

    The root is the span without a parent among them (the earliest such); the steps are the retrieval, LLM
    and tool spans by start time, a span nested in a span of its own kind left out (the outer one holds it).
    What the root does not record (question, answer, thread id, turn) is listed in ``missing``.
    """
    by_id = {s.span_id: s for s in spans}
    roots = sorted((s for s in spans if s.parent_id not in by_id), key=lambda s: s.start)
    root = roots[0]
    kept = sorted((s for s in spans if s.kind != "other" and not _inside_own_kind(s, by_id)), key=lambda s: s.start)
    steps: list[Step] = []
    n_retrievals = 0
    for position, span in enumerate(kept):
        if span.kind == "retrieval":
            steps.append(_retrieval(span, position, n_retrievals))
            n_retrievals += 1
        elif span.kind == "llm":
            steps.append(_llm(span, position))
        else:
            steps.append(_tool(span, position))
    data = root.data
    missing = [k for k in ("question", "answer", "thread_id", "turn") if data.get(k) is None]
    if not n_retrievals:
        missing.append("retrieval")
    return Trace(trace_id=trace_id, question=data.get("question"), answer=data.get("answer"), steps=tuple(steps),
                 thread_id=data.get("thread_id"), turn=data.get("turn"), source=source, missing=tuple(missing),
                 start_time=root.start or None, metadata=dict(data.get("metadata") or {}))


def _inside_own_kind(span: Span, by_id: dict[str, Span]) -> bool:
    """Whether an ancestor of ``span`` is of its kind (a tool inside a tool, a retriever inside a retriever)."""
    seen = {span.span_id}
    parent = by_id.get(span.parent_id) if span.parent_id is not None else None
    while parent is not None and parent.span_id not in seen:
        if parent.kind == span.kind:
            return True
        seen.add(parent.span_id)
        parent = by_id.get(parent.parent_id) if parent.parent_id is not None else None
    return False


def _retrieval(span: Span, position: int, index: int) -> RetrievalStep:
    chunks: tuple[RetrievedChunk, ...] = tuple(span.data.get("chunks") or ())
    missing = []
    if span.data.get("query") is None:
        missing.append("query")
    for what, attribute in (("ids", "id"), ("texts", "text"), ("scores", "score")):
        if any(getattr(c, attribute) is None for c in chunks):
            missing.append(what)
    return RetrievalStep(query=span.data.get("query"), chunks=chunks, position=position, index=index,
                         name=span.name, span_id=span.span_id, missing=tuple(missing))


def _llm(span: Span, position: int) -> LLMStep:
    data = span.data
    missing = [k for k, v in (("model", data.get("model")), ("output", data.get("output"))) if v is None]
    if not data.get("messages"):
        missing.append("input_messages")
    return LLMStep(model=data.get("model"), input_messages=tuple(data.get("messages") or ()),
                   output=data.get("output"), position=position, name=span.name, span_id=span.span_id,
                   missing=tuple(missing))


def _tool(span: Span, position: int) -> ToolCall:
    data = span.data
    missing = [k for k in ("arguments", "output") if data.get(k) is None]
    return ToolCall(name=data.get("tool") or span.name, arguments=data.get("arguments"), output=data.get("output"),
                    position=position, span_id=span.span_id, missing=tuple(missing))
