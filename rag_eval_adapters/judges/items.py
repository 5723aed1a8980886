"""Reading what the judges are given: answers, questions, references, passages and contexts, with errors that
name the item and the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["as_chunks", "text_field", "optional_text"]


def text_field(item: Mapping[str, Any], names: Sequence[str], where: str, *, required: bool = True) -> str | None:
    """The first of ``names`` present in ``item`` (a str; None allowed as empty), or None when absent and not
    ``required``."""
    for name in names:
        if name in item:
            value = item[name]
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


def as_chunks(contexts: Any, where: str) -> list[tuple[str, str]]:
    """``contexts`` as ``(chunk_id, text)`` pairs: a list of strings (ids ``"1"``, ``"2"``...), a mapping
    ``{chunk_id: text}``, or a list of mappings with ``text`` (or ``page_content``/``content``) and optionally
    ``chunk_id``/``id``."""
    if contexts is None:
        return []
    if isinstance(contexts, str):
        return [("1", contexts)]
    if isinstance(contexts, Mapping):
        pairs = list(contexts.items())
    elif isinstance(contexts, Sequence):
        pairs = []
        for i, ctx in enumerate(contexts, 1):
            if isinstance(ctx, str):
                pairs.append((str(i), ctx))
            elif isinstance(ctx, Mapping):
                text = next((ctx[k] for k in ("text", "page_content", "content") if k in ctx), None)
                cid = next((ctx[k] for k in ("chunk_id", "id", "doc_id") if ctx.get(k) is not None), i)
                pairs.append((cid, text))
            else:
                raise TypeError(f"{where}: contexts[{i - 1}] must be a string or a mapping with 'text', got "
                                f"{type(ctx).__name__}")
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
