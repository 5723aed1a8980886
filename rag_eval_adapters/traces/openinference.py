"""OpenInference spans (Arize Phoenix; ``openinference-instrumentation-llama-index`` and ``-langchain``) and
OpenTelemetry GenAI spans, read into :class:`~.model.Trace` objects.

Two inputs: OTLP JSON (``{"resourceSpans": [...]}``, what an OTLP file exporter or collector writes, one export a
line) and span objects of the OpenTelemetry SDK (``InMemorySpanExporter().get_finished_spans()``: any object
with ``context``, ``parent``, ``name``, ``start_time`` and ``attributes``). Nothing of OpenTelemetry is
imported: the objects are read by their attributes.

OpenInference attributes read: ``openinference.span.kind`` (``RETRIEVER``, ``LLM``, ``TOOL``; others are
structure), ``input.value``/``output.value``, ``retrieval.documents.N.document.{id,content,score}``,
``llm.model_name``, ``llm.input_messages.N.message.{role,content}``, ``llm.output_messages.N.message.content``,
``tool.name``, ``tool.parameters``, ``session.id`` and ``metadata`` (JSON; ``turn`` read from it). GenAI
spans (``gen_ai.operation.name``) give LLM steps and tool calls and ``gen_ai.conversation.id``; they record no
retrieved documents, so their traces list ``"retrieval"`` as missing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .model import RetrievedChunk, Trace
from .spans import Span, build_trace, grouped_by_trace

__all__ = ["otlp_spans", "sdk_span", "span_from_attributes", "traces_from_spans", "read_otlp_json"]

_KINDS = {"RETRIEVER": "retrieval", "LLM": "llm", "TOOL": "tool"}
_GENAI_KINDS = {"chat": "llm", "text_completion": "llm", "generate_content": "llm", "execute_tool": "tool"}
_INDEXED = re.compile(r"^(retrieval\.documents|llm\.input_messages|llm\.output_messages)\.(\d+)\.(.+)$")
_QUESTION_KEYS = ("question", "query", "query_str", "message", "input", "str_or_query_bundle")
_ANSWER_KEYS = ("answer", "response", "output", "text", "content")


def _otlp_value(value: Mapping[str, Any]) -> Any:
    """The Python value of an OTLP ``AnyValue`` (``{"stringValue": ...}``, ``{"intValue": "3"}``...)."""
    for key, cast in (("stringValue", str), ("intValue", int), ("doubleValue", float), ("boolValue", bool)):
        if key in value:
            return cast(value[key])
    if "arrayValue" in value:
        return [_otlp_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return {kv["key"]: _otlp_value(kv.get("value", {})) for kv in value["kvlistValue"].get("values", [])}
    return None


def otlp_spans(export: Mapping[str, Any], where: str) -> Iterator[tuple[str, Span]]:
    """The spans of one OTLP JSON export, as ``(where, span)`` pairs, in the order written."""
    if not isinstance(export.get("resourceSpans"), list):
        raise ValueError(f"{where}: an OTLP JSON export needs a list \"resourceSpans\"")
    for resource in export["resourceSpans"]:
        for scope in resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []:
            for raw in scope.get("spans", []):
                try:
                    attributes = {a["key"]: _otlp_value(a.get("value", {})) for a in raw.get("attributes", [])}
                    yield where, span_from_attributes(
                        str(raw["traceId"]), str(raw["spanId"]), raw.get("parentSpanId") or None, raw.get("name"),
                        int(raw.get("startTimeUnixNano") or 0) / 1e9, attributes)
                except (KeyError, TypeError, ValueError) as exc:
                    raise ValueError(f"{where}: span {raw.get('spanId')!r} of trace {raw.get('traceId')!r} "
                                     f"cannot be read: {exc}") from None


def sdk_span(span: Any) -> Span:
    """A :class:`~.spans.Span` of an OpenTelemetry SDK span object (``ReadableSpan``)."""
    context = span.context
    parent = getattr(span, "parent", None)
    return span_from_attributes(
        format(context.trace_id, "032x"), format(context.span_id, "016x"),
        format(parent.span_id, "016x") if parent is not None else None, span.name,
        (span.start_time or 0) / 1e9, dict(span.attributes or {}))


def span_from_attributes(trace_id: str, span_id: str, parent_id: str | None, name: str | None, start: float,
                         attributes: Mapping[str, Any]) -> Span:
    """A :class:`~.spans.Span` from one span's flat OpenInference (or GenAI) attributes."""
    indexed, plain = _split_indexed(attributes)
    openinference = plain.get("openinference.span.kind")
    kind = _KINDS.get(str(openinference).upper(), "other") if openinference else \
        _GENAI_KINDS.get(str(plain.get("gen_ai.operation.name")), "other")
    data: dict[str, Any] = {"question": _text_of(plain.get("input.value"), _QUESTION_KEYS),
                            "answer": _text_of(plain.get("output.value"), _ANSWER_KEYS)}
    metadata = _json_object(plain.get("metadata"))
    data["metadata"] = metadata
    data["convention"] = "openinference" if openinference else \
        "genai" if plain.get("gen_ai.operation.name") is not None else None
    thread = plain.get("session.id") or plain.get("gen_ai.conversation.id") or metadata.get("thread_id") \
        or metadata.get("session_id") or metadata.get("conversation_id")
    data["thread_id"] = None if thread is None else str(thread)
    data["turn"] = _turn(metadata.get("turn"))
    if kind == "retrieval":
        data["query"] = data["question"]
        data["chunks"] = _chunks([d for _, d in sorted(indexed.get("retrieval.documents", {}).items())],
                                 plain.get("output.value"))
    elif kind == "llm":
        data["model"] = plain.get("llm.model_name") or plain.get("gen_ai.request.model")
        data["messages"] = [(str(m.get("message.role", "")), str(m.get("message.content", "")))
                            for _, m in sorted(indexed.get("llm.input_messages", {}).items())]
        outputs = [m.get("message.content") for _, m in sorted(indexed.get("llm.output_messages", {}).items())]
        data["output"] = next((str(o) for o in outputs if o is not None), None) or data["answer"]
    elif kind == "tool":
        data["tool"] = plain.get("tool.name") or plain.get("gen_ai.tool.name")
        data["arguments"] = _as_text(plain.get("tool.parameters") or plain.get("gen_ai.tool.call.arguments")
                                     or plain.get("input.value"))
        data["output"] = _as_text(plain.get("output.value") or plain.get("gen_ai.tool.call.result"))
    return Span(trace_id, span_id, parent_id, name, kind, start, data)


def _split_indexed(attributes: Mapping[str, Any]) -> tuple[dict[str, dict[int, dict[str, Any]]], dict[str, Any]]:
    """``({"retrieval.documents": {0: {"document.id": ...}}}, the other attributes)``."""
    indexed: dict[str, dict[int, dict[str, Any]]] = {}
    plain: dict[str, Any] = {}
    for key, value in attributes.items():
        found = _INDEXED.match(key)
        if found:
            indexed.setdefault(found.group(1), {}).setdefault(int(found.group(2)), {})[found.group(3)] = value
        else:
            plain[key] = value
    return indexed, plain


_ID_KEYS = ("id", "doc_id", "chunk_id", "document_id")


def _chunks(documents: list[dict[str, Any]], output: Any) -> list[RetrievedChunk]:
    """The retrieved chunks of a RETRIEVER span. An id or score the span has no ``document.id``/``document.score``
    for is read where the instrumentation recorded it: the document's ``document.metadata`` (``id``, ``doc_id``,
    ``chunk_id``; ``score``, ``relevance_score``), else the ``id`` of the same document in ``output.value``'s
    ``{"documents": [...]}`` (LangChain's instrumentation records ids only there)."""
    recorded = _json_object(output).get("documents") if isinstance(output, str) else None
    output_ids = [d.get("id") if isinstance(d, Mapping) else None for d in recorded] \
        if isinstance(recorded, list) and len(recorded) == len(documents) else [None] * len(documents)
    return [_chunk(d, fallback) for d, fallback in zip(documents, output_ids, strict=True)]


def _chunk(document: Mapping[str, Any], fallback_id: Any = None) -> RetrievedChunk:
    metadata = _json_object(document.get("document.metadata"))
    score = document.get("document.score")
    if score is None:
        score = metadata.get("score", metadata.get("relevance_score"))
    identifier = document.get("document.id")
    if identifier is None:
        identifier = next((metadata[k] for k in _ID_KEYS if metadata.get(k) is not None), fallback_id)
    return RetrievedChunk(id=None if identifier is None else str(identifier), text=document.get("document.content"),
                          score=None if score is None else float(score))


def _json_object(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _turn(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _text_of(value: Any, keys: tuple[str, ...]) -> str | None:
    """A span's input or output as text: a JSON object's first text field among ``keys`` (LlamaIndex and
    LangChain record arguments as JSON), else the text itself."""
    if value is None:
        return None
    parsed = _json_object(value) if isinstance(value, str) and value.lstrip().startswith("{") else value
    if isinstance(parsed, Mapping):
        for key in keys:
            found = parsed.get(key)
            if isinstance(found, str):
                return found
            if isinstance(found, Mapping):
                inner = _text_of(found, keys)
                if inner is not None:
                    return inner
        return None if not isinstance(value, str) else value
    return str(value)


def traces_from_spans(spans: Iterable[Any], source: str = "openinference") -> Iterator[Trace]:
    """The traces of OpenTelemetry SDK span objects (e.g. an in-memory exporter's finished spans), one per trace
    id. The spans of one trace may come in any order but traces must not interleave (an exporter's list is
    fine: it is sorted by trace here when it is a list)."""
    items = list(spans) if isinstance(spans, list) else spans
    read = [sdk_span(s) for s in items] if isinstance(items, list) else map(sdk_span, items)
    if isinstance(read, list):
        order = {t: i for i, t in enumerate(dict.fromkeys(s.trace_id for s in read))}
        read.sort(key=lambda s: order[s.trace_id])
    for trace_id, held in grouped_by_trace((f"span {s.span_id}", s) for s in read):
        yield build_trace(trace_id, held, _convention(held, source))


def read_otlp_json(exports: Iterable[tuple[str, Mapping[str, Any]]]) -> Iterator[Trace]:
    """The traces of OTLP JSON exports given as ``(where, export)`` pairs, grouped by trace as written."""
    def spans() -> Iterator[tuple[str, Span]]:
        for where, export in exports:
            yield from otlp_spans(export, where)
    for trace_id, held in grouped_by_trace(spans()):
        yield build_trace(trace_id, held, _convention(held, "openinference"))


def _convention(spans: list[Span], default: str) -> str:
    """``"genai"`` for a trace of OpenTelemetry GenAI spans only (no OpenInference span kind), else ``default``."""
    found = {s.data.get("convention") for s in spans}
    return "genai" if "genai" in found and "openinference" not in found else default
