"""Reading what the judges are given: answers, questions, references, passages and contexts, with errors that
name the item and the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..answers.record import as_chunks, field_value  # the one reading of records, shared with the answers

__all__ = ["as_chunks", "text_field", "optional_text"]


def text_field(item: Mapping[str, Any], names: Sequence[str], where: str, *, required: bool = True) -> str | None:
    """The first of ``names`` present in ``item`` (a str; None allowed as empty), or None when absent and not
    ``required``."""
    name, value = field_value(item, names, where)
    if name is not None:
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = value[0]  # several references: the judges read the first
        if value is None:
            return ""
        if not isinstance(value, str):
            raise TypeError(f"{where}: {name!r} must be a string, got {type(value).__name__}")
        return value
    if required:
        raise ValueError(f"{where}: no {' or '.join(repr(n) for n in names)} field")
    return None


def optional_text(value: Any, name: str, where: str) -> str | None:
    """``value`` when a str or None; TypeError otherwise."""
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{where}: {name} must be a string or None, got {type(value).__name__}")
