"""Text made safe for Markdown: every cell and every quoted text of a Markdown output goes through
:func:`escape_markdown`, so ids, questions and document texts are shown as written and never become
links, images, HTML or table columns."""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["escape_markdown"]

_SPECIAL = re.compile(r"([\\`*\[\]|~])")


def escape_markdown(text: Any) -> str:
    """``text`` as literal Markdown on one line: line breaks become spaces, ``&``, ``<`` and ``>`` HTML entities
    (no raw HTML, comment or autolink), and ``\\ ` * [ ] | ~`` backslash-escaped (no link, image, code span,
    emphasis, strike-through or table cell break)."""
    one_line = " ".join(str(text).splitlines())
    return _SPECIAL.sub(r"\\\1", html.escape(one_line, quote=False))
