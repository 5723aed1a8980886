"""Readers for TREC qrels and run files.

* qrels: ``query_id iteration doc_id grade`` per line (the iteration column is ignored);
* run:   ``query_id Q0 doc_id rank score tag`` per line (like trec_eval, the rank column is ignored:
  documents are ranked by score, ties broken by doc id descending).

Blank lines are skipped. Lines end at ``\n``, ``\r\n`` or ``\r``; a UTF-8 byte order mark at the start is
dropped; a file may be gzip-compressed, and ``"-"`` reads standard input. Grades and scores follow one grammar
(:mod:`rag_eval_adapters._numbers`: no ``0x1``, no ``1_000``, no NaN). A malformed line raises ``ValueError``
naming the file and the line number. A TREC file has no comment lines.

When pyarrow is installed (the ``cli`` extra) a file is parsed by pyarrow's CSV reader, in C++, and only the
``{doc: value}`` dicts are built in Python (one ``dict(zip(...))`` per query). Anything that reader does not
take exactly as the line-by-line reader would (tabs mixed with spaces, runs of blanks, a grade that is not
an integer, a NaN score, a repeated document, odd whitespace or bytes) sends the file through the Python
reader, so results and error messages (with their line numbers) are the same either way.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice, repeat
from typing import Any, Literal, Union

from ._numbers import INT64_MAX, parse_grade, parse_score
from ._ranking import trec_order
from ._sources import Source, open_source, text_lines

__all__ = ["read_trec_qrels", "read_trec_run", "read_trec_qrels_table", "read_trec_run_table", "TrecFormatError",
           "trec_order"]  # trec_order: the order trec_eval ranks a run's documents in (score, then doc id, descending)

PathLike = Union[str, "os.PathLike[str]", Source]  # a Source: an input already opened (rag_eval_adapters.readers)
Engine = Literal["auto", "pyarrow", "python"]

# what str.split() splits on besides ' ': a field holding one of these is not what pyarrow sees
_OTHER_WHITESPACE = (
    r"[\t\n\r\x{0b}\x{0c}\x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}"
    r"\x{202f}\x{205f}\x{3000}]"
)


class TrecFormatError(ValueError):
    """A line of a TREC file that cannot be read."""


def _field_count_error(source: Source, number: int, fields: list, layout: str) -> TrecFormatError:
    n = len(layout.split())
    hint = "; a TREC file has no comment lines: remove it" if fields[0].startswith("#") else ""
    return TrecFormatError(
        f"{source}:{number}: a {'qrels' if n == 4 else 'run'} line has {n} fields {layout!r}, "
        f"found {len(fields)}: {_clip(' '.join(fields))!r}{hint}"
    )


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:70] + "..."


def read_trec_qrels(path: PathLike, *, engine: Engine = "auto") -> dict[str, dict[str, int | float]]:
    """``{query_id: {doc_id: grade}}`` from a TREC qrels file (``qid iter docno grade``).

    ``path`` may be gzip-compressed, or ``"-"`` for standard input. ``engine``: ``"auto"`` parses with
    pyarrow when it is installed and the file suits it, else line by line; ``"python"`` always line by
    line; ``"pyarrow"`` requires pyarrow. The result, or the error, is the same whatever the engine.
    """
    return _read(open_source(path), engine, _QRELS)


def read_trec_run(path: PathLike, *, engine: Engine = "auto") -> dict[str, dict[str, float]]:
    """``{query_id: {doc_id: score}}`` from a TREC run file (``qid Q0 docno rank score tag``).

    ``path`` and ``engine`` as for :func:`read_trec_qrels`.
    """
    return _read(open_source(path), engine, _RUN)


def _quick_grade(text: str) -> int | None:
    """``int(text)`` when the grammar takes it as that int (``int()`` takes more: ``1_0``, other digits)."""
    try:
        value = int(text)
    except ValueError:
        return None
    return value if "_" not in text and text.isascii() and -INT64_MAX <= value <= INT64_MAX else None


def _quick_score(text: str) -> float | None:
    """``float(text)`` when the grammar takes it as that float (``float()`` takes more: ``nan``, ``1_0``)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and "_" not in text and text.isascii() else None


@dataclass(frozen=True)
class _Layout:
    """What tells a qrels file from a run file: its fields, where the value is and how it is read."""

    fields: str  # the layout named in a field-count error
    value_at: int
    arrow_type: str
    quick: Callable[[str], Any]  # the usual case, or None for the grammar to decide
    parse: Callable[[str], Any]  # the grammar (:mod:`_numbers`)
    verb: str  # "query 'q' <verb> document 'd' twice"
    column: str  # the value's column in a table


_QRELS = _Layout("query_id iteration doc_id grade", 3, "int64", _quick_grade, parse_grade, "judges", "grade")
_RUN = _Layout("query_id Q0 doc_id rank score tag", 4, "float64", _quick_score, parse_score, "retrieves", "score")


def _read(source: Source, engine: str, layout: _Layout) -> dict[str, dict[str, Any]]:
    """The nested dict of a TREC file: by pyarrow when it suits the file, else line by line."""
    n_fields = len(layout.fields.split())
    if engine != "python":
        table = _arrow_table(source, n_fields, layout.value_at, layout.arrow_type, engine)
        if table is not None:
            nested = _nest(table, layout.value_at)
            if nested is not None:
                return nested
    return _read_lines(source, layout)


def _read_lines(source: Source, layout: _Layout) -> dict[str, dict[str, Any]]:
    nested: dict[str, dict[str, Any]] = {}
    n_fields, value_at, quick = len(layout.fields.split()), layout.value_at, layout.quick
    for number, line in text_lines(source):
        fields = line.split()
        if len(fields) != n_fields:
            if not fields:
                continue
            raise _field_count_error(source, number, fields, layout.fields)
        qid, doc, text = fields[0], fields[2], fields[value_at]
        value = quick(text)
        if value is None:
            try:
                value = layout.parse(text)
            except ValueError as exc:
                raise TrecFormatError(f"{source}:{number}: {exc}") from None
        inner = nested.setdefault(qid, {})
        if doc in inner:  # add_once's rule, inline: this loop is the line reader's whole cost
            raise TrecFormatError(f"{source}:{number}: query {qid!r} {layout.verb} document {doc!r} twice")
        inner[doc] = value
    return nested


def read_trec_qrels_table(path: PathLike):
    """The qrels file as a pyarrow Table ``query_id, doc_id, grade`` (for :func:`~rag_eval_adapters.columnar.evaluate_columns`).

    Lines are checked as :func:`read_trec_qrels` checks them (a bad line raises ``ValueError`` with its line
    number), except that a document judged twice is left to
    :func:`~rag_eval_adapters.columnar.evaluate_columns`, which reports that query's error. Needs pyarrow.
    """
    return _read_table(open_source(path), _QRELS)


def read_trec_run_table(path: PathLike):
    """The run file as a pyarrow Table ``query_id, doc_id, score`` (for :func:`~rag_eval_adapters.columnar.evaluate_columns`).

    Lines are checked as :func:`read_trec_run` checks them, except that a document retrieved twice is left to
    :func:`~rag_eval_adapters.columnar.evaluate_columns`, which reports that query's error. Needs pyarrow.
    """
    return _read_table(open_source(path), _RUN)


def _read_table(source: Source, layout: _Layout):
    """The pyarrow Table ``query_id, doc_id, <value>`` of a TREC file (the line reader's when pyarrow's
    reading would differ from it)."""
    import pyarrow as pa

    table = _arrow_table(source, len(layout.fields.split()), layout.value_at, layout.arrow_type, "pyarrow")
    if table is None:  # not exactly readable by pyarrow: the line reader's data (and errors)
        return _table_from_nested(pa, _read_lines(source, layout), layout.column)
    return pa.table({"query_id": table.column(0), "doc_id": table.column(2),
                     layout.column: table.column(layout.value_at)})


def _table_from_nested(pa, nested: dict, value: str):
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    q, d, v = zip(*rows, strict=False) if rows else ((), (), ())
    return pa.table({"query_id": pa.array(q, pa.string()), "doc_id": pa.array(d, pa.string()),
                     value: pa.array(v, pa.float64() if value == "score" else None)})


def _arrow_table(source: Source, n_fields: int, value_at: int, value_type: str, engine: str) -> Any:
    """The file parsed by pyarrow (all fields strings but the value), or None when it must be read line by line.

    None whenever pyarrow might read the file otherwise than the line reader: then the line reader decides
    (and names the line of any error).
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as csv
    except ImportError:
        if engine == "pyarrow":
            raise ImportError("engine='pyarrow' needs pyarrow: pip install 'rag-eval-adapters[cli]'") from None
        return None
    names = [f"f{i}" for i in range(n_fields)]
    types = {name: pa.string() for name in names}
    if value_type == "float64":  # arrow's float parser takes exactly the grammar's decimals and inf, and NaN
        types[names[value_at]] = pa.float64()
    table = None
    for delimiter in (" ", "\t"):
        try:
            table = csv.read_csv(
                source.arrow_input(),
                read_options=csv.ReadOptions(column_names=names, use_threads=True),
                parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                               double_quote=False, ignore_empty_lines=True),
                convert_options=csv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                                                   quoted_strings_can_be_null=False, check_utf8=True),
            )
            break
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, OSError):
            continue
    if table is None or table.num_rows == 0:
        return None
    for i in range(n_fields):
        if i == value_at and value_type == "float64":
            continue
        column = table.column(i)
        if column.null_count or pc.min(pc.binary_length(column)).as_py() == 0:  # blanks side by side
            return None
        if delimiter == "\t" and pc.any(pc.match_substring(column, " ")).as_py():  # a blank the lines split on
            return None
        if pc.all(pc.string_is_ascii(column)).as_py():  # the usual case: a cheap check of control characters
            if not pc.all(pc.ascii_is_printable(column)).as_py():
                return None
        elif pc.any(pc.match_substring_regex(column, _OTHER_WHITESPACE)).as_py():
            return None
    value = table.column(value_at)
    if value_type == "float64":
        if pc.any(pc.is_nan(value)).as_py():
            return None
        return table
    # arrow's integer parser also takes hexadecimal (0x1), which the grammar refuses
    if pc.any(pc.match_substring(value, "x", ignore_case=True)).as_py():
        return None
    try:
        value = pc.cast(value, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # not an integer, or one beyond 64 bits
        return None
    return table.set_column(value_at, names[value_at], value)


_NUMPY_OF_ARROW = {"int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1", "uint16": "u2",
                   "uint32": "u4", "uint64": "u8", "float": "f4", "double": "f8"}


def _to_numpy(column: Any) -> Any:
    """A numeric Arrow column as a numpy array, read from its data buffer when it has no nulls (Arrow's own
    ``to_numpy`` imports pandas, which reading a file does not need)."""
    import numpy as np

    array = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    code = _NUMPY_OF_ARROW.get(str(array.type))
    if code is None or array.null_count:
        return array.to_numpy(zero_copy_only=False)
    dtype = np.dtype(code)
    if len(array) == 0:
        return np.empty(0, dtype=dtype)
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def _nest(table: Any, value_at: int) -> dict | None:
    """``{query: {doc: value}}`` in file order, or None when a query repeats a document (the line reader says where)."""
    import pyarrow.compute as pc

    queries = table.column(0)
    encoded = pc.dictionary_encode(queries).combine_chunks()
    codes = _to_numpy(encoded.indices)
    names = encoded.dictionary.to_pylist()
    import numpy as np

    if codes.shape[0] > 1 and int(np.count_nonzero(codes[1:] != codes[:-1])) != len(names) - 1:
        order = np.argsort(codes, kind="stable")  # a query's lines are not all together: group them
        codes = codes[order]
    else:
        order = None
    bounds = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1], True]).tolist()
    docs = table.column(2)
    values = table.column(value_at)
    if order is not None:
        docs, values = docs.take(order), values.take(order)
    sizes = np.diff(bounds)
    doc_iter = iter(docs.to_pylist())
    value_iter = iter(_to_numpy(values).tolist())
    # one dict per query, built in C: dict(zip(next `size` docs, next `size` values))
    groups = list(map(dict, map(zip, map(islice, repeat(doc_iter), sizes.tolist()),
                                map(islice, repeat(value_iter), sizes.tolist()))))
    if not np.array_equal(np.fromiter(map(len, groups), dtype=np.int64, count=len(groups)), sizes):
        return None  # a query repeats a document
    return dict(zip([names[c] for c in codes[np.asarray(bounds[:-1], dtype=np.int64)].tolist()], groups, strict=False))
