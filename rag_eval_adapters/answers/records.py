"""Reading answer records from JSON Lines: predictions and references in one file or two.

Predictions, one line per query::

    {"query_id": "q1", "prediction": "The Eiffel Tower is in Paris."}

References, one line per query (``references`` may be one string or a list; the best match counts)::

    {"query_id": "q1", "reference": "Paris", "query_type": "fact"}
    {"query_id": "q2", "references": ["Moscow", "Moskva"], "query_type": "fact"}

Any other field (``query_type``, ``language``...) is kept for grouping. Query ids are compared as strings
(``1`` and ``"1"`` are the same query). A malformed line raises ``ValueError`` naming the file and the line; files may be gzip-compressed, ``"-"`` is
standard input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..jsonl import read_jsonl_objects
from ..readers import open_source

__all__ = ["read_jsonl_records", "join_answer_records"]

PathLike = str | Path


def read_jsonl_records(path: PathLike, what: str = "records") -> dict[str, dict[str, Any]]:
    """``{query_id: line object}`` of a JSONL file, in file order; ``ValueError`` naming ``file:line``."""
    out: dict[str, dict[str, Any]] = {}
    source = open_source(path)
    for number, obj in read_jsonl_objects(source):
        where = f"{source}:{number}"
        qid = obj.get("query_id")
        if isinstance(qid, bool) or not isinstance(qid, (str, int)):
            raise ValueError(f'{where}: "query_id" must be a string or an integer, got {qid!r}')
        qid = str(qid)
        if qid in out:
            raise ValueError(f"{where}: query_id {qid!r} appears twice in the {what}")
        out[qid] = {**obj, "query_id": qid}
    if not out:
        raise ValueError(f"{source}: no {what} in the file")
    return out


def join_answer_records(
    predictions: PathLike, references: PathLike | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The records to score (in references order) and the number of predictions without a reference.

    With one file, each line holds both ``prediction`` and ``reference(s)``. With two, the lines are joined on
    ``query_id``; a reference without a prediction becomes a record without ``prediction`` (reported as that
    query's error), and fields of both lines are kept (the prediction line's win on a clash).
    """
    preds = read_jsonl_records(predictions, "predictions")
    for qid, obj in preds.items():
        if "prediction" not in obj and references is not None:
            raise ValueError(f'{predictions}: query {qid!r} has no "prediction" field')
    if references is None:
        return list(preds.values()), 0
    refs = read_jsonl_records(references, "references")
    for qid, obj in refs.items():
        if "reference" not in obj and "references" not in obj:
            raise ValueError(f'{references}: query {qid!r} has no "reference" or "references" field')
    records = []
    for qid, ref in refs.items():
        pred = {k: v for k, v in preds.get(qid, {}).items() if k not in ("reference", "references")}
        records.append({**ref, **pred})
    unmatched = sum(1 for q in preds if q not in refs)
    return records, unmatched
