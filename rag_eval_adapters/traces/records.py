"""Traces written by hand (or by this package): one JSON object a trace, the plain form of the model.

``{"trace_id", "thread_id", "turn", "question", "answer", "steps": [...]}`` where each step is
``{"type": "retrieval", "query", "ids", "texts", "scores"}``, ``{"type": "llm", "model", "messages":
[[role, text], ...], "output"}`` or ``{"type": "tool", "name", "arguments", "output"}``; any field may be left
out (it is then listed as missing). :func:`trace_record` writes a trace in this form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import LLMStep, RetrievalStep, RetrievedChunk, Step, ToolCall, Trace
from .spans import Span, build_trace

__all__ = ["trace_from_record", "trace_record"]


def trace_from_record(record: Mapping[str, Any], where: str) -> Trace:
    """The :class:`~.model.Trace` of one plain trace object (``where`` names it in errors)."""
    if "trace_id" not in record:
        raise ValueError(f"{where}: a trace needs a \"trace_id\"")
    trace_id = str(record["trace_id"])
    steps = record.get("steps") or []
    if not isinstance(steps, list):
        raise ValueError(f"{where}: \"steps\" of trace {trace_id!r} must be a list")
    turn = record.get("turn")
    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int)):
        raise ValueError(f"{where}: \"turn\" of trace {trace_id!r} must be an integer, got {turn!r}")
    thread = record.get("thread_id")
    root = Span(trace_id, "root", None, None, "other", 0.0,
                {"question": record.get("question"), "answer": record.get("answer"), "turn": turn,
                 "thread_id": None if thread is None else str(thread), "metadata": record.get("metadata") or {}})
    spans = [root] + [_step_span(trace_id, i, step, f"{where}, step {i + 1}") for i, step in enumerate(steps)]
    return build_trace(trace_id, spans, "trace")


def _step_span(trace_id: str, i: int, step: Any, where: str) -> Span:
    if not isinstance(step, Mapping) or step.get("type") not in ("retrieval", "llm", "tool"):
        raise ValueError(f"{where}: a step must be an object with \"type\" retrieval, llm or tool")
    kind = step["type"]
    data: dict[str, Any] = {}
    if kind == "retrieval":
        ids = step.get("ids")
        texts, scores = step.get("texts"), step.get("scores")
        n = max(len(x) for x in (ids or [], texts or [], scores or []))
        for name, values in (("ids", ids), ("texts", texts), ("scores", scores)):
            if values is not None and (not isinstance(values, list) or len(values) != n):
                raise ValueError(f"{where}: \"{name}\" must be a list as long as the other lists ({n})")
        data["query"] = step.get("query")
        data["chunks"] = [RetrievedChunk(None if ids is None or ids[j] is None else str(ids[j]),
                                         None if texts is None else texts[j],
                                         None if scores is None or scores[j] is None else float(scores[j]))
                          for j in range(n)]
    elif kind == "llm":
        data.update(model=step.get("model"), output=step.get("output"),
                    messages=[(str(r), str(t)) for r, t in step.get("messages") or []])
    else:
        data.update(tool=step.get("name"), arguments=step.get("arguments"), output=step.get("output"))
    return Span(trace_id, f"step{i}", "root", step.get("name"), kind, float(i + 1), data)


def _step_record(step: Step) -> dict[str, Any]:
    if isinstance(step, RetrievalStep):
        return {"type": "retrieval", "query": step.query, "ids": step.ids, "texts": step.texts,
                "scores": step.scores}
    if isinstance(step, LLMStep):
        return {"type": "llm", "model": step.model, "messages": [list(m) for m in step.input_messages],
                "output": step.output}
    assert isinstance(step, ToolCall)
    return {"type": "tool", "name": step.name, "arguments": step.arguments, "output": step.output}


def trace_record(trace: Trace) -> dict[str, Any]:
    """The plain JSON-ready form of ``trace`` (what :func:`trace_from_record` reads), with its ``missing``."""
    return {"trace_id": trace.trace_id, "thread_id": trace.thread_id, "turn": trace.turn,
            "question": trace.question, "answer": trace.answer, "source": trace.source,
            "missing": list(trace.missing), "steps": [_step_record(s) for s in trace.steps]}
