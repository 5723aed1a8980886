"""Readers for qrels and runs kept as tables with a header row: CSV, TSV (BEIR's qrels) and Parquet.

Columns are found by name (case-insensitive; ``-``, ``_`` and spaces alike); other columns are ignored:

========  ============================================================================
query     ``query_id``, ``query-id`` (BEIR), ``qid``, ``query``, ``topic``
document  ``doc_id``, ``corpus-id`` (BEIR), ``docid``, ``docno``, ``doc``, ``document_id``, ``pid``
grade     (qrels) ``grade``, ``relevance``, ``rel``, ``label``, ``score`` (BEIR), ``judgment``
score     (run) ``score``; or else ``rank`` (1 is the best, ranks of a query distinct)
========  ============================================================================

BEIR's ``qrels/test.tsv`` (``query-id  corpus-id  score``) is a qrels table. A run with a ``score``
column maps each query to ``{doc_id: score}`` (ranked as trec_eval ranks: score descending, ties by
document id descending; a ``rank`` column is then ignored, as trec_eval ignores it); a run with only
``rank`` maps each query to its documents in rank order.

Grades and scores written as text follow the grammar of the TREC readers (no ``0x1``, no NaN); typed
Parquet values the same rule. Any bad row raises :class:`ValueError` naming the file and the line (CSV,
TSV) or the row (Parquet). CSV and TSV files may be gzip-compressed, and ``"-"`` reads standard input.
Parquet needs pyarrow (``pip install 'rag-eval-adapters[cli]'``).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Union

from ._numbers import check_grade, check_score, parse_grade, parse_score, shown
from ._sources import Source, add_once, open_source, text_lines
from .extras import require

__all__ = ["read_table_qrels", "read_table_run", "TABLE_FORMATS"]

PathLike = Union[str, "os.PathLike[str]", Source]

TABLE_FORMATS = ("csv", "tsv", "parquet")
"""The table formats: comma-separated, tab-separated, Parquet."""

QUERY_COLUMNS = ("queryid", "qid", "query", "topic", "topicid")
DOC_COLUMNS = ("docid", "corpusid", "docno", "doc", "documentid", "pid", "passageid")
GRADE_COLUMNS = ("grade", "relevance", "rel", "label", "score", "judgment", "judgement")
SCORE_COLUMNS = ("score",)
RANK_COLUMNS = ("rank",)
PARQUET_MAGIC = b"PAR1"


def _key(name: str) -> str:
    return "".join(ch for ch in str(name).strip().lower() if ch not in "-_ ")


def _find(header: list, names: tuple) -> int | None:
    keys = [_key(h) for h in header]
    for name in names:
        if name in keys:
            return keys.index(name)
    return None


def is_table_header(line: str) -> bool:
    """True when ``line`` (the first line of a file) names a query, a document and a value column."""
    header = line.split("\t") if "\t" in line else line.split(",")
    return (_find(header, QUERY_COLUMNS) is not None and _find(header, DOC_COLUMNS) is not None
            and _find(header, GRADE_COLUMNS + RANK_COLUMNS) is not None)


def table_format(source: Source) -> str | None:
    """``"csv"``, ``"tsv"`` or ``"parquet"`` by the file name (``.gz`` aside) or its first bytes; else None."""
    suffix = Path(source.stem_name).suffix
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix in (".csv", ".tsv"):
        return suffix[1:]
    with source.open() as handle:
        try:
            if handle.read(4) == PARQUET_MAGIC:
                return "parquet"
        except (OSError, EOFError):
            return None
    for _, line in _first_lines(source):
        if is_table_header(line):
            return "tsv" if "\t" in line else "csv"
        return None
    return None


def _first_lines(source: Source) -> Iterator[tuple[int, str]]:
    try:
        for number, line in text_lines(source):
            if line.strip():
                yield number, line
                return
    except ValueError:
        return


def read_table_qrels(path: PathLike, *, format: str | None = None) -> dict[str, dict[str, int | float]]:
    """``{query_id: {doc_id: grade}}`` from a qrels table (CSV, TSV such as BEIR's, or Parquet).

    Parameters
    ----------
    path
        The file (``"-"``: standard input; CSV and TSV may be gzip-compressed).
    format
        ``"csv"``, ``"tsv"`` or ``"parquet"``; by default from the name, else from the content.

    Raises
    ------
    ValueError
        A missing column, a bad grade or a document judged twice, naming the file and line (or row).
    """
    source = open_source(path)
    header, rows = _rows(source, format)
    q, d = _columns(source, header, "qrels")
    g = _find(header, GRADE_COLUMNS)
    if g is None:
        raise ValueError(f"{source}: no grade column; name it one of {', '.join(GRADE_COLUMNS)} "
                         f"(found {', '.join(map(str, header))})")
    qrels: dict[str, dict[str, int | float]] = {}
    for where, row in rows:
        qid, doc = _id(row[q], where, header[q]), _id(row[d], where, header[d])
        add_once(qrels, qid, doc, _cell(row[g], where, parse_grade, check_grade), where, "judges")
    return qrels


def read_table_run(path: PathLike, *, format: str | None = None) -> dict[str, dict[str, float] | list[str]]:
    """A run from a table (CSV, TSV or Parquet) with a ``score`` or a ``rank`` column.

    Returns ``{query_id: {doc_id: score}}`` with a score column, else ``{query_id: [doc_id, ...]}`` in
    rank order. ``path`` and ``format`` as for :func:`read_table_qrels`.

    Raises
    ------
    ValueError
        A missing column, a bad score or rank, a rank or document given twice in a query, naming the
        file and line (or row).
    """
    source = open_source(path)
    header, rows = _rows(source, format)
    q, d = _columns(source, header, "run")
    s, r = _find(header, SCORE_COLUMNS), _find(header, RANK_COLUMNS)
    if s is None and r is None:
        raise ValueError(f"{source}: no score or rank column; name one 'score' or 'rank' "
                         f"(found {', '.join(map(str, header))})")
    scored: dict[str, dict[str, float]] = {}
    ranked: dict[str, dict[int, str]] = {}
    seen: dict[str, set] = {}
    for where, row in rows:
        qid, doc = _id(row[q], where, header[q]), _id(row[d], where, header[d])
        docs = seen.setdefault(qid, set())
        if doc in docs:
            raise ValueError(f"{where}: query {qid!r} retrieves document {doc!r} twice")
        docs.add(doc)
        if s is not None:
            scored.setdefault(qid, {})[doc] = _cell(row[s], where, parse_score, check_score)
        else:
            rank = _rank(row[r], where)
            by_rank = ranked.setdefault(qid, {})
            if rank in by_rank:
                raise ValueError(f"{where}: query {qid!r} has two documents at rank {rank} "
                                 f"({by_rank[rank]!r} and {doc!r}); give ranks 1, 2, 3, ... or a score column")
            by_rank[rank] = doc
    if s is not None:
        return dict(scored)
    return {qid: [by_rank[k] for k in sorted(by_rank)] for qid, by_rank in ranked.items()}


def _columns(source: Source, header: list, kind: str) -> tuple[int, int]:
    q, d = _find(header, QUERY_COLUMNS), _find(header, DOC_COLUMNS)
    if q is None or d is None:
        raise ValueError(
            f"{source}: a {kind} table needs a header naming its query and document columns (query_id or "
            f"query-id, doc_id or corpus-id), found {', '.join(map(str, header)) or 'no header'}"
        )
    return q, d


def _cell(value: Any, where: str, parse: Callable[[str], Any], check: Callable[[Any], Any]) -> Any:
    """A grade or score cell: text (CSV/TSV) by the grammar's ``parse``, a number (Parquet) by ``check``; an
    error names ``where``."""
    try:
        return parse(value.strip()) if isinstance(value, str) else check(value)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _id(value: Any, where: str, column: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "" or (
            isinstance(value, str) and not value.strip()):
        raise ValueError(f"{where}: the {column!r} column holds no id ({shown(value)})")
    return value.strip() if isinstance(value, str) else str(value)


def _rank(value: Any, where: str) -> int:
    text = value.strip() if isinstance(value, str) else value
    try:
        rank = parse_grade(text) if isinstance(text, str) else check_grade(text)
    except ValueError:
        rank = None
    if isinstance(rank, float) and rank == int(rank):
        rank = int(rank)
    if not isinstance(rank, int) or rank < 1:
        raise ValueError(f"{where}: the rank {shown(value)} is not a positive integer")
    return rank


def _rows(source: Source, format: str | None):
    """The header and an iterator of ``(where, row)``: CSV/TSV rows with their line, Parquet rows."""
    fmt = format or table_format(source)
    if fmt is None:
        raise ValueError(f"{source}: not a table: give it a .csv, .tsv or .parquet name, or a header row "
                         "naming its query_id, doc_id and grade (or score / rank) columns")
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"format must be one of {', '.join(TABLE_FORMATS)}, got {format!r}")
    if fmt == "parquet":
        return _parquet_rows(source)
    return _csv_rows(source, "\t" if fmt == "tsv" else ",")


def _csv_rows(source: Source, delimiter: str):
    lines = text_lines(source)
    numbers: list[int] = []

    def text() -> Iterator[str]:
        for number, line in lines:
            numbers.append(number)
            yield line

    reader = csv.reader(text(), delimiter=delimiter, strict=True)
    try:
        header = next(row for row in reader if row)
    except StopIteration:
        raise ValueError(f"{source}: the table is empty (no header row)") from None
    except csv.Error as exc:
        raise ValueError(f"{source}:{numbers[-1] if numbers else 1}: {exc}") from None

    def rows():
        width = len(header)
        try:
            for row in reader:
                if not row or not any(field.strip() for field in row):
                    continue
                where = f"{source}:{numbers[-1]}"
                if len(row) != width:
                    raise ValueError(f"{where}: {len(row)} fields where the header has {width}")
                yield where, row
        except csv.Error as exc:
            raise ValueError(f"{source}:{numbers[-1]}: {exc}") from None

    return header, rows()


def _parquet_rows(source: Source):
    pa = require("pyarrow", needed_by="reading Parquet", extra="cli")
    pq = require("pyarrow.parquet", needed_by="reading Parquet", extra="cli", package="pyarrow")
    try:
        if source.path is not None and not source.gzip:
            table = pq.read_table(str(source.path))
        else:
            table = pq.read_table(pa.BufferReader(source.read_bytes()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
        raise ValueError(f"{source}: not a readable Parquet file ({' '.join(str(exc).split())[:160]})") from None
    header = list(table.column_names)
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]

    def rows():
        for i, row in enumerate(zip(*columns, strict=False), 1):
            yield f"{source}: row {i}", row

    return header, rows()
