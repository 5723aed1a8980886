"""One answer record and its one reader, used by every answer path (``evaluate_answers``, the judges, the bench,
Ray, the CLI, the HTML report and both frameworks' evaluators).

A record is a mapping. Each field may come under any of its names (:data:`FIELD_NAMES`):

============  =====================================================
field         names read
============  =====================================================
query_id      ``query_id``
question      ``question``, ``query``
prediction    ``prediction``, ``answer``, ``response``
references    ``references``, ``reference``, ``ground_truth``, ``expected``
contexts      ``contexts``, ``retrieved_contexts``
conversation  ``conversation`` (the turns so far: ``{"speaker": "user" | "agent", "text"}``)
answerable    ``answerable`` (``false``: no answer exists; abstaining is right)
============  =====================================================

Every other field (``query_type``, ``language``...) is kept as the record's ``attributes`` (``query_type`` and
``answerable`` are kept there too, for ``report.by``). A field given under two names with different values is an
error naming the query and both names, the same message on every path. Query ids are unique after conversion
to text: ``1`` and ``"1"`` are refused, naming both records.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from .lexical import check_prediction, check_references

__all__ = ["AnswerRecord", "FIELD_NAMES", "RECORD_FIELDS", "read_record", "read_records", "as_chunks",
           "field_value"]

#: each field of a record -> the names it may be given under, the canonical one first
FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id",),
    "question": ("question", "query"),
    "prediction": ("prediction", "answer", "response"),
    "references": ("references", "reference", "ground_truth", "expected"),
    "contexts": ("contexts", "retrieved_contexts"),
    "conversation": ("conversation",),
}
#: the names a record's fields are read from (the other fields are its attributes)
RECORD_FIELDS: tuple[str, ...] = tuple(name for names in FIELD_NAMES.values() for name in names)
_SPEAKERS = {"user": "user", "agent": "agent", "assistant": "agent"}


class AnswerRecord:
    """One validated answer record (see the module docstring for the fields and their names).

    ``prediction`` and ``question`` are None when absent; ``references`` is a list of strings (empty when
    absent); ``contexts`` a list of ``(chunk_id, text)``; ``conversation`` a tuple of ``(speaker, text)`` turns,
    ``speaker`` ``"user"`` or ``"agent"``; ``answerable`` True, False or None (not said).
    """

    __slots__ = ("query_id", "prediction", "references", "attributes", "question", "contexts", "conversation",
                 "answerable", "query_type")

    def __init__(self, query_id: Hashable, prediction: str | None, references: list[str],
                 attributes: dict[str, Any], *, question: str | None = None,
                 contexts: list[tuple[str, str]] | None = None,
                 conversation: tuple[tuple[str, str], ...] = (), answerable: bool | None = None,
                 query_type: Any = None) -> None:
        self.query_id = query_id
        self.prediction = prediction
        self.references = references
        self.attributes = attributes
        self.question = question
        self.contexts = list(contexts or [])
        self.conversation = conversation
        self.answerable = answerable
        self.query_type = query_type

    def __repr__(self) -> str:
        return (f"AnswerRecord(query_id={self.query_id!r}, prediction={self.prediction!r:.40}, "
                f"references={self.references!r:.60}, attributes={self.attributes!r})")

    @property
    def where(self) -> str:
        """``query <id>``: how messages name the record."""
        return f"query {self.query_id!r}"


def field_value(item: Mapping[str, Any], field: str | Sequence[str], where: str) -> tuple[str | None, Any]:
    """``(the name given, its value)`` of ``field`` (a field of :data:`FIELD_NAMES`, or its names) in ``item``;
    ``(None, None)`` when absent.

    Raises
    ------
    ValueError
        The field is given under two names with different values (naming both).
    """
    names = FIELD_NAMES[field] if isinstance(field, str) else field
    given = [name for name in names if name in item]
    for other in given[1:]:
        if item[other] != item[given[0]]:
            one, two = sorted((given[0], other))
            raise ValueError(f"{where}: {one!r} and {two!r} are two names of one field with different values "
                             f"({item[one]!r:.40} and {item[two]!r:.40}); give either {one!r} or {two!r}, not both")
    return (given[0], item[given[0]]) if given else (None, None)


def as_chunks(contexts: Any, where: str) -> list[tuple[str, str]]:
    """``contexts`` as ``(chunk_id, text)`` pairs: a list of strings (ids ``"1"``, ``"2"``...), a mapping
    ``{chunk_id: text}``, or a list of mappings with ``text`` (or ``page_content``/``content``) and optionally
    ``chunk_id``/``id``/``doc_id``; ``TypeError``/``ValueError`` naming ``where`` otherwise."""
    if contexts is None:
        return []
    if isinstance(contexts, str):
        return [("1", contexts)]
    if isinstance(contexts, Mapping):
        pairs = list(contexts.items())
    elif isinstance(contexts, Sequence):
        pairs = [_context_pair(ctx, i, where) for i, ctx in enumerate(contexts, 1)]
    else:
        raise TypeError(f"{where}: contexts must be a list of strings, a mapping {{chunk_id: text}} or a list of "
                        f"{{'chunk_id', 'text'}} mappings, got {type(contexts).__name__}")
    out = []
    for cid, text in pairs:
        if not isinstance(text, str):
            raise TypeError(f"{where}: the text of context {cid!r} must be a string, got {type(text).__name__}")
        out.append((str(cid), text))
    ids = [c for c, _ in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{where}: context chunk ids must be distinct, got {ids}")
    return out


def _context_pair(ctx: Any, i: int, where: str) -> tuple[Any, Any]:
    if isinstance(ctx, str):
        return str(i), ctx
    if isinstance(ctx, tuple) and len(ctx) == 2:  # (chunk_id, text), the record's own form
        return ctx
    if isinstance(ctx, Mapping):
        text = next((ctx[k] for k in ("text", "page_content", "content") if k in ctx), None)
        return next((ctx[k] for k in ("chunk_id", "id", "doc_id") if ctx.get(k) is not None), i), text
    raise TypeError(f"{where}: contexts[{i - 1}] must be a string, a (chunk_id, text) pair or a mapping with 'text', "
                    f"got {type(ctx).__name__}")


def _conversation(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise TypeError(f"{where}: conversation must be a list of {{'speaker', 'text'}} turns, got "
                        f"{type(value).__name__}")
    turns: list[tuple[str, str]] = []
    for i, turn in enumerate(value):
        speaker = turn.get("speaker", turn.get("role")) if isinstance(turn, Mapping) else None
        text = turn.get("text", turn.get("content")) if isinstance(turn, Mapping) else None
        if speaker not in _SPEAKERS or not isinstance(text, str):
            raise ValueError(f"{where}: conversation[{i}] must be {{'speaker': 'user' or 'agent', 'text': str}}, "
                             f"got {turn!r:.80}")
        if turns and turns[-1][0] == _SPEAKERS[speaker]:
            raise ValueError(f"{where}: conversation[{i}] is a second {_SPEAKERS[speaker]} turn in a row; the turns "
                             "alternate user and agent")
        turns.append((_SPEAKERS[speaker], text))
    return tuple(turns)


def _answerable(value: Any, where: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise TypeError(f"{where}: answerable must be true or false, got {type(value).__name__}: {value!r:.40}")


def _optional_text(item: Mapping[str, Any], field: str, where: str, *, none: bool = True) -> str | None:
    """The text of ``field`` (None when absent, or given as None when ``none``)."""
    name, value = field_value(item, field, where)
    return None if name is None or (value is None and none) else check_prediction(value, name)


def read_record(item: Any, query_id: Hashable) -> AnswerRecord:
    """The :class:`AnswerRecord` of ``item`` (a mapping) with id ``query_id``.

    Raises
    ------
    TypeError, ValueError
        A field of the wrong type or given twice with different values, the message naming the query and the
        field.
    """
    where = f"query {query_id!r}"
    prediction = _optional_text(item, "prediction", where, none=False)
    question = _optional_text(item, "question", where)
    name, value = field_value(item, "references", where)
    references = [] if value is None else check_references(value, name or "references")
    _, contexts = field_value(item, "contexts", where)
    _, conversation = field_value(item, "conversation", where)
    attributes = {k: v for k, v in item.items() if k not in RECORD_FIELDS}
    return AnswerRecord(query_id, prediction, references, attributes, question=question,
                        contexts=as_chunks(contexts, where), conversation=_conversation(conversation, where),
                        answerable=_answerable(item.get("answerable"), where), query_type=item.get("query_type"))


def _query_id(item: Any, index: int, default_id: bool) -> Hashable:
    if not isinstance(item, Mapping):
        raise TypeError(f"record {index} must be a mapping with query_id, prediction and reference(s), "
                        f"got {type(item).__name__}")
    if "query_id" not in item or item["query_id"] is None:
        if default_id:
            return str(index + 1)
        raise ValueError(f"record {index} has no query_id; every record needs one")
    qid = item["query_id"]
    if not isinstance(qid, Hashable):
        raise TypeError(f"record {index}: query_id must be a string or a number, got {type(qid).__name__}")
    try:
        unequal = bool(qid != qid)
    except (TypeError, ValueError):  # pandas' NA has no truth value
        unequal = True
    if unequal:  # NaN equals nothing, itself included: two NaN ids would both pass the uniqueness check
        raise ValueError(f"record {index}: query_id is {qid!r}, which does not equal itself; give each query an "
                         "id that does (a string or a finite number)")
    return qid


def read_records(items: Iterable[Any], *, default_id: bool = False, labels: Sequence[str] | None = None
                 ) -> list[tuple[Hashable, dict[str, Any], AnswerRecord | str]]:
    """``(query_id, attributes, record or its error message)`` of every item, in order.

    A record with a bad field is its error message (naming the query and the field); the others are read.
    ``default_id`` gives a record without ``query_id`` its 1-based position (as text); ``labels`` name the
    records in messages (e.g. ``file:line``; default ``record <index>``).

    Raises
    ------
    TypeError
        ``items`` is a single mapping or string, or an item is not a mapping.
    ValueError
        A record without ``query_id`` (unless ``default_id``), an id that does not equal itself (NaN), or two
        records whose ids are equal or equal as text (``1`` and ``"1"``), naming both.
    """
    if isinstance(items, (Mapping, str, bytes)):
        raise TypeError("records must be an iterable of mappings (one per answer), not a single mapping or string")
    out: list[tuple[Hashable, dict[str, Any], AnswerRecord | str]] = []
    seen: dict[str, tuple[int, Hashable]] = {}
    for index, item in enumerate(items):
        qid = _query_id(item, index, default_id)
        text = str(qid)
        if text in seen:
            first, other = seen[text]
            name, first_name = (labels[index], labels[first]) if labels else (f"record {index}", f"record {first}")
            if other == qid and type(other) is type(qid):
                raise ValueError(f"{name}: query_id {qid!r} appears twice (first in {first_name}); query ids must be "
                                 "unique")
            raise ValueError(f"{name}: query_id {qid!r} and {first_name}'s query_id {other!r} are the same id once "
                             "read as text (files, --details and per_query key by text); give distinct ids")
        seen[text] = (index, qid)
        attributes = {k: v for k, v in item.items() if k not in RECORD_FIELDS}
        try:
            out.append((qid, attributes, read_record(item, qid)))
        except (TypeError, ValueError) as exc:
            message = str(exc)
            out.append((qid, attributes, message if message.startswith("query ") else f"query {qid!r}: {message}"))
    return out
