"""Readers for TREC qrels and run files.

* qrels: ``query_id iteration doc_id grade`` per line (the iteration column is ignored);
* run:   ``query_id Q0 doc_id rank score tag`` per line (like trec_eval, the rank column is ignored:
  documents are ranked by score, ties broken by doc id descending).

Blank lines are skipped. A malformed line raises ``ValueError`` naming the file and the line number.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Union

__all__ = ["read_trec_qrels", "read_trec_run", "TrecFormatError"]

PathLike = Union[str, "os.PathLike[str]"]


class TrecFormatError(ValueError):
    """A line of a TREC file that cannot be read."""


def _lines(path: PathLike):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if fields:
                yield number, fields


def _grade(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text) from None
        return value


def read_trec_qrels(path: PathLike) -> dict[str, dict[str, int | float]]:
    """``{query_id: {doc_id: grade}}`` from a TREC qrels file (``qid iter docno grade``)."""
    qrels: dict[str, dict[str, int | float]] = {}
    for number, fields in _lines(path):
        if len(fields) != 4:
            raise TrecFormatError(
                f"{path}:{number}: a qrels line has 4 fields 'query_id iteration doc_id grade', "
                f"found {len(fields)}: {' '.join(fields)!r}"
            )
        qid, _, doc, grade = fields
        try:
            value = _grade(grade)
        except ValueError:
            raise TrecFormatError(f"{path}:{number}: the grade {grade!r} is not a number") from None
        judged = qrels.setdefault(qid, {})
        if doc in judged:
            raise TrecFormatError(f"{path}:{number}: query {qid!r} judges document {doc!r} twice")
        judged[doc] = value
    return qrels


def read_trec_run(path: PathLike) -> dict[str, dict[str, float]]:
    """``{query_id: {doc_id: score}}`` from a TREC run file (``qid Q0 docno rank score tag``)."""
    run: dict[str, dict[str, float]] = {}
    for number, fields in _lines(path):
        if len(fields) != 6:
            raise TrecFormatError(
                f"{path}:{number}: a run line has 6 fields 'query_id Q0 doc_id rank score tag', "
                f"found {len(fields)}: {' '.join(fields)!r}"
            )
        qid, _, doc, _, score, _ = fields
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            raise TrecFormatError(f"{path}:{number}: the score {score!r} is not a number")
        ranked = run.setdefault(qid, {})
        if doc in ranked:
            raise TrecFormatError(f"{path}:{number}: query {qid!r} retrieves document {doc!r} twice")
        ranked[doc] = value
    return run
