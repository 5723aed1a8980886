"""Answer metrics per turn: each turn's answer scored against its references (and, for judged metrics, its own
retrieved context and question) through :func:`~rag_eval_adapters.answers.evaluate_answers`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..jsonl import read_jsonl_objects
from .conversations import ConversationReport
from .model import Trace
from .turns import answer_records, turns

__all__ = ["evaluate_trace_answers", "read_trace_references"]


def read_trace_references(path: Any) -> dict[str, Any]:
    """``{"<thread_id>:<turn>": reference or [references]}`` from JSON Lines: each object ``{"thread_id",
    "turn"}`` or ``{"query_id": "<thread_id>:<turn>"}``, with ``reference`` (a string) or ``references``
    (a list). Errors name ``file:line``."""
    out: dict[str, Any] = {}
    for number, obj in read_jsonl_objects(path):
        where = f"{path}:{number}"
        if not isinstance(obj, Mapping):
            raise ValueError(f"{where}: a reference line must be a JSON object")
        if "thread_id" in obj and "turn" in obj:
            key = f"{obj['thread_id']}:{obj['turn']}"
        elif "query_id" in obj:
            key = str(obj["query_id"])
        else:
            raise ValueError(f"{where}: a reference needs \"thread_id\" and \"turn\" (or \"query_id\": "
                             "\"<thread_id>:<turn>\")")
        wanted = obj.get("references", obj.get("reference"))
        if not isinstance(wanted, str | list):
            raise ValueError(f"{where}: give \"reference\" (a string) or \"references\" (a list) for turn {key!r}")
        if key in out:
            raise ValueError(f"{where}: turn {key!r} has references twice")
        out[key] = wanted
    return out


def evaluate_trace_answers(traces: Iterable[Trace], references: Mapping[str, Any] | None,
                           metrics: Any = ("exact_match", "token_f1"), **options: Any) -> ConversationReport:
    """Each turn's answer scored with the answer ``metrics``: a :class:`~.conversations.ConversationReport`
    (rows ``"<thread_id>:<turn>"``, attributes ``thread_id`` and ``turn``, intervals of ``.by`` over
    conversations).

    With ``references``, only the turns that have one are scored (the others are counted in
    ``counts["turns_without_reference"]``); ``None`` scores every turn (judged metrics only). ``options`` go
    to :func:`~rag_eval_adapters.answers.evaluate_answers` (``embedder``, ``judge``, ``progress``...).
    """
    from ..answers import evaluate_answers
    records = list(answer_records(turns(traces), references))
    kept = [r for r in records if references is None or r["query_id"] in references]
    options.setdefault("progress", False)
    report = evaluate_answers(kept, metrics, **options)
    counts = {**report.counts, "turns_without_reference": len(records) - len(kept)}
    return ConversationReport(report.metrics, report.query_ids, report.values, report.errors, counts,
                              report.relevance_level, report.attributes, report.unmeasured, report.info)
