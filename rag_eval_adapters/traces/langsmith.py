"""LangSmith runs (the SDK's ``RunTree`` objects, ``Run`` objects of ``Client.list_runs``, and their exported
JSON) read into :class:`~.model.Trace` objects.

A run has ``id``, ``trace_id``, ``parent_run_id``, ``name``, ``run_type`` (``"retriever"``, ``"llm"``,
``"tool"``; others are structure), ``inputs``, ``outputs``, ``start_time`` and ``extra.metadata``; a tree nests
its children in ``child_runs``. The thread is LangSmith's: metadata ``thread_id``, ``session_id`` or
``conversation_id``; the turn, metadata ``turn``. A retriever run's documents are
``outputs["documents"]`` (``page_content``, ``metadata``, ``id``): the id is the document's ``id`` or its
metadata's ``id``/``doc_id``/``chunk_id``, the score its metadata's ``score``/``relevance_score``. Nothing of
``langsmith`` is imported: objects are read by their attributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from .model import RetrievedChunk, Trace
from .spans import Span, build_trace, grouped_by_trace

__all__ = ["run_spans", "traces_from_runs", "read_runs"]

_KINDS = {"retriever": "retrieval", "llm": "llm", "chat_model": "llm", "tool": "tool"}
_QUESTION_KEYS = ("question", "query", "input", "message", "messages")
_ANSWER_KEYS = ("answer", "output", "response", "text", "result", "content", "generations")
_ID_KEYS = ("id", "doc_id", "chunk_id", "document_id")
_SCORE_KEYS = ("score", "relevance_score", "similarity")
_THREAD_KEYS = ("thread_id", "session_id", "conversation_id")


def _get(run: Any, name: str) -> Any:
    return run.get(name) if isinstance(run, Mapping) else getattr(run, name, None)


def _seconds(value: Any) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    return float(value or 0.0)


def run_spans(run: Any, where: str) -> Iterator[tuple[str, Span]]:
    """The run and every run nested in its ``child_runs`` as ``(where, span)`` pairs."""
    stack: list[tuple[Any, str | None, str | None]] = [(run, None, None)]
    while stack:
        current, trace_id, parent_id = stack.pop()
        try:
            span = _span(current, trace_id, parent_id)
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"{where}: run {_get(current, 'id')!r} cannot be read: {exc}") from None
        yield where, span
        children = list(_get(current, "child_runs") or [])
        stack.extend((child, span.trace_id, span.span_id) for child in reversed(children))


def _span(run: Any, outer_trace: str | None = None, outer_parent: str | None = None) -> Span:
    """A run as a span; a nested run without its own ``trace_id`` or ``parent_run_id`` takes its tree's."""
    run_id = str(_get(run, "id"))
    trace_id = _get(run, "trace_id") or outer_trace
    parent = _get(run, "parent_run_id") or outer_parent
    run_type = str(_get(run, "run_type") or "")
    inputs = _get(run, "inputs") or {}
    outputs = _get(run, "outputs") or {}
    extra = _get(run, "extra") or {}
    metadata = dict(extra.get("metadata") or {}) if isinstance(extra, Mapping) else {}
    kind = _KINDS.get(run_type, "other")
    thread = next((metadata[k] for k in _THREAD_KEYS if metadata.get(k) is not None), None)
    turn = metadata.get("turn")
    data: dict[str, Any] = {
        "question": _text(inputs, _QUESTION_KEYS), "answer": _text(outputs, _ANSWER_KEYS), "metadata": metadata,
        "thread_id": None if thread is None else str(thread),
        "turn": int(turn) if isinstance(turn, int | str) and str(turn).lstrip("-").isdigit() else None,
    }
    if kind == "retrieval":
        data["query"] = data["question"]
        documents = outputs.get("documents") if isinstance(outputs, Mapping) else None
        data["chunks"] = [_chunk(d) for d in documents or []]
    elif kind == "llm":
        data["model"] = metadata.get("ls_model_name") or _model(extra)
        data["messages"] = _messages(inputs)
        data["output"] = data["answer"]
    elif kind == "tool":
        data["tool"] = _get(run, "name")
        data["arguments"] = _text(inputs, ("input", "query", "tool_input")) or (str(inputs) if inputs else None)
        data["output"] = data["answer"]
    return Span(str(trace_id if trace_id is not None else run_id), run_id,
                None if parent is None else str(parent), _get(run, "name"), kind,
                _seconds(_get(run, "start_time")), data)


def _model(extra: Any) -> str | None:
    params = extra.get("invocation_params") if isinstance(extra, Mapping) else None
    if isinstance(params, Mapping):
        found = params.get("model") or params.get("model_name")
        return None if found is None else str(found)
    return None


def _chunk(document: Any) -> RetrievedChunk:
    if not isinstance(document, Mapping):  # a LangChain Document object
        document = {"page_content": getattr(document, "page_content", None), "id": getattr(document, "id", None),
                    "metadata": getattr(document, "metadata", {})}
    metadata = document.get("metadata") or {}
    identifier = document.get("id") or next((metadata[k] for k in _ID_KEYS if metadata.get(k) is not None), None)
    score = next((metadata[k] for k in _SCORE_KEYS if metadata.get(k) is not None), None)
    return RetrievedChunk(id=None if identifier is None else str(identifier), text=document.get("page_content"),
                          score=None if score is None else float(score))


def _message_text(message: Any) -> tuple[str, str]:
    if isinstance(message, Mapping):
        kwargs = message.get("kwargs")
        inner: Mapping[str, Any] = kwargs if isinstance(kwargs, Mapping) else message
        role = inner.get("role") or inner.get("type") or str(message.get("id", [""])[-1])
        return str(role), str(inner.get("content", ""))
    return str(getattr(message, "type", "")), str(getattr(message, "content", message))


def _messages(inputs: Any) -> list[tuple[str, str]]:
    if not isinstance(inputs, Mapping):
        return []
    messages = inputs.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[0], list):
        messages = messages[0]  # a chat model's batch of one
    if isinstance(messages, list):
        return [_message_text(m) for m in messages]
    prompts = inputs.get("prompts")
    return [("user", str(p)) for p in prompts] if isinstance(prompts, list) else []


def _text(value: Any, keys: tuple[str, ...]) -> str | None:
    """The text of run inputs or outputs: the first text among ``keys`` (a message list: its last user
    message; LLM generations: the first text), else the only text value."""
    if isinstance(value, str):
        return value
    if not isinstance(value, Mapping):
        return None
    for key in keys:
        found = value.get(key)
        if isinstance(found, str):
            return found
        if key == "messages" and isinstance(found, list) and found:
            users = [text for role, text in _messages(value) if role in ("user", "human", "HumanMessage")]
            return users[-1] if users else None
        if key == "generations" and isinstance(found, list) and found:
            first = found[0][0] if isinstance(found[0], list) and found[0] else found[0]
            return first.get("text") if isinstance(first, Mapping) else None
        if isinstance(found, Mapping):
            inner = _text(found, keys)
            if inner is not None:
                return inner
    texts = [v for v in value.values() if isinstance(v, str)]
    return texts[0] if len(texts) == 1 else None


def traces_from_runs(runs: Iterable[Any], *, where: str = "run") -> Iterator[Trace]:
    """The traces of LangSmith runs: root run trees (children in ``child_runs``) or flat runs (each with its
    ``trace_id``), grouped by trace as given."""
    return read_runs((f"{where} {i + 1}", run) for i, run in enumerate(runs))


def read_runs(runs: Iterable[tuple[str, Any]]) -> Iterator[Trace]:
    """The traces of ``(where, run)`` pairs (``where`` names the run in errors), grouped by trace as given."""
    def spans() -> Iterator[tuple[str, Span]]:
        for where, run in runs:
            yield from run_spans(run, where)
    for trace_id, held in grouped_by_trace(spans()):
        yield build_trace(trace_id, held, "langsmith")
