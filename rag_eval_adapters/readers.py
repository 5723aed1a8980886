"""Read qrels or a run from any supported file, its format found from its name or its first line.

=========  ===============================================================  ==================================
format     how it is recognised                                             reader
=========  ===============================================================  ==================================
``jsonl``  ``.jsonl``, ``.ndjson``, ``.json``; or a first line ``{...``      :mod:`rag_eval_adapters.jsonl`
``csv``    ``.csv``; or a first line naming columns, comma-separated        :mod:`rag_eval_adapters.tables`
``tsv``    ``.tsv``; or a header with tabs (BEIR: ``query-id corpus-id``)   :mod:`rag_eval_adapters.tables`
``parquet`` ``.parquet``, ``.pq``; or Parquet's magic bytes                   :mod:`rag_eval_adapters.tables`
``trec``   anything else                                                    :mod:`rag_eval_adapters.trec`
=========  ===============================================================  ==================================

A ``.gz`` after the name is looked through (``run.trec.gz``, ``qrels.jsonl.gz``), and any gzip file is
decompressed. ``"-"`` reads standard input (once; its format from its first line). :func:`open_source` opens
such an input as a :class:`Source` (name, bytes, the line reader's start) for any other reader of the package.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

from ._sources import Source, open_source

__all__ = ["read_qrels", "read_run", "detect_format", "FORMATS", "Source", "open_source"]

FORMATS = ("trec", "jsonl", "csv", "tsv", "parquet")
"""The input formats of :func:`read_qrels` and :func:`read_run`."""

PathLike = Union[str, "os.PathLike[str]"]


def detect_format(path: PathLike | Source) -> str:
    """The format of ``path``: one of :data:`FORMATS` (see the module docstring)."""
    from .jsonl import first_line
    from .tables import table_format

    source = open_source(path)
    if Path(source.stem_name).suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    table = table_format(source)
    if table is not None:
        return table
    return "jsonl" if first_line(source).lstrip().startswith("{") else "trec"


def read_qrels(path: PathLike, *, format: str | None = None) -> dict[str, dict[str, int | float]]:
    """``{query_id: {doc_id: grade}}`` from a qrels file in any of :data:`FORMATS`.

    Parameters
    ----------
    path
        The file; ``"-"`` reads standard input; gzip-compressed files are decompressed.
    format
        One of :data:`FORMATS`; by default found by :func:`detect_format`.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        A malformed line, naming the file and the line.
    """
    return _read(path, format, "qrels")


def read_run(path: PathLike, *, format: str | None = None) -> dict[str, Any]:
    """A run ``{query_id: {doc_id: score}}`` or ``{query_id: [doc_id, ...]}`` from a file in any of :data:`FORMATS`.

    ``path`` and ``format`` as for :func:`read_qrels`. TREC runs and scored JSONL or table runs give
    ``{doc_id: score}`` (ranked by score, ties by document id descending); ranked JSONL lists and rank-only
    tables give lists in rank order.
    """
    return _read(path, format, "run")


def _read(path: PathLike | Source, format: str | None, kind: str) -> dict[str, Any]:
    """``read_<format>_<kind>`` of the file's format (``kind``: ``"qrels"`` or ``"run"``); each reader module is
    imported when its format is read."""
    source, fmt = _source_and_format(path, format)
    if fmt == "jsonl":
        from .jsonl import read_jsonl_qrels, read_jsonl_run

        return (read_jsonl_qrels if kind == "qrels" else read_jsonl_run)(source)
    if fmt == "trec":
        from .trec import read_trec_qrels, read_trec_run

        return (read_trec_qrels if kind == "qrels" else read_trec_run)(source)
    from .tables import read_table_qrels, read_table_run

    return (read_table_qrels if kind == "qrels" else read_table_run)(source, format=fmt)


def _source_and_format(path: PathLike | Source, format: str | None) -> tuple[Source, str]:
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    source = open_source(path)
    return source, format or detect_format(source)
