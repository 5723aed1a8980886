"""The questions a chunking cannot score, said up front: on stderr, above every table of every report.

A question whose evidence matches no chunk of a chunking has no relevant chunk there, so it is left out of
that chunking's scores (never scored 0). A question marked unanswerable (``"answerable": false`` in its test-set
line) has no evidence to match and is counted apart. ``report.json`` holds the list as ``left_out``: one entry
a chunking and reason, ``{"chunking", "reason", "query_ids", "questions", "message"}`` (``chunking`` None for
the unanswerable questions, which no chunking scores).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..testsets import TestCase

__all__ = ["LEFT_OUT_REASONS", "left_out", "left_out_lines", "is_unanswerable"]

LEFT_OUT_REASONS = ("no_relevant_chunk", "unanswerable")
SHOWN_IDS = 10
"""Query ids named in a message; the rest are counted (all of them are in ``query_ids``)."""


def is_unanswerable(case: TestCase) -> bool:
    """True when the test case is unanswerable (``"answerable": false``, the ``unanswerable`` question type)."""
    return not case.answerable


def _ids(query_ids: Sequence[str]) -> str:
    shown = ", ".join(query_ids[:SHOWN_IDS])
    more = len(query_ids) - SHOWN_IDS
    return shown + (f" and {more} more (all in report.json)" if more > 0 else "")


def _entry(chunking: str | None, reason: str, query_ids: list[str], total: int) -> dict[str, Any]:
    n = len(query_ids)
    if reason == "unanswerable":
        message = (f"{n} of {total} questions {'is' if n == 1 else 'are'} marked unanswerable (answerable: false) "
                   f"and {'is' if n == 1 else 'are'} left out of the retrieval scores: {_ids(query_ids)}")
    else:
        message = (f"{n} of {total} questions {'has' if n == 1 else 'have'} no relevant chunk in {chunking} and "
                   f"{'is' if n == 1 else 'are'} left out: {_ids(query_ids)}")
    return {"chunking": chunking, "reason": reason, "query_ids": query_ids, "questions": total, "message": message}


def left_out(cases: Sequence[TestCase], unjudged: Mapping[str, Mapping[str, str]]) -> list[dict[str, Any]]:
    """The questions left out of the scores: per chunking, those without a relevant chunk there; then, once,
    those marked unanswerable (left out by any chunking), each list in test-set order."""
    order = {c.query_id: i for i, c in enumerate(cases)}
    apart = {c.query_id for c in cases if is_unanswerable(c)}
    out = []
    for chunking, reasons in unjudged.items():
        missing = sorted((q for q in reasons if q not in apart), key=order.__getitem__)
        if missing:
            out.append(_entry(chunking, "no_relevant_chunk", missing, len(cases)))
    unanswerable = sorted({q for reasons in unjudged.values() for q in reasons if q in apart}, key=order.__getitem__)
    if unanswerable:
        out.append(_entry(None, "unanswerable", unanswerable, len(cases)))
    return out


def left_out_lines(data: Mapping[str, Any]) -> list[str]:
    """The messages of ``report.json``'s ``left_out`` (``[]`` when every question is scored)."""
    return [entry["message"] for entry in data.get("left_out") or []]
