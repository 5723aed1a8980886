"""The one expected failure of every ``rag-eval`` command, and the one-line form of its message."""

from __future__ import annotations

__all__ = ["CLIError", "one_line"]


class CLIError(Exception):
    """An expected failure: reported as one line on stderr with exit status 2."""


def one_line(message: object) -> str:
    """``message`` as one line: every run of whitespace (newlines included) becomes one space."""
    return " ".join(str(message).split())
