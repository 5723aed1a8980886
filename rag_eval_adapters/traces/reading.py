"""Reading a traces file: JSON Lines of OTLP exports, LangSmith runs, or plain traces, streamed trace by trace."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import chain
from typing import Any

from ..jsonl import read_jsonl_objects
from .langsmith import read_runs
from .model import Trace
from .openinference import read_otlp_json
from .records import trace_from_record

__all__ = ["read_traces", "trace_format"]


def trace_format(record: Mapping[str, Any]) -> str:
    """``"otlp"`` (``resourceSpans``), ``"langsmith"`` (``run_type``) or ``"trace"`` (``trace_id`` and
    ``steps``, the plain form) for one line's object.

    Raises
    ------
    ValueError
        When the object is none of them.
    """
    if "resourceSpans" in record:
        return "otlp"
    if "run_type" in record:
        return "langsmith"
    if "trace_id" in record and ("steps" in record or "question" in record):
        return "trace"
    raise ValueError("not a trace: expected an OTLP JSON export (\"resourceSpans\"), a LangSmith run "
                     "(\"run_type\") or a trace (\"trace_id\" and \"steps\")")


def read_traces(path: Any) -> Iterator[Trace]:
    """The traces of a JSON Lines file, one at a time (memory holds one trace).

    The format is the first line's (:func:`trace_format`) and every line must have it. OTLP exports and
    LangSmith runs must be grouped by trace: a trace whose spans (runs) come again after another trace's is
    an error naming the line. Errors name ``file:line``.
    """
    lines = read_jsonl_objects(path)
    first = next(lines, None)
    if first is None:
        return
    where_of = f"{path}:{{}}".format
    number, obj = first
    try:
        kind = trace_format(obj) if isinstance(obj, Mapping) else ""
    except ValueError as exc:
        raise ValueError(f"{where_of(number)}: {exc}") from None
    objects = ((where_of(n), _checked(o, kind, where_of(n))) for n, o in chain([first], lines))
    if kind == "otlp":
        yield from read_otlp_json(objects)
    elif kind == "langsmith":
        yield from read_runs(objects)
    else:
        for where, record in objects:
            yield trace_from_record(record, where)


def _checked(obj: Any, kind: str, where: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise ValueError(f"{where}: a line must be a JSON object")
    try:
        found = trace_format(obj)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    if found != kind:
        raise ValueError(f"{where}: a {found} record in a file of {kind} records")
    return obj
