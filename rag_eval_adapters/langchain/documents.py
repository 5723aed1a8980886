"""Finding retrieved documents, their ids and texts, and the reference in LangSmith runs and examples."""

from __future__ import annotations

import numbers
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeGuard

from langchain_core.documents import Document

DOCUMENT_KEYS: tuple[str, ...] = ("documents", "output", "context", "source_documents")
"""Output keys searched, in order, for the retrieved documents when no ``documents_key`` is given."""

FEEDBACK_CONFIG: dict[str, Any] = {"type": "continuous", "min": 0.0, "max": 1.0}
"""The LangSmith feedback configuration of every score: continuous in [0, 1]."""

IdFn = Callable[[Any], Any]
_PREVIEW = 10




def _where(query_id: Any) -> str:
    return "" if query_id is None else f"query {query_id!r}: "


def _query_id(run: Any, example: Any) -> str | None:
    """The query id of a LangSmith evaluation: the example's id, else the run's ``reference_example_id``."""
    for value in (getattr(example, "id", None), getattr(run, "reference_example_id", None)):
        if value is not None:
            return str(value)
    return None


def _check_keys(keys: dict[str, Any], *, blank: bool = True) -> None:
    """Check an evaluator's key options (``{"documents_key": value, ...}``): each ``None`` or a string.

    With ``blank=False`` a string must not be empty. Raises ``TypeError`` naming the option.
    """
    for name, value in keys.items():
        if value is not None and (not isinstance(value, str) or (not blank and not value)):
            kind = "a string" if blank else "a non-empty string"
            raise TypeError(f"{name} must be {kind}, got {value!r}")


def _is_run(source: Any) -> bool:
    return not isinstance(source, (Mapping, str, bytes)) and hasattr(source, "outputs")


def _is_list(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, (list, tuple))


def _lookup(outputs: Mapping[str, Any]) -> list[Any] | None:
    """The first list under DOCUMENT_KEYS, also one level down (``outputs["output"]["documents"]``)."""
    for key in DOCUMENT_KEYS:
        value = outputs.get(key)
        if _is_list(value):
            return list(value)
    for key in DOCUMENT_KEYS:
        value = outputs.get(key)
        if isinstance(value, Mapping):
            for inner in DOCUMENT_KEYS:
                if _is_list(value.get(inner)):
                    return list(value[inner])
    return None


def _walk(run: Any) -> Iterator[Any]:
    for child in getattr(run, "child_runs", None) or ():
        yield child
        yield from _walk(child)


def _retriever_documents(run: Any) -> list[Any] | None:
    """The documents of the first retriever child run (depth first, in start order), if any."""
    for child in _walk(run):
        outputs = getattr(child, "outputs", None)
        if getattr(child, "run_type", None) == "retriever" and isinstance(outputs, Mapping):
            documents = outputs.get("documents")
            if _is_list(documents):
                return list(documents)
    return None


def _rebuild(item: Mapping[str, Any]) -> Document | Mapping[str, Any]:
    """A Document from a serialized one (LangSmith API dict or LangChain ``lc`` constructor form)."""
    fields: Mapping[str, Any] = item
    if item.get("lc") == 1 and item.get("type") == "constructor" and isinstance(item.get("kwargs"), Mapping):
        path = item.get("id")
        if not (isinstance(path, (list, tuple)) and path and path[-1] == "Document"):
            return item
        fields = item["kwargs"]
    if not any(name in fields for name in ("page_content", "id", "metadata")):
        return item
    metadata = fields.get("metadata") or {}
    doc_id = fields.get("id")
    if isinstance(doc_id, uuid.UUID):
        doc_id = str(doc_id)
    return Document(
        page_content=str(fields.get("page_content") or ""),
        metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
        id=doc_id,
    )


def _normalise_item(item: Any) -> Any:
    if isinstance(item, Document):
        return item
    if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], numbers.Real)
            and not isinstance(item[1], bool)):
        first = _normalise_item(item[0])  # (Document, score) from similarity_search_with_score, or (id, score)
        if isinstance(first, (Document, str, uuid.UUID)):
            return first
        return item
    if isinstance(item, Mapping):
        return _rebuild(item)
    return item


def find_documents(source: Any, *, documents_key: str | None = None, query_id: Any = None) -> list[Any]:
    """The retrieved items, in rank order, from a run, an outputs mapping, or a bare list.

    ``source`` is a LangSmith/LangChain run (its ``outputs``, then its retriever child runs are searched), a
    mapping of outputs, or the list of documents itself. With ``documents_key`` only ``outputs[documents_key]``
    is used. Without it: the first list under :data:`DOCUMENT_KEYS` (also one level down), then the first
    retriever child run. Serialized documents are rebuilt into :class:`~langchain_core.documents.Document`,
    ``(Document, score)`` and ``(id, score)`` pairs give their first item, other items (plain ids) are returned
    unchanged.

    An empty list is a retrieval that found nothing. Raises ``ValueError`` when no documents can be found.
    """
    found: list[Any] | None = None
    run = source if _is_run(source) else None
    outputs = source.outputs if run is not None else source
    if outputs is None and run is not None and getattr(run, "error", None):
        raise ValueError(
            f"{_where(query_id)}the run has no outputs because it failed ({run.error}); "
            "fix the target so that it returns the retrieved documents"
        )
    if _is_list(outputs):
        found = list(outputs)
    elif isinstance(outputs, Mapping) or outputs is None:
        outputs = outputs or {}
        if documents_key is not None:
            if documents_key not in outputs:
                raise ValueError(
                    f"{_where(query_id)}outputs[{documents_key!r}] is missing (the outputs have keys "
                    f"{sorted(map(str, outputs))}); return the retrieved documents under {documents_key!r} "
                    "or pass another documents_key"
                )
            value = outputs[documents_key]
            if not _is_list(value):
                raise ValueError(
                    f"{_where(query_id)}outputs[{documents_key!r}] must be a list of documents or ids in rank "
                    f"order, got {type(value).__name__}"
                )
            found = list(value)
        else:
            found = _lookup(outputs)
            if found is None and run is not None:
                found = _retriever_documents(run)
            if found is None:
                has_children = run is not None and bool(getattr(run, "child_runs", None))
                raise ValueError(
                    f"{_where(query_id)}no retrieved documents found: the outputs (keys "
                    f"{sorted(map(str, outputs))}) hold no list under {', '.join(map(repr, DOCUMENT_KEYS))}"
                    + (
                        " and no retriever child run returned documents"
                        if has_children
                        else " and no retriever child run is available"
                    )
                    + "; return them as outputs['documents'] (e.g. {'documents': retriever.invoke(question)}), "
                    "or pass documents_key='<your key>'"
                )
    else:
        raise TypeError(
            f"{_where(query_id)}outputs must be a mapping, a run or a list of documents, "
            f"got {type(outputs).__name__}"
        )
    return [_normalise_item(item) for item in found]


def _as_id(value: Any, what: str, query_id: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, uuid.UUID) or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        return str(value)
    if value is None:
        raise ValueError(f"{_where(query_id)}{what} is None; every document needs an id")
    raise TypeError(f"{_where(query_id)}{what} must be a string id (or an int/UUID), got {value!r}")


def document_id(
    item: Any,
    *,
    id_key: str | None = None,
    id_fn: IdFn | None = None,
    rank: int | None = None,
    query_id: Any = None,
) -> str:
    """The id of one retrieved item: ``id_fn(item)``, else ``item.metadata[id_key]``, else ``Document.id``.

    Plain ids (strings, ints, UUIDs) are their own id. The result is a string. ``rank`` (1-based) and
    ``query_id`` only name the item in error messages.
    """
    what = "document" if rank is None else f"document at rank {rank}"
    if id_fn is not None:
        return _as_id(id_fn(item), f"id_fn({what})", query_id)
    if isinstance(item, Document):
        if id_key is not None:
            if id_key not in item.metadata:
                raise ValueError(
                    f"{_where(query_id)}{what} has no metadata[{id_key!r}] (its metadata keys: "
                    f"{sorted(map(str, item.metadata))}); store the id there when indexing, or pass another "
                    "id_key or an id_fn"
                )
            return _as_id(item.metadata[id_key], f"{what} metadata[{id_key!r}]", query_id)
        if item.id is None:
            raise ValueError(
                f"{_where(query_id)}{what} has no id: set Document.id when indexing, or pass "
                "id_key='<metadata key holding the id>' or id_fn=<callable returning the id>"
            )
        return _as_id(item.id, f"{what} id", query_id)
    if isinstance(item, (str, uuid.UUID)) or (isinstance(item, numbers.Integral) and not isinstance(item, bool)):
        return _as_id(item, what, query_id)
    raise TypeError(
        f"{_where(query_id)}{what} is a {type(item).__name__} ({_short(item)}), neither a Document nor an id; "
        "pass id_fn=<callable returning its id>"
    )


def document_text(item: Any) -> str | None:
    """The text of one retrieved item: ``Document.page_content``; ``None`` for a plain id."""
    item = _normalise_item(item)
    if isinstance(item, Document):
        return item.page_content
    return None


def retrieved_ids(
    source: Any,
    *,
    documents_key: str | None = None,
    id_key: str | None = None,
    id_fn: IdFn | None = None,
    query_id: Any = None,
) -> list[str]:
    """The retrieved document ids in rank order (see :func:`find_documents` and :func:`document_id`)."""
    items = find_documents(source, documents_key=documents_key, query_id=query_id)
    return [
        document_id(item, id_key=id_key, id_fn=id_fn, rank=rank, query_id=query_id)
        for rank, item in enumerate(items, start=1)
    ]


def find_reference(
    source: Any,
    reference_key: str = "expected_ids",
    *,
    query_id: Any = None,
) -> list[str] | dict[str, Any]:
    """The relevant ids (a list) or graded relevance (a dict id -> grade) for one query.

    ``source`` is a LangSmith ``Example`` (its ``outputs[reference_key]``), a mapping of reference outputs
    (``reference_outputs[reference_key]``), or the bare list of relevant ids. Raises ``ValueError`` when the
    reference is missing or empty.
    """
    field = f"outputs[{reference_key!r}]"
    if source is None:
        raise ValueError(
            f"{_where(query_id)}no reference: the evaluator needs the dataset example with {field} holding the "
            "relevant document ids. LangSmith evaluate() passes it; with EvaluatorCallbackHandler pass "
            "example_id=...; in a direct call pass reference_outputs={" + repr(reference_key) + ": [...]}"
        )
    if _is_list(source) or isinstance(source, (set, frozenset)):
        value: Any = source
        field = "reference"
    else:
        outputs = source if isinstance(source, Mapping) else getattr(source, "outputs", None)
        if outputs is None:
            outputs = {}
        if not isinstance(outputs, Mapping):
            raise TypeError(
                f"{_where(query_id)}the reference outputs must be a mapping, got {type(outputs).__name__}"
            )
        if outputs.get(reference_key) is None:
            example = "" if isinstance(source, Mapping) else "the example's "
            raise ValueError(
                f"{_where(query_id)}{example}{field} is missing (the reference outputs have keys "
                f"{sorted(map(str, outputs))}); store the relevant document ids (or a mapping id -> grade) "
                "there, or pass reference_key='<your key>' (or store the relevant texts under 'expected_texts')"
            )
        value = outputs[reference_key]
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{_where(query_id)}{field} is a single string ({value!r}); store a list of ids, e.g. [{value!r}]"
        )
    if isinstance(value, Mapping):
        reference: list[str] | dict[str, Any] = {
            _as_id(doc, f"{field} key", query_id): grade for doc, grade in value.items()
        }
    elif isinstance(value, Iterable):
        reference = [_as_id(doc, f"{field} item", query_id) for doc in value]
    else:
        raise TypeError(
            f"{_where(query_id)}{field} must be a list of ids or a mapping id -> grade, got {type(value).__name__}"
        )
    if not reference:
        raise ValueError(
            f"{_where(query_id)}{field} is empty: a query needs at least one relevant document id to be scored"
        )
    return reference


def retrieved_texts(source: Any, *, documents_key: str | None = None, query_id: Any = None) -> list[str]:
    """The texts of the retrieved documents in rank order: ``Document.page_content``, or the item itself when it
    is a plain string (for text matching, see :func:`rag_eval_adapters.matching.score_texts`)."""
    texts = []
    for rank, item in enumerate(find_documents(source, documents_key=documents_key, query_id=query_id), start=1):
        text = item if isinstance(item, str) else document_text(item)
        if not isinstance(text, str):
            raise TypeError(
                f"{_where(query_id)}document at rank {rank} is a {type(item).__name__} ({_short(item)}) with no text; "
                "text matching needs Documents (page_content) or strings"
            )
        texts.append(text)
    return texts


def find_expected_texts(
    source: Any, reference_key: str = "expected_ids", text_key: str = "expected_texts", *, query_id: Any = None
) -> list[str] | dict[str, Any] | None:
    """The expected texts of one query (a list, or a mapping text -> grade) when the reference outputs hold
    ``text_key`` and not ``reference_key``; ``None`` when the reference is by id (see :func:`find_reference`)."""
    if source is None or _is_list(source) or isinstance(source, (set, frozenset)):
        return None
    outputs = source if isinstance(source, Mapping) else getattr(source, "outputs", None)
    if not isinstance(outputs, Mapping) or outputs.get(reference_key) is not None:
        return None
    value = outputs.get(text_key)
    if value is None:
        return None
    field = f"outputs[{text_key!r}]"
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{_where(query_id)}{field} is a single string; store a list of texts, e.g. [{_short(value)}]"
        )
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, Iterable):
        raise TypeError(f"{_where(query_id)}{field} must be a list of texts, got {type(value).__name__}")
    return list(value)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _preview(values: Sequence[Any]) -> str:
    shown = ", ".join(map(str, values[:_PREVIEW]))
    return f"[{shown}{', ...' if len(values) > _PREVIEW else ''}]"


def _comment(ids: Sequence[str], reference: list[str] | dict[str, Any]) -> str:
    if isinstance(reference, dict):
        items = [f"{doc}: {grade}" for doc, grade in reference.items()]
        expected = "{" + ", ".join(items[:_PREVIEW]) + (", ..." if len(items) > _PREVIEW else "") + "}"
    else:
        expected = _preview(reference)
    return f"retrieved {len(ids)} ids {_preview(ids)}; expected {len(reference)} {expected}"


