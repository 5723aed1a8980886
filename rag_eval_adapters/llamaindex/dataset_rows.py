"""Reading the rows of a data set for :func:`~rag_eval_adapters.llamaindex.evaluate_dataset`: mappings, objects or
a JSONL file; a malformed row (or file line) becomes that row's problem, never the end of the run."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..jsonl import read_jsonl_objects
from ..testsets import TestSet
from ..validation import check_texts


@dataclass
class DatasetRow:
    """One row of a data set as read: its input position, what it asks and expects, or the problem that keeps it
    from being evaluated (then it never reaches the retriever)."""

    index: int
    query: str | None = None
    expected_ids: list[str] = field(default_factory=list)
    expected_texts: list[str] | None = None
    problem: str | None = None
    query_id: Any = None
    attributes: dict[str, Any] = field(default_factory=dict)


_ROW_FIELDS = ("query", "expected_ids", "expected_texts", "query_id")


def _field(raw: Any, name: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(name)
    return getattr(raw, name, None)


def _list_of_str(value: Any, name: str) -> list[str] | None:
    return None if value is None else check_texts(value, name)


def _item(index: int, raw: Any) -> DatasetRow:
    item = DatasetRow(index)
    query = _field(raw, "query")
    item.query_id = _field(raw, "query_id")
    if isinstance(raw, Mapping):
        item.attributes = {k: v for k, v in raw.items() if k not in _ROW_FIELDS}
    if isinstance(query, str):
        item.query = query
    try:
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f"row has no query (a non-empty 'query' string is required), got {query!r:.60}")
        ids = _field(raw, "expected_ids")
        if ids is None:  # a hand-written test-set line names them relevant_chunk_ids
            ids = _field(raw, "relevant_chunk_ids")
        item.expected_ids = _list_of_str(ids, "expected_ids") or []
        texts = _field(raw, "expected_texts")
        if not ids and not texts:  # a test-set line or TestCase that gives only its evidence text
            evidence = _field(raw, "evidence")
            texts = [evidence] if isinstance(evidence, str) and evidence.strip() else evidence
        item.expected_texts = _list_of_str(texts, "expected_texts")
        if not item.expected_ids and not item.expected_texts:
            raise ValueError("no expectation: give 'expected_ids' (or 'expected_texts') with at least one entry")
    except (TypeError, ValueError) as exc:
        item.problem = f"{type(exc).__name__}: {exc}"
    return item


def _load_jsonl(path: Path) -> list[DatasetRow]:
    """One item a non-blank line (read by the package's one JSONL reader: gzip, BOM, any line end); a line that
    cannot be read or parsed is that item's problem, naming ``file:line``."""
    items: list[DatasetRow] = []
    for number, raw in read_jsonl_objects(path, bad_lines="yield"):
        if isinstance(raw, ValueError):
            items.append(DatasetRow(len(items), problem=f"ValueError: {raw}"))
            continue
        item = _item(len(items), raw)
        if item.problem:
            item.problem = f"{item.problem} ({path}:{number})"
        items.append(item)
    return items


def load_rows(dataset: Any) -> list[DatasetRow]:
    """The data set's rows as items, in input order (the path of a JSONL file, a test set's ``TestSet``, or an
    iterable of rows; test-set lines and ``TestCase`` objects are rows too)."""
    if isinstance(dataset, TestSet):
        dataset = dataset.to_rows()
    if isinstance(dataset, (str, os.PathLike)):
        path = Path(dataset)
        if not path.is_file():
            raise FileNotFoundError(f"data set file {str(path)!r} not found (expected JSONL: one object a line)")
        return _load_jsonl(path)
    if isinstance(dataset, (bytes, Mapping)) or not isinstance(dataset, Iterable):
        raise TypeError(
            "dataset must be an iterable of rows (mappings or objects with query, expected_ids and optionally "
            f"expected_texts) or the path of a JSONL file, got {type(dataset).__name__}"
        )
    return [_item(index, raw) for index, raw in enumerate(dataset)]
