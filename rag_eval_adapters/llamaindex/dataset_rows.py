"""Reading the rows of a data set for :func:`~rag_eval_adapters.llamaindex.evaluate_dataset`: mappings, objects or
a JSONL file; a malformed row (or file line) becomes that row's problem, never the end of the run."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        item.expected_ids = _list_of_str(_field(raw, "expected_ids"), "expected_ids") or []
        item.expected_texts = _list_of_str(_field(raw, "expected_texts"), "expected_texts")
        if not item.expected_ids and not item.expected_texts:
            raise ValueError("no expectation: give 'expected_ids' (or 'expected_texts') with at least one entry")
    except (TypeError, ValueError) as exc:
        item.problem = f"{type(exc).__name__}: {exc}"
    return item


def _decoded_lines(path: Path) -> Iterable[tuple[int, str | UnicodeDecodeError]]:
    """``(line number, text)`` of each line of a UTF-8 file (a leading BOM dropped); a line that is not valid
    UTF-8 gives its decoding error instead of ending the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise OSError(f"cannot read the data set file {str(path)!r}: {exc.strerror or exc}") from exc
    for number, raw in enumerate(data.splitlines(), start=1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield number, exc


def _load_jsonl(path: Path) -> list[DatasetRow]:
    """One item a non-blank line; a line that cannot be read or parsed is that item's problem, naming the line."""
    items: list[DatasetRow] = []
    for number, line in _decoded_lines(path):
        where = f"{path.name} line {number}"
        if isinstance(line, UnicodeDecodeError):
            bad = line.object[line.start : line.start + 1].hex()
            items.append(DatasetRow(len(items), problem=f"ValueError: {where}: not valid UTF-8 (byte 0x{bad} at "
                                                   f"byte {line.start + 1} of the line); save the file as UTF-8"))
            continue
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError; deep nesting recurses
            detail = exc if isinstance(exc, ValueError) else "nested too deeply"
            items.append(DatasetRow(len(items), problem=f"ValueError: {where}: invalid JSON ({detail})"))
            continue
        if not isinstance(raw, dict):
            items.append(DatasetRow(len(items), problem=f"ValueError: {where}: expected an object "
                                                   '{"query": ..., "expected_ids": [...]}'))
            continue
        item = _item(len(items), raw)
        if item.problem:
            item.problem = f"{item.problem} ({where})"
        items.append(item)
    return items


def load_rows(dataset: Any) -> list[DatasetRow]:
    """The data set's rows as items, in input order (the path of a JSONL file or an iterable of rows)."""
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
