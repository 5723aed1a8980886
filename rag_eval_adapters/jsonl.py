"""Readers for qrels and runs written as JSON Lines (one JSON object per line).

Qrels lines, one per query, in either form::

    {"query_id": "q1", "expected_ids": ["d3", "d7"]}          # binary: every id has grade 1
    {"query_id": "q1", "relevance": {"d3": 2, "d7": 1, "d9": 0}}  # graded judgments

Run lines, one per query, in any of these forms::

    {"query_id": "q1", "retrieved_ids": ["d7", "d2", "d3"]}                   # already ranked
    {"query_id": "q1", "retrieved_ids": ["d7", "d2"], "scores": [3.1, 2.4]}   # ranked by score
    {"query_id": "q1", "scores": {"d7": 3.1, "d2": 2.4}}                      # ranked by score

A run with scores is ranked as trec_eval ranks it: score descending, ties broken by document id
descending.  Blank lines are skipped.  Any malformed line (bad JSON, a bad byte, nesting too deep, a
number out of range) raises :class:`ValueError` naming the file and the line number, and saying what
the line should look like.  Files may be gzip-compressed; ``"-"`` reads standard input.  Grades are
integers within the 64-bit range; scores are finite numbers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._numbers import check_grade, check_score, shown
from ._sources import Source, open_source, text_lines

__all__ = ["read_jsonl_qrels", "read_jsonl_run", "read_jsonl_objects", "looks_like_jsonl"]

PathLike = str | Path | Source

_QRELS_HINT = (
    'expected {"query_id": ..., "expected_ids": [...]} or {"query_id": ..., "relevance": {id: grade}}'
)
_RUN_HINT = (
    'expected {"query_id": ..., "retrieved_ids": [...]} (optionally with "scores": [...] of the same '
    'length) or {"query_id": ..., "scores": {id: score}}'
)


def looks_like_jsonl(path: PathLike) -> bool:
    """Return True when ``path`` holds JSON Lines rather than whitespace-separated TREC columns.

    Decided by the extension (``.jsonl``, ``.ndjson``, ``.json``, also followed by ``.gz``) or else by
    the first non-blank character of the file being ``{``.
    """
    source = open_source(path)
    if Path(source.stem_name).suffix in (".jsonl", ".ndjson", ".json"):
        return True
    return first_line(source).lstrip().startswith("{")


def first_line(source: Source) -> str:
    """The first line that is not blank (``""`` when there is none); a bad byte past it is no error here."""
    try:
        for _, line in text_lines(source):
            if line.strip():
                return line
    except ValueError:
        return ""
    return ""


def read_jsonl_objects(path: PathLike, *, bad_lines: str = "raise") -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_number, object)`` for every non-blank line of a JSON Lines file: the one JSONL reader.

    Reads through :mod:`._sources` (gzip, ``"-"`` for standard input, any line end, a BOM). A line that is not
    UTF-8, not JSON, nested too deeply, holding an integer of over 4300 digits or not a JSON object raises
    ValueError starting ``file:line:``. With ``bad_lines="yield"`` such an error is yielded in place of the
    object and reading goes on (for readers that report each bad line as that item's problem).
    """
    if bad_lines not in ("raise", "yield"):
        raise ValueError(f'bad_lines must be "raise" or "yield", got {bad_lines!r}')
    source = open_source(path)
    for number, line in text_lines(source, bad_lines=bad_lines):
        if isinstance(line, ValueError):
            yield number, line  # type: ignore[misc]
            continue
        if not line.strip():
            continue
        error = None
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            error = f"not valid JSON ({exc.msg} at column {exc.colno})"
        except RecursionError:
            error = "the JSON is nested too deeply to read"
        except ValueError:  # an integer of more than 4300 digits
            error = "a number has too many digits to read (over 4300)"
        else:
            if not isinstance(obj, dict):
                error = f"expected a JSON object, got {type(obj).__name__}"
        if error is None:
            yield number, obj
        elif bad_lines == "yield":
            yield number, ValueError(f"{source}:{number}: {error}")  # type: ignore[misc]
        else:
            raise ValueError(f"{source}:{number}: {error}")


def _query_id(obj: dict, where: str, hint: str) -> str:
    if "query_id" not in obj:
        raise ValueError(f'{where}: missing "query_id"; {hint}')
    qid = obj["query_id"]
    if isinstance(qid, bool) or not isinstance(qid, (str, int)):
        raise ValueError(f'{where}: "query_id" must be a string or an integer, got {qid!r}')
    return str(qid)


def _queries(path: PathLike, hint: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(where, query id, object)`` for each line of a JSONL qrels or run file; a query on two lines is an error."""
    seen: set[str] = set()
    source = open_source(path)
    for number, obj in read_jsonl_objects(source):
        where = f"{source}:{number}"
        qid = _query_id(obj, where, hint)
        if qid in seen:
            raise ValueError(f"{where}: query {qid!r} appears a second time; give each query one line")
        seen.add(qid)
        yield where, qid, obj


def _doc_id(value: Any, where: str, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f'{where}: every id in "{field}" must be a string or an integer, got {value!r}')
    return str(value)


def _number(value: Any, where: str, field: str, doc: str) -> float:
    try:
        return check_score(value, finite=True)
    except ValueError:
        raise ValueError(f'{where}: "{field}" for {doc!r} must be a finite number, got {shown(value)}') from None


def _grade(value: Any, where: str, doc: str) -> int:
    try:
        grade = check_grade(value)
    except ValueError as exc:
        raise ValueError(f'{where}: "relevance" for {doc!r}: {exc}') from None
    if grade != int(grade):
        raise ValueError(f'{where}: grade for {doc!r} in "relevance" must be an integer, got {value!r}')
    return int(grade)


def read_jsonl_qrels(path: PathLike) -> dict[str, dict[str, int]]:
    """Read JSONL judgments into ``{query_id: {doc_id: grade}}``.

    ``expected_ids`` gives every listed id grade 1; ``relevance`` gives each id its grade
    (integers; 0 or negative means judged non-relevant).  A query may appear on one line only.
    """
    qrels: dict[str, dict[str, int]] = {}
    for where, qid, obj in _queries(path, _QRELS_HINT):
        if "relevance" in obj:
            rel = obj["relevance"]
            if not isinstance(rel, dict):
                raise ValueError(f'{where}: "relevance" must be an object {{id: grade}}, got {rel!r}')
            grades: dict[str, int] = {}
            for doc, grade in rel.items():
                grades[str(doc)] = _grade(grade, where, doc)
        elif "expected_ids" in obj:
            ids = obj["expected_ids"]
            if not isinstance(ids, list):
                raise ValueError(f'{where}: "expected_ids" must be a list of ids, got {ids!r}')
            grades = {_doc_id(doc, where, "expected_ids"): 1 for doc in ids}
        else:
            raise ValueError(f"{where}: no judgments for query {qid!r}; {_QRELS_HINT}")
        qrels[qid] = grades
    return qrels


def read_jsonl_run(path: PathLike) -> dict[str, list[str] | dict[str, float]]:
    """Read a JSONL run into ``{query_id: [doc, ...]}`` (ranked) or ``{query_id: {doc: score}}``.

    A plain ``retrieved_ids`` list keeps its order.  With scores (a list parallel to
    ``retrieved_ids`` or an ``{id: score}`` object) the query maps to ``{doc: score}``, which the
    metric core ranks by score descending, ties by document id descending (as trec_eval does).
    """
    run: dict[str, list[str] | dict[str, float]] = {}
    for where, qid, obj in _queries(path, _RUN_HINT):
        scores = obj.get("scores")
        if "retrieved_ids" in obj:
            ids = obj["retrieved_ids"]
            if not isinstance(ids, list):
                raise ValueError(f'{where}: "retrieved_ids" must be a list of ids, got {ids!r}')
            docs = [_doc_id(doc, where, "retrieved_ids") for doc in ids]
            if scores is None:
                run[qid] = docs
                continue
            if not isinstance(scores, list) or len(scores) != len(docs):
                raise ValueError(
                    f'{where}: "scores" must be a list as long as "retrieved_ids" ({len(docs)} ids), got {scores!r}'
                )
            ranked: dict[str, float] = {}
            for doc, score in zip(docs, scores, strict=False):
                if doc in ranked:
                    raise ValueError(f'{where}: id {doc!r} appears twice in "retrieved_ids" with scores')
                ranked[doc] = _number(score, where, "scores", doc)
            run[qid] = ranked
        elif isinstance(scores, dict):
            run[qid] = {str(doc): _number(s, where, "scores", doc) for doc, s in scores.items()}
        else:
            raise ValueError(f"{where}: no retrieved ids for query {qid!r}; {_RUN_HINT}")
    return run
