"""Text made safe for Markdown: every cell and every quoted text of a Markdown output goes through
:func:`escape_markdown`, so ids, questions and document texts are shown as written and never become
links, images, HTML or table columns."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["escape_markdown"]

_SPECIAL = re.compile(r"[\\`|~]|\*(?=\S)|(?<=\S)\*|\](?=[(\[])|<(?=[A-Za-z/!?])|&(?=[A-Za-z#])")
_ENTITIES = {"<": "&lt;", "&": "&amp;"}


def _escape(match: re.Match) -> str:
    char = match.group()
    return _ENTITIES.get(char, "\\" + char)


def escape_markdown(text: Any) -> str:
    """``text`` as literal Markdown on one line, changed only where Markdown would read it otherwise.

    Line breaks become spaces; a ``<`` that could open a tag, comment or autolink (before a letter, ``/``, ``!``
    or ``?``) becomes ``&lt;`` and an ``&`` that could start an entity ``&amp;`` (no raw HTML); ``\\``, backticks,
    ``|`` and ``~`` are backslash-escaped (no code span, table cell break or strike-through), and so are a ``*``
    next to a non-space character (no emphasis; a lone ``*`` marker stays) and a ``]`` before ``(`` or ``[`` (no
    link or image; an interval such as ``[0.1, 0.3]`` and ``<0.0001`` stay as they are)."""
    return _SPECIAL.sub(_escape, " ".join(str(text).splitlines()))
